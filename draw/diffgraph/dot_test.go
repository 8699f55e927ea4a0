package diffgraph

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/goccy/go-graphviz"

	"github.com/difftrace/difftrace/draw"
	drawgv "github.com/difftrace/difftrace/draw/graphviz"
)

// colourName names the palette colours in test expectations.
var colourName = map[string]string{
	fillCommon: "green", fillNormal: "blue", fillFaulty: "red",
	borderCommon: "green", borderNormal: "blue", borderFaulty: "red",
	edgeStem: "grey", colorEnd: "dark-red",
}

// parsedDOT is what go-graphviz reads back from a picture's DOT source:
// nodes as "label (fill, group)" in the order they are declared, and edges
// as "tail -> head (colour)" in the order dot lays out a node's out-edges
// left to right under ordering=out (the order their heads were declared).
type parsedDOT struct {
	label string
	nodes []string
	edges []string
	attrs map[string]map[string]string // node label → attribute → value
}

func parseDOT(t *testing.T, src []byte) parsedDOT {
	t.Helper()
	var out parsedDOT
	drawgv.Exclusive(func() { out = parseDOTLocked(t, src) })
	return out
}

func parseDOTLocked(t *testing.T, src []byte) parsedDOT {
	t.Helper()
	g, err := graphviz.ParseBytes(src)
	if err != nil {
		t.Fatalf("go-graphviz cannot parse the DOT source: %v\n%s", err, src)
	}
	defer g.Close()
	out := parsedDOT{label: g.GetStr("label"), attrs: map[string]map[string]string{}}
	name := func(n interface{ GetStr(string) string }) string { return n.GetStr("label") }
	for n, err := g.FirstNode(); n != nil && err == nil; n, err = g.NextNode(n) {
		l := name(n)
		a := map[string]string{}
		for _, k := range []string{"fillcolor", "color", "group", "style", "penwidth", "shape", "fontcolor"} {
			a[k] = n.GetStr(k)
		}
		out.attrs[l] = a
		desc := l
		if f := colourName[a["fillcolor"]]; f != "" {
			desc += fmt.Sprintf(" (%s, %s)", f, a["group"])
		} else {
			desc += fmt.Sprintf(" (%s)", a["shape"])
		}
		out.nodes = append(out.nodes, desc)
	}
	for n, err := g.FirstNode(); n != nil && err == nil; n, err = g.NextNode(n) {
		for e, err := g.FirstOut(n); e != nil && err == nil; e, err = g.NextOut(e) {
			head, err := e.Head()
			if err != nil {
				t.Fatal(err)
			}
			style := colourName[e.GetStr("color")]
			if s := e.GetStr("style"); s != "" {
				style += " " + s
			}
			if a := e.GetStr("arrowhead"); a != "normal" && a != "" {
				style += " " + a
			}
			out.edges = append(out.edges, fmt.Sprintf("%s -> %s (%s)", name(n), name(head), strings.TrimSpace(style)))
		}
	}
	return out
}

