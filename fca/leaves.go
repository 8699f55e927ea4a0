package fca

import "github.com/difftrace/difftrace/cluster"

// Leaves are a JSM's classes as the leaves of a clustering: every class,
// or, with more classes than a clustering can take, as many
// representatives, each standing for the classes nearest to it.
type Leaves struct {
	Classes []int     // the class each leaf is
	Of      []int     // each class's leaf
	Weight  []int     // the objects each leaf stands for
	Dist    []float64 // 1 − JSM between the leaves, condensed (cluster.Linkage's layout)
}

// Leaves returns j's classes as at most most leaves: all of them when
// there are no more, else most representatives chosen farthest first
// (cluster.RepresentativesFrom), the classes first before any other. Each
// leaf weighs the objects of the classes it stands for.
func (j *JSM) Leaves(most int, first []int) *Leaves {
	k := j.k
	w := make([]int, k)
	for _, p := range j.class {
		w[p]++
	}
	all := make([]int, k)
	for p := range all {
		all[p] = p
	}
	l := &Leaves{Classes: all, Of: all, Weight: w}
	if k > most {
		cols := j.Columns(all)
		l.Classes, l.Of = cluster.RepresentativesFrom(first, k, most, w, func(dst []float64, p int) []float64 {
			dst = cols.Row(dst, p)
			for q, s := range dst {
				dst[q] = 1 - s
			}
			return dst
		})
		l.Weight = make([]int, len(l.Classes))
		for p, x := range l.Of {
			l.Weight[x] += w[p]
		}
	}
	n := len(l.Classes)
	l.Dist = make([]float64, 0, n*(n-1)/2)
	for a := range n {
		for b := a + 1; b < n; b++ {
			l.Dist = append(l.Dist, 1-j.ClassAt(l.Classes[a], l.Classes[b]))
		}
	}
	return l
}
