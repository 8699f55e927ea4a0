package diffgraph

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/draw/dot"
	"github.com/difftrace/difftrace/trace"
)

// The palette: green for the common stem, blue for the normal run, red for
// the faulty run (seeds/002 Fig. 3.5a), pale fills with a darker border.
const (
	fillCommon   = "#e2f3df"
	borderCommon = "#3b8c40"
	fillNormal   = "#dce8fb"
	borderNormal = "#2f6bc7"
	fillFaulty   = "#fbdfdd"
	borderFaulty = "#c8372f"
	edgeStem     = "#8f8f8f"
	fillGap      = "#ffffff"
	textGap      = "#6a6a6a"
	fillSkip     = "#f3f3f3"
	borderSkip   = "#8f8f8f"
	colorEnd     = "#a11d17"
	fillHead     = "#414b57"
	textNote     = "#555555"
	fontName     = "Helvetica"
)

func fillOf(k diffnlr.Kind) string {
	switch k {
	case diffnlr.NormalOnly:
		return fillNormal
	case diffnlr.FaultyOnly:
		return fillFaulty
	}
	return fillCommon
}

func borderOf(k diffnlr.Kind) string {
	switch k {
	case diffnlr.NormalOnly:
		return borderNormal
	case diffnlr.FaultyOnly:
		return borderFaulty
	}
	return borderCommon
}

func edgeColorOf(k diffnlr.Kind) string {
	switch k {
	case diffnlr.NormalOnly:
		return borderNormal
	case diffnlr.FaultyOnly:
		return borderFaulty
	}
	return edgeStem
}

func groupOf(k diffnlr.Kind) string {
	switch k {
	case diffnlr.NormalOnly:
		return "normal"
	case diffnlr.FaultyOnly:
		return "faulty"
	}
	return "stem"
}

// graph is the picture as nodes and edges, before it is written as DOT.
type graph struct {
	attrs []dot.Attr // graph attributes
	nodes []node
	order []int // the order nodes are declared in, see build
	edges []edge
	ranks int // rows of the layout, for sizing raster output
	wide  int // widest node label, in characters
}

type node struct {
	id    string
	attrs []dot.Attr
}

// edge is an edge; slot orders the out-edges of a node left to right
// (the graph has ordering=out): 0 normal side, 1 stem, 2 faulty side.
type edge struct {
	tail, head int
	slot       int
	attrs      []dot.Attr
}

// end is an open path that the next stem node continues: the node it ends
// at and the run it belongs to (Common for the stem itself).
type end struct {
	node int
	side diffnlr.Kind
	rank int
}