func dotOf(t *testing.T, p *Picture) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, p, draw.DOT); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDOTStructure(t *testing.T) {
	const end = "<B>■ faulty trace ends here</B><BR/><FONT POINT-SIZE=\"10\">killed by the timeout</FONT>"
	for _, c := range []struct {
		name         string
		pic          *Picture
		nodes, edges []string
	}{
		{
			// Fig. 3.5b: a green stem, L1^16 in blue on the left, L1^7 and
			// L0^9 in red on the right, rejoining at MPI_Finalize.
			"swapBug",
			&Picture{Blocks: mustDiff(t, oddevenNormal, swapFaulty), Label: testLabel},
			[]string{
				"MPI_Init (green, stem)", "MPI_Comm_rank (green, stem)", "MPI_Comm_size (green, stem)",
				"L1^16 (blue, normal)", "MPI_Finalize (green, stem)", "L1^7 (red, faulty)", "L0^9 (red, faulty)",
			},
			[]string{
				"MPI_Init -> MPI_Comm_rank (grey)",
				"MPI_Comm_rank -> MPI_Comm_size (grey)",
				"MPI_Comm_size -> L1^16 (blue)",              // normal first: left of the stem
				"MPI_Comm_size -> MPI_Finalize (grey invis)", // keeps the stem straight
				"MPI_Comm_size -> L1^7 (red)",
				"L1^16 -> MPI_Finalize (blue)",
				"L1^7 -> L0^9 (red)",
				"L0^9 -> MPI_Finalize (red)",
			},
		},
		{
			// Fig. 3.6: the faulty side stops at MPI_Recv, marked; the
			// normal side goes on to MPI_Finalize.
			"dlBug",
			&Picture{Blocks: mustDiff(t, oddevenNormal, dlFaulty), Label: testLabel, Ended: "killed by the timeout"},
			[]string{
				"MPI_Init (green, stem)", "MPI_Comm_rank (green, stem)", "MPI_Comm_size (green, stem)",
				"L1^16 (blue, normal)", "MPI_Finalize (blue, normal)",
				"L1^7 (red, faulty)", "MPI_Recv (red, faulty)", end + " (plaintext)",
			},
			[]string{
				"MPI_Init -> MPI_Comm_rank (grey)",
				"MPI_Comm_rank -> MPI_Comm_size (grey)",
				"MPI_Comm_size -> L1^16 (blue)",
				"MPI_Comm_size -> L1^7 (red)",
				"L1^16 -> MPI_Finalize (blue)",
				"L1^7 -> MPI_Recv (red)",
				"MPI_Recv -> " + end + " (dark-red dashed tee)",
			},
		},
		{
			// Fig. 3.7a: where only the normal run enters the critical
			// section, the faulty run's path is a red edge past it.
			"ILCS critical",
			&Picture{Blocks: mustDiff(t, ilcsNormal, ilcsFaulty), Label: testLabel},
			[]string{
				"omp_get_thread_num (green, stem)", "L0^12 (green, stem)",
				"GOMP_critical_start (blue, normal)", "memcpy (green, stem)",
				"GOMP_critical_end (blue, normal)", "L0^7 (blue, normal)", "GOMP_critical_start (blue, normal)",
				"memcpy (green, stem)", "L0^9 (red, faulty)",
				"GOMP_critical_end (blue, normal)", "L0^4 (green, stem)",
			},
			[]string{
				"omp_get_thread_num -> L0^12 (grey)",
				"L0^12 -> GOMP_critical_start (blue)",
				"L0^12 -> memcpy (red)",
				"GOMP_critical_start -> memcpy (blue)",
				"memcpy -> GOMP_critical_end (blue)",
				"memcpy -> memcpy (grey invis)",
				"memcpy -> L0^9 (red)",
				"GOMP_critical_end -> L0^7 (blue)",
				"L0^7 -> GOMP_critical_start (blue)",
				"GOMP_critical_start -> memcpy (blue)",
				"memcpy -> GOMP_critical_end (blue)",
				"memcpy -> L0^4 (red)",
				"L0^9 -> memcpy (red)",
				"GOMP_critical_end -> L0^4 (blue)",
			},
		},
		{
			// Fig. 3.7b: the last green box is the faulty run's last event.
			"ILCS allreduce",
			&Picture{Blocks: mustDiff(t, allreduceNormal[:6], allreduceFaulty), Label: testLabel, Ended: "killed by the timeout"},
			[]string{
				"MPI_Init (green, stem)", "MPI_Comm_rank (green, stem)", "MPI_Comm_size (green, stem)",
				"GOMP_parallel (green, stem)", "MPI_Allreduce (green, stem)", "L2^5 (blue, normal)", end + " (plaintext)",
			},
			[]string{
				"MPI_Init -> MPI_Comm_rank (grey)",
				"MPI_Comm_rank -> MPI_Comm_size (grey)",
				"MPI_Comm_size -> GOMP_parallel (grey)",
				"GOMP_parallel -> MPI_Allreduce (grey)",
				"MPI_Allreduce -> L2^5 (blue)",
				"MPI_Allreduce -> " + end + " (dark-red dashed tee)",
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := parseDOT(t, dotOf(t, c.pic))
			if strings.Join(got.nodes, "\n") != strings.Join(c.nodes, "\n") {
				t.Errorf("nodes:\n%s\nwant:\n%s", strings.Join(got.nodes, "\n"), strings.Join(c.nodes, "\n"))
			}
			if strings.Join(got.edges, "\n") != strings.Join(c.edges, "\n") {
				t.Errorf("edges:\n%s\nwant:\n%s", strings.Join(got.edges, "\n"), strings.Join(c.edges, "\n"))
			}
		})
	}
}

