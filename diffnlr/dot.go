package diffnlr

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/difftrace/difftrace/draw"
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

func fillOf(k Kind) string {
	switch k {
	case NormalOnly:
		return fillNormal
	case FaultyOnly:
		return fillFaulty
	}
	return fillCommon
}

func borderOf(k Kind) string {
	switch k {
	case NormalOnly:
		return borderNormal
	case FaultyOnly:
		return borderFaulty
	}
	return borderCommon
}

func edgeColorOf(k Kind) string {
	switch k {
	case NormalOnly:
		return borderNormal
	case FaultyOnly:
		return borderFaulty
	}
	return edgeStem
}

func groupOf(k Kind) string {
	switch k {
	case NormalOnly:
		return "normal"
	case FaultyOnly:
		return "faulty"
	}
	return "stem"
}

// dotGraph is the picture as nodes and edges, before it is written as DOT.
type dotGraph struct {
	attrs []string // graph attributes, "name=value"
	nodes []dotNode
	order []int // the order nodes are declared in, see graph
	edges []dotEdge
	ranks int // rows of the layout, for sizing raster output
	wide  int // widest node label, in characters
}

type dotNode struct {
	id    string
	attrs string
}

// dotEdge is an edge; slot orders the out-edges of a node left to right
// (the graph has ordering=out): 0 normal side, 1 stem, 2 faulty side.
type dotEdge struct {
	tail, head int
	slot       int
	attrs      string
}

// end is an open path that the next stem node continues: the node it ends
// at and the run it belongs to (Common for the stem itself).
type end struct {
	node int
	side Kind
	rank int
}