// build lays the abridged diff out as a DOT graph: one box per element,
// the common elements on a straight stem (group "stem"), the normal-only
// chain of a change to its left and the faulty-only chain to its right
// (ordering of out-edges), both rejoining the stem at the next common
// element. When only one run has extra elements, the other run's path is a
// direct edge in its colour beside them. An invisible edge across a
// two-sided change keeps the stem straight. Sections follow one another
// down the stem, each under a dark heading box.
func build(p *diffnlr.Picture) *graph {
	v := p.View()
	g := &graph{}

	// Graphviz keeps a node's out-edges in the order their heads were
	// declared, and ordering=out lays them out left to right in that order.
	// So a change's normal-only nodes are declared before the stem node it
	// rejoins, and its faulty-only nodes (and the end mark) after it: they
	// wait in pending until the next stem node is declared.
	counter := map[string]int{}
	var pending []int
	addNode := func(prefix string, label string, attrs ...dot.Attr) int {
		id := prefix + strconv.Itoa(counter[prefix])
		counter[prefix]++
		g.nodes = append(g.nodes, node{id: id, attrs: attrs})
		if n := utf8.RuneCountInString(label); n > g.wide {
			g.wide = n
		}
		i := len(g.nodes) - 1
		if prefix == "f" || prefix == "end" {
			pending = append(pending, i)
		} else {
			g.order = append(g.order, i)
		}
		return i
	}
	addEdge := func(tail, head, slot int, attrs ...dot.Attr) {
		g.edges = append(g.edges, edge{tail: tail, head: head, slot: slot, attrs: attrs})
	}
	slotOf := func(k diffnlr.Kind) int {
		switch k {
		case diffnlr.NormalOnly:
			return 0
		case diffnlr.FaultyOnly:
			return 2
		}
		return 1
	}
	invisible := dot.A("style", "invis")

	// rowNode adds the box for one row of a part of kind k.
	rowNode := func(k diffnlr.Kind, r diffnlr.Row) int {
		prefix := map[diffnlr.Kind]string{diffnlr.Common: "c", diffnlr.NormalOnly: "n", diffnlr.FaultyOnly: "f"}[k]
		if r.Hidden {
			return addNode(prefix, r.Label, dot.A("label", r.Label), dot.A("group", groupOf(k)), dot.A("style", "rounded,dashed,filled"),
				dot.A("fillcolor", fillGap), dot.A("color", borderOf(k)), dot.A("fontcolor", textGap), dot.A("fontsize", "11"))
		}
		attrs := []dot.Attr{dot.A("label", r.Label), dot.A("group", groupOf(k)), dot.A("fillcolor", fillOf(k)), dot.A("color", borderOf(k))}
		if r.Last {
			attrs = append(attrs, dot.A("penwidth", "2.6"), dot.A("color", colorEnd), dot.A("tooltip", v.End))
		}
		return addNode(prefix, r.Label, attrs...)
	}

	var open []end
	straight := -1 // stem node before a two-sided change: keep the stem straight to the next one
	// stem adds a node on the stem and joins every open path to it.
	stem := func(id int) {
		rank := 0
		for _, e := range open {
			addEdge(e.node, id, slotOf(e.side), dot.A("color", edgeColorOf(e.side)))
			rank = max(rank, e.rank+1)
		}
		if straight >= 0 {
			addEdge(straight, id, 1, invisible)
			straight = -1
		}
		open = []end{{node: id, side: diffnlr.Common, rank: rank}}
		g.ranks = max(g.ranks, rank+1)
		g.order = append(g.order, pending...)
		pending = nil
	}
	// heading starts a section on the stem, below everything before it but
	// joined to it by invisible edges only: sections are separate traces.
	var marks []end
	heading := func(id int) {
		rank := 0
		for _, e := range append(open, marks...) {
			addEdge(e.node, id, slotOf(e.side), invisible)
			rank = max(rank, e.rank+1)
		}
		if straight >= 0 {
			addEdge(straight, id, 1, invisible)
			straight = -1
		}
		open = []end{{node: id, side: diffnlr.Common, rank: rank}}
		marks = nil
		g.ranks = max(g.ranks, rank+1)
		g.order = append(g.order, pending...)
		pending = nil
	}
	// marker hangs the "trace ends here" note below node id.
	marker := func(id, rank int) {
		m := addNode("end", v.End,
			dot.HTML("label", "<B>■ "+dot.EscapeHTML(v.End)+`</B><BR/><FONT POINT-SIZE="10">`+dot.EscapeHTML(p.Ended)+"</FONT>"),
			dot.A("shape", "plaintext"), dot.A("style", ""), dot.A("fontcolor", colorEnd), dot.A("fontsize", "12"))
		addEdge(id, m, 2, dot.A("style", "dashed"), dot.A("color", colorEnd), dot.A("arrowhead", "tee"), dot.A("arrowsize", "0.9"))
		g.ranks = max(g.ranks, rank+2)
		marks = append(marks, end{node: m, side: diffnlr.FaultyOnly, rank: rank + 1})
	}

	for i := 0; i < len(v.Parts); i++ {
		pt := v.Parts[i]
		if pt.Head != "" {
			label := "<B>" + dot.EscapeHTML(pt.Head) + "</B>"
			if pt.Note != "" {
				label += `<BR/><FONT POINT-SIZE="10">` + dot.EscapeHTML(pt.Note) + "</FONT>"
			}
			wide := pt.Head
			if utf8.RuneCountInString(pt.Note) > utf8.RuneCountInString(wide) {
				wide = pt.Note
			}
			id := addNode("h", wide, dot.HTML("label", label), dot.A("group", "stem"), dot.A("style", "filled"),
				dot.A("fillcolor", fillHead), dot.A("color", fillHead), dot.A("fontcolor", "white"), dot.A("fontsize", "13"))
			heading(id)
			continue
		}
		if pt.Skipped != "" {
			id := addNode("skip", pt.Skipped, dot.A("label", pt.Skipped), dot.A("group", "stem"), dot.A("style", "rounded,dashed,filled"),
				dot.A("fillcolor", fillSkip), dot.A("color", borderSkip), dot.A("fontcolor", textGap), dot.A("fontsize", "11"))
			stem(id)
			continue
		}
		if pt.Kind == diffnlr.Common {
			for _, r := range pt.Rows {
				id := rowNode(diffnlr.Common, r)
				stem(id)
				if r.Last {
					marker(id, open[0].rank)
				}
			}
			continue
		}
		// A change: the normal-only part, the faulty-only part, or both.
		var normal, faulty []diffnlr.Row
		for ; i < len(v.Parts) && v.Parts[i].Skipped == "" && v.Parts[i].Kind != diffnlr.Common; i++ {
			if v.Parts[i].Kind == diffnlr.NormalOnly {
				normal = append(normal, v.Parts[i].Rows...)
			} else {
				faulty = append(faulty, v.Parts[i].Rows...)
			}
		}
		i--
		var from []end
		base := 0
		if len(open) == 1 && open[0].side == diffnlr.Common {
			from = []end{open[0]}
			base = open[0].rank + 1
		}
		chain := func(k diffnlr.Kind, rows []diffnlr.Row) end {
			if len(rows) == 0 {
				if len(from) == 1 {
					return end{node: from[0].node, side: k, rank: from[0].rank}
				}
				return end{node: -1}
			}
			prev := from
			var e end
			for j, r := range rows {
				id := rowNode(k, r)
				for _, f := range prev {
					// Heavy edges keep a chain together and right below
					// the stem node it leaves; the edge back to the stem
					// stretches when the other chain is longer.
					addEdge(f.node, id, slotOf(k), dot.A("color", edgeColorOf(k)), dot.A("weight", "8"))
				}
				e = end{node: id, side: k, rank: base + j}
				prev = []end{e}
				g.ranks = max(g.ranks, e.rank+1)
				if r.Last {
					marker(id, e.rank)
				}
			}
			return e
		}
		ne := chain(diffnlr.NormalOnly, normal)
		fe := chain(diffnlr.FaultyOnly, faulty)
		open = open[:0]
		if ne.node >= 0 {
			open = append(open, ne)
		}
		if fe.node >= 0 {
			open = append(open, fe)
		}
		if len(normal) > 0 && len(faulty) > 0 && len(from) == 1 {
			straight = from[0].node
		}
	}

	g.order = append(g.order, pending...)

	// Title, summary and legend as the graph's label, above the drawing.
	var lb strings.Builder
	lb.WriteString(`<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="2" CELLPADDING="2">`)
	fmt.Fprintf(&lb, `<TR><TD><FONT POINT-SIZE="17"><B>%s</B></FONT></TD></TR>`, dot.EscapeHTML(v.Title))
	fmt.Fprintf(&lb, `<TR><TD><FONT POINT-SIZE="10" COLOR=%q>%s</FONT></TD></TR>`, textNote, dot.EscapeHTML(v.Summary))
	for _, n := range p.Notes {
		var lines []string
		for _, l := range wrap(trace.Printable(n), 110) { // before wrapping: a \r is no space
			lines = append(lines, dot.EscapeHTML(l))
		}
		fmt.Fprintf(&lb, `<TR><TD><FONT POINT-SIZE="12"><B>%s</B></FONT></TD></TR>`, strings.Join(lines, "<BR/>"))
	}
	lb.WriteString(`<TR><TD><TABLE BORDER="0" CELLBORDER="0" CELLSPACING="2" CELLPADDING="1"><TR>`)
	for _, k := range []struct {
		kind diffnlr.Kind
		text string
	}{{diffnlr.Common, "in both runs"}, {diffnlr.NormalOnly, "only in " + v.Normal}, {diffnlr.FaultyOnly, "only in " + v.Faulty}} {
		fmt.Fprintf(&lb, `<TD BGCOLOR=%q COLOR=%q BORDER="1" STYLE="rounded" WIDTH="22" HEIGHT="14" FIXEDSIZE="TRUE"></TD><TD ALIGN="LEFT"><FONT POINT-SIZE="11">%s</FONT></TD>`,
			fillOf(k.kind), borderOf(k.kind), dot.EscapeHTML(k.text))
	}
	lb.WriteString(`</TR></TABLE></TD></TR>`)
	for _, l := range p.Legend {
		if r := []rune(l); len(r) > maxLegendLine {
			l = string(r[:maxLegendLine-1]) + "…"
		}
		var lines []string
		for _, w := range wrap(trace.Printable(l), 140) {
			lines = append(lines, dot.EscapeHTML(w))
		}
		fmt.Fprintf(&lb, `<TR><TD ALIGN="LEFT"><FONT POINT-SIZE="11">%s</FONT></TD></TR>`, strings.Join(lines, `<BR ALIGN="LEFT"/>`))
	}
	lb.WriteString(`</TABLE>`)

	g.attrs = []dot.Attr{
		dot.HTML("label", lb.String()),
		dot.A("labelloc", "t"),
		dot.A("labeljust", "c"),
		dot.A("fontname", fontName),
		dot.A("bgcolor", "white"),
		dot.A("pad", "0.3"),
		dot.A("nodesep", "0.3"),
		dot.A("ranksep", "0.28"),
		dot.A("ordering", "out"),
	}
	return g
}

