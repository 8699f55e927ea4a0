package cluster

import (
	"math"
	"slices"
)

// nnChain is the nearest-neighbour chain algorithm, as SciPy's nn_chain, for
// the reducible linkages (complete, average, weighted, ward): follow nearest
// neighbours from the lowest-numbered live cluster until two clusters are
// each other's nearest, merge them, and continue from what is left of the
// chain. The previous element of the chain wins ties, so the walk never
// cycles; otherwise the first nearest in index order wins. The merged
// cluster takes the higher of the two slots. O(n²) time, one copy of d.
//
// w, when not nil, are the observations' weights (LinkageWeighted).
func nnChain(d0 []float64, n int, m Method, w []int) []Merge {
	d := append([]float64(nil), d0...)
	base := rowBases(n)
	size := make([]int, n)
	for i := range size {
		size[i] = 1
		if w != nil {
			size[i] = w[i]
		}
	}
	live := newLiveSet(n)
	chain := make([]int, 0, n)
	ms := make([]Merge, n-1)
	for k := 0; k < n-1; k++ {
		if len(chain) == 0 {
			chain = append(chain, int(live.ids[0]))
		}
		var x, y int
		var best float64
		for {
			x = chain[len(chain)-1]
			if len(chain) > 1 {
				y = chain[len(chain)-2]
				best = d[pairAt(base, x, y)]
			} else {
				best = math.Inf(1)
			}
			p := live.search(x)
			for _, i := range live.ids[:p] {
				if v := d[base[i]+x]; v < best {
					best, y = v, int(i)
				}
			}
			bx := base[x]
			for _, i := range live.ids[p+1:] {
				if v := d[bx+int(i)]; v < best {
					best, y = v, int(i)
				}
			}
			if len(chain) > 1 && y == chain[len(chain)-2] {
				break
			}
			// In exact arithmetic a reducible linkage never leads the
			// chain back to a cluster already in it; with rounding (ward's
			// updates of equal distances differ in the last bit) it can,
			// and a cluster left twice in the chain would be merged twice.
			// Go back to that cluster and walk on from it.
			if p := slices.Index(chain, y); p >= 0 {
				chain = chain[:p+1]
				continue
			}
			chain = append(chain, y)
		}
		chain = chain[:len(chain)-2]
		if x > y {
			x, y = y, x
		}
		ms[k] = Merge{A: x, B: y, Height: best}
		m.merge(d, base, size, live, x, y, best)
	}
	sortAndLabel(ms, n)
	return ms
}