// graph lays the abridged diff out as a DOT graph: one box per element, the
// common elements on a straight stem (group "stem"), the normal-only chain
// of a change to its left and the faulty-only chain to its right (ordering
// of out-edges), both rejoining the stem at the next common element. When
// only one run has extra elements, the other run's path is a direct edge in
// its colour beside them. An invisible edge across a two-sided change keeps
// the stem straight. Sections follow one another down the stem, each under
// a dark heading box.
func (p *Picture) graph() *dotGraph {
	v := p.view()
	g := &dotGraph{}
	normalName, faultyName := p.names()

	// Graphviz keeps a node's out-edges in the order their heads were
	// declared, and ordering=out lays them out left to right in that order.
	// So a change's normal-only nodes are declared before the stem node it
	// rejoins, and its faulty-only nodes (and the end mark) after it: they
	// wait in pending until the next stem node is declared.
	counter := map[string]int{}
	var pending []int
	addNode := func(prefix string, attrs string, label string) int {
		id := fmt.Sprintf("%s%d", prefix, counter[prefix])
		counter[prefix]++
		g.nodes = append(g.nodes, dotNode{id: id, attrs: attrs})
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
	addEdge := func(tail, head, slot int, attrs string) {
		g.edges = append(g.edges, dotEdge{tail: tail, head: head, slot: slot, attrs: attrs})
	}
	slotOf := func(k Kind) int {
		switch k {
		case NormalOnly:
			return 0
		case FaultyOnly:
			return 2
		}
		return 1
	}

	// rowNode adds the box for one row of a part of kind k.
	rowNode := func(k Kind, r row) int {
		var label, attrs string
		switch {
		case r.hidden > 0:
			label = p.rowText(k, r)
			attrs = fmt.Sprintf(`label=%s, group=%q, style="rounded,dashed,filled", fillcolor=%q, color=%q, fontcolor=%q, fontsize="11"`,
				quote(label), groupOf(k), fillGap, borderOf(k), textGap)
		default:
			label = p.label(r.elem)
			attrs = fmt.Sprintf(`label=%s, group=%q, fillcolor=%q, color=%q`,
				quote(label), groupOf(k), fillOf(k), borderOf(k))
			if r.last {
				attrs += fmt.Sprintf(`, penwidth="2.6", color=%q, tooltip=%s`, colorEnd, quote(p.endText()))
			}
		}
		prefix := map[Kind]string{Common: "c", NormalOnly: "n", FaultyOnly: "f"}[k]
		return addNode(prefix, attrs, label)
	}

	var open []end
	straight := -1 // stem node before a two-sided change: keep the stem straight to the next one
	// stem adds a node on the stem and joins every open path to it.
	stem := func(id int) {
		rank := 0
		for _, e := range open {
			addEdge(e.node, id, slotOf(e.side), fmt.Sprintf(`color=%q`, edgeColorOf(e.side)))
			rank = max(rank, e.rank+1)
		}
		if straight >= 0 {
			addEdge(straight, id, 1, `style="invis"`)
			straight = -1
		}
		open = []end{{node: id, side: Common, rank: rank}}
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
			addEdge(e.node, id, slotOf(e.side), `style="invis"`)
			rank = max(rank, e.rank+1)
		}
		if straight >= 0 {
			addEdge(straight, id, 1, `style="invis"`)
			straight = -1
		}
		open = []end{{node: id, side: Common, rank: rank}}
		marks = nil
		g.ranks = max(g.ranks, rank+1)
		g.order = append(g.order, pending...)
		pending = nil
	}
	// marker hangs the "trace ends here" note below node id.
	marker := func(id, rank int) {
		m := addNode("end", fmt.Sprintf(`label=<<B>■ %s</B><BR/><FONT POINT-SIZE="10">%s</FONT>>, shape="plaintext", style="", fontcolor=%q, fontsize="12"`,
			html(p.endText()), html(p.Ended), colorEnd), p.endText())
		addEdge(id, m, 2, fmt.Sprintf(`style="dashed", color=%q, arrowhead="tee", arrowsize="0.9"`, colorEnd))
		g.ranks = max(g.ranks, rank+2)
		marks = append(marks, end{node: m, side: FaultyOnly, rank: rank + 1})
	}

	for i := 0; i < len(v.parts); i++ {
		pt := v.parts[i]
		if pt.head != "" {
			label := "<<B>" + html(pt.head) + "</B>"
			if pt.note != "" {
				label += `<BR/><FONT POINT-SIZE="10">` + html(pt.note) + "</FONT>"
			}
			label += ">"
			wide := pt.head
			if utf8.RuneCountInString(pt.note) > utf8.RuneCountInString(wide) {
				wide = pt.note
			}
			id := addNode("h", fmt.Sprintf(`label=%s, group="stem", style="filled", fillcolor=%q, color=%q, fontcolor="white", fontsize="13"`,
				label, fillHead, fillHead), wide)
			heading(id)
			continue
		}
		if pt.skip != nil {
			label := skipLines(pt.skip)
			id := addNode("skip", fmt.Sprintf(`label=%s, group="stem", style="rounded,dashed,filled", fillcolor=%q, color=%q, fontcolor=%q, fontsize="11"`,
				quote(label), fillSkip, borderSkip, textGap), label)
			stem(id)
			continue
		}
		if pt.kind == Common {
			for _, r := range pt.rows {
				id := rowNode(Common, r)
				stem(id)
				if r.last {
					marker(id, open[0].rank)
				}
			}
			continue
		}
		// A change: the normal-only part, the faulty-only part, or both.
		var normal, faulty []row
		for ; i < len(v.parts) && v.parts[i].skip == nil && v.parts[i].kind != Common; i++ {
			if v.parts[i].kind == NormalOnly {
				normal = append(normal, v.parts[i].rows...)
			} else {
				faulty = append(faulty, v.parts[i].rows...)
			}
		}
		i--
		var from []end
		base := 0
		if len(open) == 1 && open[0].side == Common {
			from = []end{open[0]}
			base = open[0].rank + 1
		}
		chain := func(k Kind, rows []row) end {
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
					addEdge(f.node, id, slotOf(k), fmt.Sprintf(`color=%q, weight="8"`, edgeColorOf(k)))
				}
				e = end{node: id, side: k, rank: base + j}
				prev = []end{e}
				g.ranks = max(g.ranks, e.rank+1)
				if r.last {
					marker(id, e.rank)
				}
			}
			return e
		}
		ne := chain(NormalOnly, normal)
		fe := chain(FaultyOnly, faulty)
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
	lb.WriteString(`<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="2" CELLPADDING="2">`)
	fmt.Fprintf(&lb, `<TR><TD><FONT POINT-SIZE="17"><B>%s</B></FONT></TD></TR>`, html(p.title()))
	summary := fmt.Sprintf("%s: %s %s · %s: %s %s · %s %s",
		normalName, thousands(v.normalLen), plural(v.normalLen, "element", "elements"),
		faultyName, thousands(v.faultyLen), plural(v.faultyLen, "element", "elements"),
		thousands(v.changes), plural(v.changes, "change", "changes"))
	if s := p.wholeEmptyText(&v); s != "" {
		summary += " · " + s
	}
	fmt.Fprintf(&lb, `<TR><TD><FONT POINT-SIZE="10" COLOR=%q>%s</FONT></TD></TR>`, textNote, html(summary))
	for _, n := range p.Notes {
		var lines []string
		for _, l := range wrap(trace.Printable(n), 110) { // before wrapping: a \r is no space
			lines = append(lines, html(l))
		}
		fmt.Fprintf(&lb, `<TR><TD><FONT POINT-SIZE="12"><B>%s</B></FONT></TD></TR>`, strings.Join(lines, "<BR/>"))
	}
	lb.WriteString(`<TR><TD><TABLE BORDER="0" CELLBORDER="0" CELLSPACING="2" CELLPADDING="1"><TR>`)
	for _, k := range []struct {
		kind Kind
		text string
	}{{Common, "in both runs"}, {NormalOnly, "only in " + normalName}, {FaultyOnly, "only in " + faultyName}} {
		fmt.Fprintf(&lb, `<TD BGCOLOR=%q COLOR=%q BORDER="1" STYLE="rounded" WIDTH="22" HEIGHT="14" FIXEDSIZE="TRUE"></TD><TD ALIGN="LEFT"><FONT POINT-SIZE="11">%s</FONT></TD>`,
			fillOf(k.kind), borderOf(k.kind), html(k.text))
	}
	lb.WriteString(`</TR></TABLE></TD></TR>`)
	for _, l := range p.Legend {
		if r := []rune(l); len(r) > maxLegendLine {
			l = string(r[:maxLegendLine-1]) + "…"
		}
		var lines []string
		for _, w := range wrap(trace.Printable(l), 140) {
			lines = append(lines, html(w))
		}
		fmt.Fprintf(&lb, `<TR><TD ALIGN="LEFT"><FONT POINT-SIZE="11">%s</FONT></TD></TR>`, strings.Join(lines, `<BR ALIGN="LEFT"/>`))
	}
	lb.WriteString(`</TABLE>>`)

	g.attrs = []string{
		fmt.Sprintf("label=%s", lb.String()),
		`labelloc="t"`,
		`labeljust="c"`,
		fmt.Sprintf("fontname=%q", fontName),
		`bgcolor="white"`,
		`pad="0.3"`,
		`nodesep="0.3"`,
		`ranksep="0.28"`,
		`ordering="out"`,
	}
	return g
}