// dot writes the graph as DOT source, with extra graph attributes.
func (g *graph) dot(extra []dot.Attr) []byte {
	d := dot.Digraph("diffNLR")
	d.Attrs(append(append([]dot.Attr(nil), g.attrs...), extra...)...)
	d.NodeDefaults(dot.A("shape", "box"), dot.A("style", "rounded,filled"), dot.A("fontname", fontName), dot.A("fontsize", "12"),
		dot.A("height", "0.32"), dot.A("margin", "0.16,0.05"), dot.A("penwidth", "1.3"))
	d.EdgeDefaults(dot.A("color", edgeStem), dot.A("arrowsize", "0.6"), dot.A("penwidth", "1.2"))
	for _, i := range g.order {
		d.Node(g.nodes[i].id, g.nodes[i].attrs...)
	}
	edges := append([]edge(nil), g.edges...)
	sort.SliceStable(edges, func(i, j int) bool {
		if edges[i].tail != edges[j].tail {
			return edges[i].tail < edges[j].tail
		}
		return edges[i].slot < edges[j].slot
	})
	for _, e := range edges {
		d.Edge(g.nodes[e.tail].id, g.nodes[e.head].id, e.attrs...)
	}
	return d.Bytes()
}

// wrap breaks s at spaces into lines of at most width runes where it can,
// so that a long note does not widen the picture.
func wrap(s string, width int) []string {
	var lines []string
	var cur []string
	n := 0
	for _, w := range strings.Fields(s) {
		l := utf8.RuneCountInString(w)
		if n > 0 && n+1+l > width {
			lines = append(lines, strings.Join(cur, " "))
			cur, n = nil, 0
		}
		if n > 0 {
			n++
		}
		cur = append(cur, w)
		n += l
	}
	if len(cur) > 0 {
		lines = append(lines, strings.Join(cur, " "))
	}
	return lines
}

// maxLegendLine bounds a loop's definition in a picture (the text has it
// whole): a time step's body can run to thousands of characters.
const maxLegendLine = 420
