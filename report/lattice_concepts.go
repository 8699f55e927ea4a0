package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/trace"
)

// Concepts is the result of "difftrace lattice" as text: a run's formal
// context as a cross table (seeds/002 Table 3.4) and the concepts of its
// lattice from the top down, each with its traces and attributes. (The
// Hasse diagram is drawn by hasse.Write (draw/hasse).)
type Concepts struct {
	Filter string `json:"filter"`
	K      int    `json:"k"`
	Attrs  string `json:"attrs"` // the attribute mode: "sing.noFreq"
	Level  string `json:"level"` // "thread" or "process"
	// Objects, Attributes and Classes count the context's traces (or
	// processes), attributes and distinct attribute sets.
	Objects    int `json:"objects"`
	Attributes int `json:"attributes"`
	Classes    int `json:"classes"`
	// Concepts are the lattice's concepts by ascending intent size (the
	// top first), then by number.
	Concepts []ConceptEntry `json:"concepts"`
	// Context is the formal context, written as a cross table; Lattice
	// its lattice, drawn as a Hasse diagram.
	Context *fca.Context `json:"-"`
	Lattice *fca.Lattice `json:"-"`
}

// ConceptEntry is one concept: the traces that have every attribute of it
// (its extent) and those attributes (its intent), named as the traces
// name them.
type ConceptEntry struct {
	Traces     []string `json:"traces"`
	Attributes []string `json:"attributes"`
	Top        bool     `json:"top,omitempty"`
	Bottom     bool     `json:"bottom,omitempty"`
}

// NewConcepts lists the concepts of lat, the lattice of ctx, computed
// under filter, K k, attribute mode m at level l.
func NewConcepts(ctx *fca.Context, lat *fca.Lattice, filter string, k int, m fca.Mode, l compare.Level) *Concepts {
	d := &Concepts{Filter: filter, K: k, Attrs: m.String(), Level: l.String(),
		Objects: ctx.Len(), Attributes: ctx.NumAttrs(), Classes: ctx.NumClasses(), Context: ctx, Lattice: lat}
	order := make([]int, lat.Len())
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return lat.IntentLen(a) - lat.IntentLen(b) })
	for _, k := range order {
		var ids []trace.ID
		for _, cl := range lat.Extent(k) {
			for _, o := range ctx.Members(cl) {
				ids = append(ids, ctx.ID(o))
			}
		}
		slices.SortFunc(ids, trace.ID.Compare)
		e := ConceptEntry{Traces: []string{}, Attributes: []string{}, Top: k == lat.Top(), Bottom: k == lat.Bottom()}
		for _, id := range ids {
			e.Traces = append(e.Traces, id.String())
		}
		for _, a := range lat.Intent(k) {
			e.Attributes = append(e.Attributes, ctx.AttrName(a))
		}
		d.Concepts = append(d.Concepts, e)
	}
	return d
}

func (*Concepts) defaultFormat() Format { return Text }
func (*Concepts) name() string          { return "the concepts" }

// writeText writes the view and the sizes, the cross table, and a line per
// concept: "{0.0, 1.0} × {MPI_Init, L0} (top)".
func (d *Concepts) writeText(out io.Writer, _ Options) error {
	fmt.Fprintf(out, "filter %s, K = %d, attributes %s, %s level: %d objects, %d attributes, %d classes, %d concepts\n\n",
		d.Filter, d.K, d.Attrs, d.Level, d.Objects, d.Attributes, d.Classes, len(d.Concepts))
	if err := d.Context.WriteTable(out); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nconcepts (top first):\n")
	for _, c := range d.Concepts {
		attrs := make([]string, len(c.Attributes))
		for i, a := range c.Attributes {
			attrs[i] = trace.Printable(a)
		}
		tag := ""
		switch {
		case c.Top:
			tag = " (top)"
		case c.Bottom:
			tag = " (bottom)"
		}
		fmt.Fprintf(out, "  {%s} × {%s}%s\n", strings.Join(c.Traces, ", "), strings.Join(attrs, ", "), tag)
	}
	return nil
}
