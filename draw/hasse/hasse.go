// Package hasse draws a concept lattice (package fca) as a Hasse diagram
// like seeds/002 Fig. 3.3, with Graphviz: DOT source written with
// draw/dot, SVG and PNG laid out by package draw.
package hasse

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/draw"
	"github.com/difftrace/difftrace/draw/dot"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/trace"
)

// MaxConcepts is the largest lattice Write draws: past a few hundred
// concepts a Hasse diagram is unreadable and slow to lay out.
const MaxConcepts = 400

// Label limits for one concept.
const (
	maxAttrLines = 10 // new attributes listed, then "… and N more"
	maxObjRuns   = 24 // runs of trace IDs listed
	objRunsLine  = 6  // runs per line
)

// DPI is the resolution of lattice PNGs: 2 pixels per point. A lattice too
// large for it at draw.MaxPixels is scaled down to fit.
const DPI = 144

// Write draws l, the lattice of c's classes (fca.BuildLattice), as a Hasse
// diagram: the top (all traces, the shared attributes) at the top, each
// concept labelled with the attributes that appear first there (blue, its
// reduced intent) and the traces whose attribute set it is (yellow, its
// reduced extent). Concepts with neither are dots. DOT is the Graphviz
// source; SVG and PNG are laid out and drawn by Graphviz (go-graphviz,
// through package draw).
func Write(w io.Writer, f draw.Format, c *fca.Context, l *fca.Lattice) error {
	if l.Objects() != c.NumClasses() {
		return fmt.Errorf("lattice picture: the lattice has %d objects but the context has %d classes; build it with BuildLattice", l.Objects(), c.NumClasses())
	}
	if l.Len() > MaxConcepts {
		return fmt.Errorf("lattice picture: %d concepts, more than the %d a readable diagram can hold; use a coarser attribute mode (noFreq or log10) or a narrower filter", l.Len(), MaxConcepts)
	}
	switch f {
	case draw.DOT:
		_, err := w.Write(DOT(c, l).Bytes())
		return err
	case draw.SVG, draw.PNG:
	default:
		return fmt.Errorf("lattice picture: format %q; want dot, svg or png", f)
	}
	var extra []dot.Attr
	if f == draw.PNG {
		extra = append(extra, dot.A("dpi", strconv.Itoa(DPI)))
	}
	pic, err := draw.Render(context.Background(), DOT(c, l, extra...).Bytes(), f)
	if err != nil {
		return fmt.Errorf("lattice picture: %w", err)
	}
	_, err = w.Write(pic)
	return err
}