// The end mark: a thick dark-red border on the faulty run's last event.
func TestDOTEndMark(t *testing.T) {
	got := parseDOT(t, dotOf(t, &Picture{Blocks: mustDiff(t, oddevenNormal, dlFaulty), Label: testLabel, Ended: "killed by the timeout"}))
	a := got.attrs["MPI_Recv"]
	if a["penwidth"] != "2.6" || a["color"] != colorEnd {
		t.Errorf("MPI_Recv: penwidth %q colour %q, want a thick %s border", a["penwidth"], a["color"], colorEnd)
	}
	if a := got.attrs["L1^7"]; a["penwidth"] == "2.6" {
		t.Error("L1^7 is marked too")
	}
	// When both traces end alike nothing is marked.
	got = parseDOT(t, dotOf(t, &Picture{Blocks: mustDiff(t, oddevenNormal, swapFaulty), Label: testLabel}))
	for l, a := range got.attrs {
		if a["penwidth"] == "2.6" || strings.Contains(l, "ends here") {
			t.Errorf("swapBug marks %q", l)
		}
	}
}

// Title, summary, colour key and loop bodies sit in the graph's label, with
// HTML special characters escaped.
func TestDOTLegend(t *testing.T) {
	p := &Picture{
		Blocks: mustDiff(t, oddevenNormal, swapFaulty), Label: testLabel,
		Title:  "diffNLR(5): normal vs faulty",
		Legend: append([]string{"L2 = [a<b>, \"c\" & d]"}, oddevenLegend...),
	}
	got := parseDOT(t, dotOf(t, p))
	for _, want := range []string{
		"<B>diffNLR(5): normal vs faulty</B>",
		"normal: 5 elements · faulty: 6 elements · 1 change",
		"in both runs", "only in normal", "only in faulty",
		fillCommon, fillNormal, fillFaulty,
		"L0 = [MPI_Send, MPI_Recv]", "L1 = [MPI_Recv, MPI_Send]",
		"L2 = [a&lt;b&gt;, &quot;c&quot; &amp; d]",
	} {
		if !strings.Contains(got.label, want) {
			t.Errorf("graph label lacks %q:\n%s", want, got.label)
		}
	}
}

// Labels with DOT's special characters come back literally.
func TestDOTQuoting(t *testing.T) {
	odd := []string{`a"b`, `back\slash`, `two` + "\n" + `lines`, `<html>`, `x\ny`}
	label := func(e nlrElement) string { return odd[e.Sym] }
	var normal, faulty []nlrElement
	for i := range odd {
		normal = append(normal, nlrElement{Loop: -1, Sym: symbol(i)})
	}
	faulty = normal[:2]
	p := &Picture{Blocks: mustDiff(t, normal, faulty), Label: label}
	got := parseDOT(t, dotOf(t, p))
	for _, want := range []string{`a"b`, `back\\slash`, `two\nlines`, `<html>`, `x\\ny`} {
		if _, ok := got.attrs[want]; !ok {
			t.Errorf("no node labelled %q in %v", want, got.nodes)
		}
	}
}
