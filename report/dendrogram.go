package report

import (
	"fmt"
	"slices"

	"github.com/difftrace/difftrace/cluster"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/trace"
)

// MaxLeaves bounds the leaves a dendrogram draws: a run with more classes
// (distinct attribute sets) is drawn on that many of them, chosen farthest
// first, each standing for the classes nearest to it.
const MaxLeaves = 128

// Dendrogram is one run's hierarchical clustering under one linkage, as
// cluster.LinkageWeighted builds it over the run's classes (traces with
// the same attributes), and its cut into flat clusters (the B-score's k).
type Dendrogram struct {
	Title   string  `json:"title"`   // "normal run, ward linkage"
	Linkage string  `json:"linkage"` // "ward"
	Leaves  []Leaf  `json:"leaves"`  // in class order: leaf i is cluster i of Merges
	Merges  []Merge `json:"merges"`  // SciPy's order: merge j forms cluster len(Leaves)+j
	// K is the number of flat clusters asked for (the row's k), Clusters
	// the number the cut gave (ties can give fewer), Cut the height drawn
	// between the last merge inside a cluster and the first between
	// clusters (-1: no cut to draw, every leaf alone or all in one).
	K        int     `json:"k"`
	Clusters int     `json:"clusters"`
	Cut      float64 `json:"cut"`
	Note     string  `json:"note,omitempty"`
}

// Leaf is a class of traces with the same attributes.
type Leaf struct {
	Traces  string `json:"traces"` // "[0-3,5]" or "0.[1-4]"
	Count   int    `json:"count"`
	Cluster int    `json:"cluster"` // flat cluster, from 1
}

// Merge is one merge of two clusters at a height; Cluster is the flat
// cluster it lies in, 0 for a merge above the cut.
type Merge struct {
	A       int     `json:"a"`
	B       int     `json:"b"`
	Height  float64 `json:"height"`
	Cluster int     `json:"cluster"`
}

// NewDendrogram clusters the classes of ctx, whose similarities are j,
// with linkage m, and cuts the dendrogram into at most k flat clusters, as
// the ranking's B-score does (cluster.LinkageWeighted,
// Dendrogram.MaxClustClasses). A context of more than MaxLeaves classes is
// clustered on MaxLeaves of them (fca.JSM.Leaves), and Note says
// so.
func NewDendrogram(title string, ctx *fca.Context, j *fca.JSM, m cluster.Method, k int) (Dendrogram, error) {
	dg := Dendrogram{Title: title, Linkage: m.String(), K: k, Cut: -1}
	nc := ctx.NumClasses()
	l := j.Leaves(MaxLeaves, nil)
	members := make([][]trace.ID, len(l.Classes)) // the traces each leaf stands for
	for p := range nc {
		for _, o := range ctx.Members(p) {
			members[l.Of[p]] = append(members[l.Of[p]], ctx.ID(o))
		}
	}
	classes, w, d := l.Classes, l.Weight, l.Dist
	n := len(classes)
	if nc > MaxLeaves {
		dg.Note = fmt.Sprintf("%s classes (distinct attribute sets) are too many to draw: the dendrogram clusters %d of them, chosen farthest first, each leaf standing for the classes nearest to it",
			thousands(nc), len(classes))
	}
	z, err := cluster.LinkageWeighted(d, w, m)
	if err != nil {
		return dg, err
	}
	for p := range n {
		slices.SortFunc(members[p], trace.ID.Compare)
		dg.Leaves = append(dg.Leaves, Leaf{Traces: trace.List(members[p]), Count: len(members[p])})
	}
	for _, mg := range z.Merges {
		dg.Merges = append(dg.Merges, Merge{A: mg.A, B: mg.B, Height: mg.Height})
	}
	if n == 0 {
		return dg, nil
	}
	labels := make([]int, n)
	for p := range labels {
		labels[p] = 1
	}
	if k > 0 && n > 1 {
		if labels, err = z.MaxClust(min(k, n)); err != nil {
			return dg, err
		}
	}
	for p := range n {
		dg.Leaves[p].Cluster = labels[p]
		dg.Clusters = max(dg.Clusters, labels[p])
	}
	// A merge lies in a cluster when every leaf below it does.
	of := make([]int, n+len(z.Merges)) // cluster of each node, 0 when mixed
	copy(of, labels)
	inside, across := -1.0, -1.0
	for i, mg := range z.Merges {
		c := 0
		if of[mg.A] != 0 && of[mg.A] == of[mg.B] {
			c = of[mg.A]
			inside = max(inside, mg.Height)
		} else if across < 0 || mg.Height < across {
			across = mg.Height
		}
		of[n+i] = c
		dg.Merges[i].Cluster = c
	}
	if across >= 0 && dg.Clusters > 1 {
		dg.Cut = max(inside, 0)
		dg.Cut = (dg.Cut + across) / 2
	}
	return dg, nil
}

// Order returns the leaves in the order the dendrogram draws them: a
// depth-first walk from the root, first child A, then B.
func (dg *Dendrogram) Order() []int {
	n := len(dg.Leaves)
	if n == 0 {
		return nil
	}
	if len(dg.Merges) == 0 {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	var out []int
	stack := []int{n + len(dg.Merges) - 1}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x < n {
			out = append(out, x)
			continue
		}
		mg := dg.Merges[x-n]
		stack = append(stack, mg.B, mg.A)
	}
	return out
}
