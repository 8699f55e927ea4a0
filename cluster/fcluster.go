package cluster

import (
	"fmt"
	"math"
)

// MaxClust cuts the dendrogram into at most k flat clusters, as SciPy's
// fcluster(Z, k, criterion="maxclust"), and returns the cluster label
// (1, 2, …) of each observation.
//
// The cut is at a height threshold t: every subtree whose highest merge is at
// most t becomes one cluster. t is the smallest merge height found by a
// binary search over the merges that leaves no more than k clusters. Merges
// at equal heights are cut together, so ties can leave fewer than k clusters.
// Labels are numbered in the order a depth-first walk from the root (first
// child A, then B) meets the clusters. For k ≥ N every observation is its own
// cluster, labelled i+1.
//
// SciPy 1.10 started that binary search one merge too high
// (scipy/scipy#12651), which loses clusters when k ≥ N−1; MaxClust follows
// the search as corrected by scipy/scipy#21121. k must be between 1 and N.
func (dg *Dendrogram) MaxClust(k int) ([]int, error) {
	if err := dg.Validate(); err != nil {
		return nil, err
	}
	n := dg.N
	if k < 1 || k > n {
		return nil, fmt.Errorf("cluster: %d clusters asked of %d observations; k must be between 1 and %d", k, n, n)
	}
	labels := make([]int, n)
	if k >= n {
		for i := range labels {
			labels[i] = i + 1
		}
		return labels, nil
	}
	mc := dg.maxHeights()
	w := newWalker(dg)
	lower, upper := -1, n-1
	for upper-lower > 1 {
		i := (lower + upper) >> 1
		if w.countAbove(mc, mc[i], k) {
			lower = i
		} else {
			upper = i
		}
	}
	cut := math.Inf(1) // only when NaN heights defeat every threshold
	if upper < n-1 {
		cut = mc[upper]
	}
	w.label(mc, cut, labels)
	return labels, nil
}

// maxHeights returns, for each merge, the greatest height in its subtree:
// a criterion that never decreases towards the root, even when the heights
// themselves do (centroid, median).
func (dg *Dendrogram) maxHeights() []float64 {
	n := dg.N
	mc := make([]float64, len(dg.Merges))
	for r, mg := range dg.Merges {
		h := mg.Height
		if mg.A >= n && mc[mg.A-n] > h {
			h = mc[mg.A-n]
		}
		if mg.B >= n && mc[mg.B-n] > h {
			h = mc[mg.B-n]
		}
		mc[r] = h
	}
	return mc
}

// walker walks a dendrogram depth first from the root without recursion.
type walker struct {
	dg      *Dendrogram
	stack   []int
	visited []bool
}

func newWalker(dg *Dendrogram) *walker {
	return &walker{dg: dg, stack: make([]int, dg.N), visited: make([]bool, 2*dg.N-1)}
}

// countAbove reports whether cutting at threshold t leaves more than k
// clusters (a subtree whose criterion is at most t is one cluster; every
// observation outside such subtrees is a cluster of its own).
func (w *walker) countAbove(mc []float64, t float64, k int) bool {
	n, ms := w.dg.N, w.dg.Merges
	clear(w.visited)
	nc, top := 0, 0
	w.stack[0] = 2*n - 2
	for top >= 0 {
		root := w.stack[top] - n
		lc, rc := ms[root].A, ms[root].B
		if mc[root] <= t {
			nc++
			if nc > k {
				return true
			}
			top--
			w.visited[lc], w.visited[rc] = true, true
			continue
		}
		if !w.visited[lc] {
			w.visited[lc] = true
			if lc >= n {
				top++
				w.stack[top] = lc
				continue
			}
			nc++
			if nc > k {
				return true
			}
		}
		if !w.visited[rc] {
			w.visited[rc] = true
			if rc >= n {
				top++
				w.stack[top] = rc
				continue
			}
			nc++
			if nc > k {
				return true
			}
		}
		top--
	}
	return false
}

// label numbers the clusters of the cut at threshold t in depth-first order
// and writes each observation's label.
func (w *walker) label(mc []float64, t float64, labels []int) {
	n, ms := w.dg.N, w.dg.Merges
	clear(w.visited)
	nc, leader, top := 0, -1, 0
	w.stack[0] = 2*n - 2
	for top >= 0 {
		root := w.stack[top] - n
		lc, rc := ms[root].A, ms[root].B
		if leader == -1 && mc[root] <= t {
			leader = root
			nc++
		}
		if lc >= n && !w.visited[lc] {
			w.visited[lc] = true
			top++
			w.stack[top] = lc
			continue
		}
		if rc >= n && !w.visited[rc] {
			w.visited[rc] = true
			top++
			w.stack[top] = rc
			continue
		}
		if lc < n {
			if leader == -1 {
				nc++
			}
			labels[lc] = nc
		}
		if rc < n {
			if leader == -1 {
				nc++
			}
			labels[rc] = nc
		}
		if leader == root {
			leader = -1
		}
		top--
	}
}