// DOT returns the Graphviz graph of the diagram, with extra graph
// attributes (dpi, say). Concepts are listed from
// the top down (by intent size, then age), so the source is the same for
// the same lattice.
func DOT(c *fca.Context, l *fca.Lattice, extra ...dot.Attr) *dot.Graph {
	order := make([]int, l.Len())
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return l.IntentLen(a) - l.IntentLen(b) })

	g := dot.Digraph("lattice")
	g.Attrs(append([]dot.Attr{
		dot.HTML("label", dot.EscapeHTML(fmt.Sprintf("Concept lattice (%s): %d traces in %d classes, %d attributes, %d concepts",
			c.Mode(), c.Len(), c.NumClasses(), c.NumAttrs(), l.Len()))+
			`<BR/><FONT POINT-SIZE="10">`+
			dot.EscapeHTML("blue: attributes that first appear at a concept (read down: every concept below has them) · yellow: the traces it stands for (read up: they have every attribute above)")+
			"</FONT>"),
		dot.A("labelloc", "t"), dot.A("fontname", "Helvetica"), dot.A("fontsize", "13"), dot.A("nodesep", "0.3"),
		dot.A("ranksep", "0.45"), dot.A("pad", "0.25"), dot.A("bgcolor", "#ffffff")}, extra...)...)
	g.NodeDefaults(dot.A("shape", "plaintext"), dot.A("fontname", "Helvetica"), dot.A("fontsize", "10"),
		dot.A("margin", "0"), dot.A("width", "0"), dot.A("height", "0"))
	g.EdgeDefaults(dot.A("dir", "none"), dot.A("color", "#555555"), dot.A("penwidth", "1.2"))
	id := func(k int) string { return "c" + strconv.Itoa(k) }
	for _, k := range order {
		attrs := l.ReducedIntent(k)
		var traces []trace.ID
		for _, cls := range l.ReducedExtent(k) {
			for _, o := range c.Members(cls) {
				traces = append(traces, c.ID(o))
			}
		}
		tooltip := dot.A("tooltip", fmt.Sprintf("%d traces, %d attributes", extentTraces(c, l, k), l.IntentLen(k)))
		if len(attrs) == 0 && len(traces) == 0 {
			g.Node(id(k), dot.A("shape", "point"), dot.A("width", "0.12"), dot.A("color", "#555555"), tooltip)
			continue
		}
		var b strings.Builder
		b.WriteString(`<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0" CELLPADDING="3" COLOR="#555555">`)
		if len(attrs) > 0 {
			var lines []string
			for i, a := range attrs {
				if i == maxAttrLines && len(attrs) > maxAttrLines+1 {
					lines = append(lines, fmt.Sprintf("<I>… and %d more</I>", len(attrs)-i))
					break
				}
				lines = append(lines, dot.EscapeHTML(c.AttrName(a)))
			}
			fmt.Fprintf(&b, `<TR><TD BGCOLOR="#d6e6f7" ALIGN="LEFT" BALIGN="LEFT">%s</TD></TR>`, strings.Join(lines, "<BR/>"))
		}
		if len(traces) > 0 {
			fmt.Fprintf(&b, `<TR><TD BGCOLOR="#fff0c2" BALIGN="LEFT">%s</TD></TR>`, traceList(traces))
		}
		b.WriteString("</TABLE>")
		g.Node(id(k), dot.HTML("label", b.String()), tooltip)
	}
	for _, k := range order {
		for _, ch := range l.Children(k) {
			g.Edge(id(k), id(ch))
		}
	}
	return g
}

// extentTraces counts the traces in concept k's extent.
func extentTraces(c *fca.Context, l *fca.Lattice, k int) int {
	n := 0
	for _, cls := range l.Extent(k) {
		n += len(c.Members(cls))
	}
	return n
}

// traceList formats trace IDs for a label: sorted, runs of consecutive
// processes (same thread) or threads (same process) shortened to "a–b",
// several runs per line, long lists cut with a count.
func traceList(ids []trace.ID) string {
	slices.SortFunc(ids, trace.ID.Compare)
	var runs []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && next(ids[j], ids[j+1]) {
			j++
		}
		switch {
		case j == i:
			runs = append(runs, ids[i].String())
		case j == i+1:
			runs = append(runs, ids[i].String(), ids[j].String())
		default:
			runs = append(runs, ids[i].String()+"–"+ids[j].String())
		}
		i = j + 1
	}
	more := 0
	if len(runs) > maxObjRuns {
		more = len(runs) - maxObjRuns
		runs = runs[:maxObjRuns]
	}
	var s strings.Builder
	for i, r := range runs {
		switch {
		case i == 0:
		case i%objRunsLine == 0:
			s.WriteString(",<BR/>")
		default:
			s.WriteString(", ")
		}
		s.WriteString(dot.EscapeHTML(r))
	}
	if more > 0 {
		fmt.Fprintf(&s, "<BR/><I>… (%d traces in all)</I>", len(ids))
	}
	return s.String()
}

// next reports whether b directly follows a: the next process with the same
// thread, or the next thread of the same process.
func next(a, b trace.ID) bool {
	return (a.Thread == b.Thread && b.Proc == a.Proc+1) || (a.Proc == b.Proc && a.Thread != trace.AllThreads && b.Thread == a.Thread+1)
}
