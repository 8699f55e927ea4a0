package report

import (
	"errors"
	"fmt"
	"slices"

	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/trace"
)

// MaxConcepts is the largest lattice a page draws; a larger one is left
// out, saying so.
const MaxConcepts = 150

// maxConceptAttrs is how many new attributes a concept's box lists.
const maxConceptAttrs = 6

// Lattice is a run's concept lattice as a Hasse diagram (seeds/002
// Fig. 3.3): the top concept holds every trace; going down, each concept
// adds the attributes shown on it and is where the traces shown on it
// have exactly its attributes.
type Lattice struct {
	Title    string    `json:"title"`
	Concepts []Concept `json:"concepts"`
	Top      int       `json:"top"`
}

// Concept is one node of a Hasse diagram.
type Concept struct {
	// Attrs are the attributes that first appear here (its reduced
	// intent), at most maxConceptAttrs of them; MoreAttrs counts the rest.
	Attrs     []string `json:"attrs"`
	MoreAttrs int      `json:"more_attrs,omitempty"`
	// Traces are the traces whose attribute set this is (its reduced
	// extent), "" for none.
	Traces string `json:"traces"`
	// Extent counts every trace below it, Intent every attribute it has.
	Extent   int   `json:"extent"`
	Intent   int   `json:"intent"`
	Children []int `json:"children"`
}

// NewLattice builds the concept lattice of ctx's classes (fca.BuildLattice)
// for drawing. A lattice of more than MaxConcepts concepts is not built:
// the note says so.
func NewLattice(title string, ctx *fca.Context) (*Lattice, string, error) {
	l, err := fca.BuildLattice(ctx, fca.Limits{MaxConcepts: MaxConcepts})
	var le *fca.LimitError
	if errors.As(err, &le) {
		return nil, fmt.Sprintf("%s: more than %d concepts, too many to draw (try difftrace lattice with a coarser attribute mode)", title, MaxConcepts), nil
	}
	if err != nil {
		return nil, "", err
	}
	lat := &Lattice{Title: title, Top: l.Top()}
	for k := range l.Len() {
		c := Concept{Extent: 0, Intent: l.IntentLen(k), Children: l.Children(k)}
		for _, cls := range l.Extent(k) {
			c.Extent += len(ctx.Members(cls))
		}
		attrs := l.ReducedIntent(k)
		for i, a := range attrs {
			if i == maxConceptAttrs && len(attrs) > maxConceptAttrs+1 {
				c.MoreAttrs = len(attrs) - i
				break
			}
			c.Attrs = append(c.Attrs, trace.Printable(ctx.AttrName(a)))
		}
		var ids []trace.ID
		for _, cls := range l.ReducedExtent(k) {
			for _, o := range ctx.Members(cls) {
				ids = append(ids, ctx.ID(o))
			}
		}
		if len(ids) > 0 {
			slices.SortFunc(ids, trace.ID.Compare)
			c.Traces = trace.List(ids)
		}
		if c.Children == nil {
			c.Children = []int{}
		}
		lat.Concepts = append(lat.Concepts, c)
	}
	return lat, "", nil
}

// levels places each concept on a level: the longest path from the top.
func (l *Lattice) levels() []int {
	n := len(l.Concepts)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	// A child's intent is larger than its parent's: by intent size, every
	// parent comes before its children.
	slices.SortStableFunc(order, func(a, b int) int { return l.Concepts[a].Intent - l.Concepts[b].Intent })
	lv := make([]int, n)
	for _, k := range order {
		for _, ch := range l.Concepts[k].Children {
			lv[ch] = max(lv[ch], lv[k]+1)
		}
	}
	return lv
}
