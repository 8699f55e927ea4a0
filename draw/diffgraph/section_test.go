package diffgraph

import (
	"encoding/xml"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/draw"
)

// processPicture is an ILCS process as sections: the master thread that hung
// in MPI_Allreduce, a worker whose critical sections went missing, and a
// worker that exists in the normal run only.
func processPicture(t testing.TB) *Picture {
	return &Picture{
		Title: "diffNLR(4)",
		Label: testLabel,
		Ended: "hung",
		Sections: []Section{
			{Title: "thread 4.0", Blocks: mustDiff(t, allreduceNormal, allreduceFaulty)},
			{Title: "thread 4.1", Blocks: mustDiff(t, ilcsNormal, ilcsFaulty)},
			{Title: "thread 4.2", Blocks: mustDiff(t, seq(sym("omp_get_thread_num"), loop(0, 3)), nil)},
		},
	}
}

// In the picture each section starts with a heading box on the stem, joined
// to the section before it by invisible edges only, and each section marks
// its own faulty trace's end.
func TestSectionsDOT(t *testing.T) {
	p := processPicture(t)
	got := parseDOT(t, dotOf(t, p))
	var heads []string
	for _, n := range got.nodes {
		if strings.Contains(n, "<B>thread") {
			heads = append(heads, n)
		}
	}
	if len(heads) != 3 {
		t.Fatalf("want 3 heading nodes, got %q", got.nodes)
	}
	for _, h := range []string{"<B>thread 4.0</B>", "<B>thread 4.2</B><BR/><FONT POINT-SIZE=\"10\">the faulty trace is empty</FONT>"} {
		a, ok := got.attrs[h]
		if !ok {
			t.Errorf("no heading %q in %q", h, got.nodes)
			continue
		}
		if a["fillcolor"] != fillHead || a["group"] != "stem" || a["fontcolor"] != "white" {
			t.Errorf("heading %q: %v", h, a)
		}
	}
	for _, e := range got.edges {
		if strings.Contains(e, "-> <B>thread") && !strings.HasSuffix(e, "invis)") {
			t.Errorf("visible edge into a heading: %s", e)
		}
	}
	// Only thread 4.0 ends differently: one end mark, below its last event
	// and above the next heading.
	src := string(dotOf(t, p))
	if n := strings.Count(src, `penwidth="2.6"`); n != 1 {
		t.Errorf("%d end marks, want 1 (thread 4.0)", n)
	}
	var endEdges []string
	for _, e := range got.edges {
		if strings.Contains(e, "faulty trace ends here") {
			endEdges = append(endEdges, e)
		}
	}
	if len(endEdges) != 2 || !strings.HasPrefix(endEdges[0], "MPI_Allreduce -> ") || !strings.Contains(endEdges[1], "-> <B>thread 4.1</B>") {
		t.Errorf("end mark edges: %q", endEdges)
	}
	// The summary counts every section.
	if !strings.Contains(got.label, "normal: 21 elements · faulty: 11 elements · 5 changes") {
		t.Errorf("summary: %s", got.label)
	}
	// And it draws.
	svg := render(t, p, draw.SVG)
	if err := xml.Unmarshal(svg, new(struct{})); err != nil {
		t.Fatalf("SVG does not parse: %v", err)
	}
	for _, s := range []string{"thread 4.0", "thread 4.1", "thread 4.2", "the faulty trace is empty"} {
		if !strings.Contains(string(svg), s) {
			t.Errorf("SVG lacks %q", s)
		}
	}
}
