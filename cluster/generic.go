package cluster

import (
	"fmt"
	"math"
)

// generic is Müllner's generic clustering algorithm, as SciPy's fast_linkage,
// used for the linkages that are not reducible (centroid, median). Each live
// cluster x keeps a candidate nearest neighbour among the clusters above it
// and a lower bound of that distance in a binary heap. The heap minimum is
// checked against the current distance; a stale candidate is recomputed and
// pushed back. When x merges with its neighbour y > x, the new cluster takes
// slot y and the next free id. Merges come out in order, already labelled;
// heights need not increase. O(n²) time in practice, O(n³) at worst.
//
// w, when not nil, are the observations' weights (LinkageWeighted).
func generic(d0 []float64, n int, m Method, w []int) ([]Merge, error) {
	d := append([]float64(nil), d0...)
	base := rowBases(n)
	size := make([]int, n)
	leaves := make([]int, n) // observations under each cluster, unweighted
	id := make([]int, n)
	for i := range size {
		size[i], leaves[i] = 1, 1
		if w != nil {
			size[i] = w[i]
		}
		id[i] = i
	}
	live := newLiveSet(n)
	// nearest returns the nearest live cluster above x (the first of equals),
	// or -1 when no distance is below +Inf (a NaN update).
	nearest := func(x int) (int, float64) {
		best, y := math.Inf(1), -1
		bx := base[x]
		for _, i := range live.ids[live.search(x+1):] {
			if v := d[bx+int(i)]; v < best {
				best, y = v, int(i)
			}
		}
		return y, best
	}
	neighbor := make([]int, n-1)
	bound := make([]float64, n-1)
	for x := 0; x < n-1; x++ {
		neighbor[x], bound[x] = nearest(x)
	}
	h := newHeap(bound)
	ms := make([]Merge, n-1)
	for k := 0; k < n-1; k++ {
		var x, y int
		var dist float64
		for i := 0; i < n-k; i++ {
			x, dist = h.min()
			y = neighbor[x]
			if y >= 0 && dist == d[pairAt(base, x, y)] {
				break
			}
			y, dist = nearest(x)
			neighbor[x] = y
			h.change(x, dist)
		}
		if y < 0 {
			return nil, fmt.Errorf("cluster: %s linkage found no finite distance at merge %d of %d "+
				"(its update went negative under a square root: the distances are far from Euclidean)", m, k, n-1)
		}
		h.removeMin()
		a, b := id[x], id[y]
		if a > b {
			a, b = b, a
		}
		ms[k] = Merge{A: a, B: b, Height: dist, Size: leaves[x] + leaves[y]}
		leaves[y] += leaves[x]
		id[y] = n + k
		m.merge(d, base, size, live, x, y, dist)
		// Clusters below x whose candidate was x now point at the merged
		// cluster: a guess, checked when they reach the top of the heap.
		below := live.ids[:live.search(y)]
		for _, z := range below[:live.search(x)] {
			if neighbor[z] == x {
				neighbor[z] = y
			}
		}
		// The merged cluster may be nearer than the bounds of those below it.
		for _, z := range below {
			if v := d[base[z]+y]; v < h.value(int(z)) {
				neighbor[z] = y
				h.change(int(z), v)
			}
		}
		if y < n-1 {
			if z, v := nearest(y); z != -1 {
				neighbor[y] = z
				h.change(y, v)
			}
		}
	}
	return ms, nil
}

// heap is a binary min-heap of the values of keys 0…m−1 with changeable
// values, laid out and sifted exactly as SciPy's Heap so that equal values
// surface in the same order.
type heap struct {
	keyAt  []int // key at each heap position
	posOf  []int // heap position of each key
	values []float64
	size   int
}

func newHeap(v []float64) *heap {
	h := &heap{keyAt: make([]int, len(v)), posOf: make([]int, len(v)), values: v, size: len(v)}
	for i := range v {
		h.keyAt[i], h.posOf[i] = i, i
	}
	for i := h.size/2 - 1; i >= 0; i-- {
		h.down(i)
	}
	return h
}

func (h *heap) min() (int, float64) { return h.keyAt[0], h.values[0] }

func (h *heap) value(key int) float64 { return h.values[h.posOf[key]] }

func (h *heap) removeMin() {
	h.swap(0, h.size-1)
	h.size--
	h.down(0)
}

func (h *heap) change(key int, v float64) {
	i := h.posOf[key]
	old := h.values[i]
	h.values[i] = v
	if v < old {
		h.up(i)
	} else {
		h.down(i)
	}
}

func (h *heap) up(i int) {
	for i > 0 {
		p := (i - 1) >> 1
		if !(h.values[p] > h.values[i]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *heap) down(i int) {
	for c := 2*i + 1; c < h.size; c = 2*i + 1 {
		if c+1 < h.size && h.values[c+1] < h.values[c] {
			c++
		}
		if !(h.values[i] > h.values[c]) {
			return
		}
		h.swap(i, c)
		i = c
	}
}

func (h *heap) swap(i, j int) {
	h.values[i], h.values[j] = h.values[j], h.values[i]
	ki, kj := h.keyAt[i], h.keyAt[j]
	h.keyAt[i], h.keyAt[j] = kj, ki
	h.posOf[ki], h.posOf[kj] = j, i
}
