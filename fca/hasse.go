package fca

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/draw"
	"github.com/difftrace/difftrace/trace"
)

// MaxDrawnConcepts is the largest lattice WriteLattice draws: past a few
// hundred concepts a Hasse diagram is unreadable and slow to lay out.
const MaxDrawnConcepts = 400

// Label limits for one concept.
const (
	maxAttrLines = 10 // new attributes listed, then "… and N more"
	maxObjRuns   = 24 // runs of trace IDs listed
	objRunsLine  = 6  // runs per line
)

// WriteLattice draws l, the lattice of c's classes (BuildLattice), as a
// Hasse diagram like seeds/002 Fig. 3.3: the top (all traces, the shared
// attributes) at the top, each concept labelled with the attributes that
// appear first there (blue, its reduced intent) and the traces whose
// attribute set it is (yellow, its reduced extent). Concepts with neither
// are dots. DOT is the Graphviz source; SVG and PNG are laid out and drawn
// by Graphviz (go-graphviz, through package draw).
func WriteLattice(w io.Writer, f draw.Format, c *Context, l *Lattice) error {
	if l.Objects() != c.NumClasses() {
		return fmt.Errorf("lattice picture: the lattice has %d objects but the context has %d classes; build it with BuildLattice", l.Objects(), c.NumClasses())
	}
	if l.Len() > MaxDrawnConcepts {
		return fmt.Errorf("lattice picture: %d concepts, more than the %d a readable diagram can hold; use a coarser attribute mode (noFreq or log10) or a narrower filter", l.Len(), MaxDrawnConcepts)
	}
	var dot bytes.Buffer
	switch f {
	case draw.DOT:
		writeLatticeDOT(&dot, c, l, "")
		_, err := w.Write(dot.Bytes())
		return err
	case draw.SVG:
		writeLatticeDOT(&dot, c, l, "")
	case draw.PNG:
		writeLatticeDOT(&dot, c, l, fmt.Sprintf(", dpi=%d", latticeDPI))
	default:
		return fmt.Errorf("lattice picture: format %q; want dot, svg or png", f)
	}
	pic, err := draw.Render(context.Background(), dot.Bytes(), draw.Format(f))
	if err != nil {
		return fmt.Errorf("lattice picture: %w", err)
	}
	_, err = w.Write(pic)
	return err
}

// latticeDPI is the resolution of lattice PNGs: 2 pixels per point. A
// lattice too large for it at draw.MaxPixels is scaled down to fit.
const latticeDPI = 144

// writeLatticeDOT writes the Graphviz source of the diagram, with extra
// graph attributes (", name=value…"). Concepts are listed from the top down
// (by intent size, then age), so the source is the same for the same
// lattice.
func writeLatticeDOT(b *bytes.Buffer, c *Context, l *Lattice, extra string) {
	order := make([]int, l.Len())
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return l.IntentLen(a) - l.IntentLen(b) })

	fmt.Fprintf(b, "digraph lattice {\n")
	fmt.Fprintf(b, "\tgraph [label=<%s<BR/><FONT POINT-SIZE=\"10\">%s</FONT>>, labelloc=t, fontname=\"Helvetica\", fontsize=13, nodesep=0.3, ranksep=0.45, pad=0.25, bgcolor=\"#ffffff\"%s];\n",
		draw.HTML(fmt.Sprintf("Concept lattice (%s): %d traces in %d classes, %d attributes, %d concepts",
			c.Mode(), c.Len(), c.NumClasses(), c.NumAttrs(), l.Len())),
		"blue: attributes that first appear at a concept (read down: every concept below has them) · yellow: the traces it stands for (read up: they have every attribute above)", extra)
	fmt.Fprintf(b, "\tnode [shape=plaintext, fontname=\"Helvetica\", fontsize=10, margin=0, width=0, height=0];\n")
	fmt.Fprintf(b, "\tedge [dir=none, color=\"#555555\", penwidth=1.2];\n")
	for _, k := range order {
		attrs := l.ReducedIntent(k)
		var traces []trace.ID
		for _, cls := range l.ReducedExtent(k) {
			for _, o := range c.Members(cls) {
				traces = append(traces, c.ID(o))
			}
		}
		if len(attrs) == 0 && len(traces) == 0 {
			fmt.Fprintf(b, "\tc%d [shape=point, width=0.12, color=\"#555555\", tooltip=%s];\n", k,
				draw.Quote(fmt.Sprintf("%d traces, %d attributes", extentTraces(c, l, k), l.IntentLen(k))))
			continue
		}
		fmt.Fprintf(b, "\tc%d [label=<<TABLE BORDER=\"1\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"3\" COLOR=\"#555555\">", k)
		if len(attrs) > 0 {
			var lines []string
			for i, a := range attrs {
				if i == maxAttrLines && len(attrs) > maxAttrLines+1 {
					lines = append(lines, fmt.Sprintf("<I>… and %d more</I>", len(attrs)-i))
					break
				}
				lines = append(lines, draw.HTML(c.AttrName(a)))
			}
			fmt.Fprintf(b, "<TR><TD BGCOLOR=\"#d6e6f7\" ALIGN=\"LEFT\" BALIGN=\"LEFT\">%s</TD></TR>", strings.Join(lines, "<BR/>"))
		}
		if len(traces) > 0 {
			fmt.Fprintf(b, "<TR><TD BGCOLOR=\"#fff0c2\" BALIGN=\"LEFT\">%s</TD></TR>", traceList(traces))
		}
		fmt.Fprintf(b, "</TABLE>>, tooltip=%s];\n",
			draw.Quote(fmt.Sprintf("%d traces, %d attributes", extentTraces(c, l, k), l.IntentLen(k))))
	}
	for _, k := range order {
		for _, ch := range l.Children(k) {
			fmt.Fprintf(b, "\tc%d -> c%d;\n", k, ch)
		}
	}
	fmt.Fprintf(b, "}\n")
}

// extentTraces counts the traces in concept k's extent.
func extentTraces(c *Context, l *Lattice, k int) int {
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
		s.WriteString(draw.HTML(r))
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