// dot writes the graph as DOT source, with extra graph attributes.
func (g *dotGraph) dot(extra []string) []byte {
	var b bytes.Buffer
	b.WriteString("digraph diffNLR {\n")
	b.WriteString("\tgraph [")
	for i, a := range append(append([]string(nil), g.attrs...), extra...) {
		if i > 0 {
			b.WriteString(",\n\t\t")
		}
		b.WriteString(a)
	}
	b.WriteString("];\n")
	fmt.Fprintf(&b, "\tnode [shape=\"box\", style=\"rounded,filled\", fontname=%q, fontsize=\"12\", height=\"0.32\", margin=\"0.16,0.05\", penwidth=\"1.3\"];\n", fontName)
	fmt.Fprintf(&b, "\tedge [color=%q, arrowsize=\"0.6\", penwidth=\"1.2\"];\n", edgeStem)
	for _, i := range g.order {
		fmt.Fprintf(&b, "\t%s [%s];\n", g.nodes[i].id, g.nodes[i].attrs)
	}
	edges := append([]dotEdge(nil), g.edges...)
	sort.SliceStable(edges, func(i, j int) bool {
		if edges[i].tail != edges[j].tail {
			return edges[i].tail < edges[j].tail
		}
		return edges[i].slot < edges[j].slot
	})
	for _, e := range edges {
		fmt.Fprintf(&b, "\t%s -> %s [%s];\n", g.nodes[e.tail].id, g.nodes[e.head].id, e.attrs)
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// quote makes s a DOT double-quoted string whose label shows s literally
// (draw.Quote).
func quote(s string) string { return draw.Quote(s) }

// html escapes s for a Graphviz HTML-like label (draw.HTML).
func html(s string) string { return draw.HTML(s) }

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
