package cluster

import "math"

// mstSingle is single linkage by Prim's minimum spanning tree, as SciPy's
// mst_single_linkage: grow the tree from observation 0, each step adding the
// outside observation nearest to the tree (the first of equals in index
// order) and recording the edge from the observation added last. O(n²) time,
// O(n) memory besides d.
func mstSingle(d []float64, n int) []Merge {
	base := rowBases(n)
	out := newLiveSet(n)       // the observations outside the tree, in order
	near := make([]float64, n) // distance of each outside observation to the tree
	for i := range near {
		near[i] = math.Inf(1)
	}
	ms := make([]Merge, n-1)
	x, y := 0, 0
	for k := 0; k < n-1; k++ {
		best := math.Inf(1)
		out.remove(x)
		p := out.search(x)
		for _, i := range out.ids[:p] {
			if dist := d[base[i]+x]; near[i] > dist {
				near[i] = dist
			}
			if near[i] < best {
				y, best = int(i), near[i]
			}
		}
		bx := base[x]
		for _, i := range out.ids[p:] {
			if dist := d[bx+int(i)]; near[i] > dist {
				near[i] = dist
			}
			if near[i] < best {
				y, best = int(i), near[i]
			}
		}
		ms[k] = Merge{A: x, B: y, Height: best}
		x = y
	}
	sortAndLabel(ms, n)
	return ms
}
