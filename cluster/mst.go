package cluster

import "math"

// mstSingle is single linkage by Prim's minimum spanning tree, as SciPy's
// mst_single_linkage: grow the tree from observation 0, each step adding the
// outside observation nearest to the tree (the first of equals in index
// order) and recording the edge from the observation added last. O(n²) time,
// O(n) memory besides d.
func mstSingle(d []float64, n int) []Merge {
	base := rowBases(n)
	merged := make([]bool, n)
	near := make([]float64, n) // distance of each outside observation to the tree
	for i := range near {
		near[i] = math.Inf(1)
	}
	ms := make([]Merge, n-1)
	x, y := 0, 0
	for k := 0; k < n-1; k++ {
		best := math.Inf(1)
		merged[x] = true
		for i := 0; i < n; i++ {
			if merged[i] {
				continue
			}
			var dist float64
			if i < x {
				dist = d[base[i]+x]
			} else {
				dist = d[base[x]+i]
			}
			if near[i] > dist {
				near[i] = dist
			}
			if near[i] < best {
				y, best = i, near[i]
			}
		}
		ms[k] = Merge{A: x, B: y, Height: best}
		x = y
	}
	sortAndLabel(ms, n)
	return ms
}
