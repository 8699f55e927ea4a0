package cluster

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Merge is one row of a linkage matrix: clusters A < B joined at Height into
// a cluster of Size observations. Observations are clusters 0…n−1; the
// cluster formed by merge k is n+k.
type Merge struct {
	A, B   int
	Height float64
	Size   int
}

// Dendrogram is the result of hierarchical clustering of N observations: N−1
// merges in the order SciPy lists them (the rows of its linkage matrix Z).
type Dendrogram struct {
	N      int
	Method Method
	Merges []Merge
}

// Linkage clusters the observations whose pairwise distances are the
// condensed matrix d (see the package documentation) with method m, as
// scipy.cluster.hierarchy.linkage(d, m) does. d is not modified. It fails on
// a length that is not n(n−1)/2, on a NaN, infinite or negative distance, and
// on an unknown method. An empty d is one observation and no merges.
func Linkage(d []float64, m Method) (*Dendrogram, error) { return linkage(d, m, nil) }

// LinkageWeighted clusters classes of identical observations: d is the
// condensed matrix of the distances between the classes, and class i
// stands for w[i] ≥ 1 observations at distance 0 from one another. Every
// method merges identical observations first, at height 0, and the
// dendrogram above them is what LinkageWeighted returns: the same as
// Linkage's on all the observations, once its merges at height 0 within
// classes are left out (single, complete, average, weighted, centroid and
// median see a class as one observation at its distances, average and
// centroid weighing it by w; ward as a cluster of w observations, whose
// distance to another such cluster of v is sqrt(2wv/(w+v)) times theirs).
// So a run of 100,000 traces in a few hundred classes clusters in the time
// of a few hundred. Its leaves are the classes; Merge.Size counts classes.
func LinkageWeighted(d []float64, w []int, m Method) (*Dendrogram, error) {
	for i, x := range w {
		if x < 1 {
			return nil, fmt.Errorf("cluster: class %d has weight %d; a class holds one observation or more", i, x)
		}
	}
	if w == nil {
		w = []int{}
	}
	return linkage(d, m, w)
}

// linkage is Linkage when w is nil, and LinkageWeighted otherwise.
func linkage(d []float64, m Method, w []int) (*Dendrogram, error) {
	if err := m.valid(); err != nil {
		return nil, err
	}
	n, err := checkCondensed(d)
	if err != nil {
		return nil, err
	}
	if w != nil && len(w) != n {
		return nil, fmt.Errorf("cluster: %d weights for %d classes; give one weight per class", len(w), n)
	}
	if !slices.ContainsFunc(w, func(x int) bool { return x != 1 }) {
		w = nil // all ones: plain observations
	}
	dg := &Dendrogram{N: n, Method: m}
	if n < 2 {
		dg.Merges = []Merge{}
		return dg, nil
	}
	switch m {
	case Single:
		dg.Merges = mstSingle(d, n)
	case Complete, Average, Weighted, Ward:
		if m == Ward && w != nil {
			d = wardScaled(d, w)
		}
		dg.Merges = nnChain(d, n, m, w)
	default:
		dg.Merges, err = generic(d, n, m, w)
		if err != nil {
			return nil, err
		}
	}
	return dg, nil
}

// wardScaled returns the ward distances between clusters of identical
// observations of sizes w whose observations are d apart: what ward's
// update makes of them once each cluster is merged.
func wardScaled(d []float64, w []int) []float64 {
	out := make([]float64, len(d))
	k := 0
	for i := range w {
		for j := i + 1; j < len(w); j++ {
			a, b := float64(w[i]), float64(w[j])
			out[k] = math.Sqrt(2*a*b/(a+b)) * d[k]
			k++
		}
	}
	return out
}

// sortAndLabel turns merges recorded as pairs of representative observations
// (any member of each cluster) into a linkage matrix: stably sorted by height
// (NaN last, as NumPy sorts), then relabelled with the ids of the clusters
// those representatives belong to at that point, smaller id first.
func sortAndLabel(ms []Merge, n int) {
	sort.SliceStable(ms, func(i, j int) bool {
		a, b := ms[i].Height, ms[j].Height
		return a < b || (math.IsNaN(b) && !math.IsNaN(a))
	})
	uf := newUnionFind(n)
	for i := range ms {
		x, y := uf.find(ms[i].A), uf.find(ms[i].B)
		if x > y {
			x, y = y, x
		}
		ms[i].A, ms[i].B = x, y
		ms[i].Size = uf.merge(x, y)
	}
}

// unionFind tracks which cluster each observation belongs to while a sorted
// list of merges is relabelled; cluster n+k is created by the k-th merge.
type unionFind struct {
	parent []int
	size   []int
	next   int
}

func newUnionFind(n int) *unionFind {
	u := &unionFind{parent: make([]int, 2*n-1), size: make([]int, 2*n-1), next: n}
	for i := range u.parent {
		u.parent[i] = i
		u.size[i] = 1
	}
	return u
}

func (u *unionFind) merge(x, y int) int {
	u.parent[x] = u.next
	u.parent[y] = u.next
	s := u.size[x] + u.size[y]
	u.size[u.next] = s
	u.next++
	return s
}

func (u *unionFind) find(x int) int {
	root := x
	for u.parent[root] != root {
		root = u.parent[root]
	}
	for u.parent[x] != root { // path compression
		x, u.parent[x] = u.parent[x], root
	}
	return root
}

// Validate checks that dg is a well-formed dendrogram: N−1 merges, each
// joining two distinct clusters that exist and have not been merged yet,
// with sizes that add up. Dendrograms from Linkage always are.
func (dg *Dendrogram) Validate() error {
	if dg == nil {
		return fmt.Errorf("cluster: nil dendrogram")
	}
	n := dg.N
	if n < 1 {
		return fmt.Errorf("cluster: dendrogram has %d observations; want at least 1", n)
	}
	if len(dg.Merges) != n-1 {
		return fmt.Errorf("cluster: dendrogram of %d observations has %d merges; want %d", n, len(dg.Merges), n-1)
	}
	used := make([]bool, 2*n-1)
	size := func(c int) int {
		if c < n {
			return 1
		}
		return dg.Merges[c-n].Size
	}
	for k, mg := range dg.Merges {
		for _, c := range [2]int{mg.A, mg.B} {
			if c < 0 || c >= n+k {
				return fmt.Errorf("cluster: merge %d joins cluster %d, which does not exist yet (valid: 0 to %d)", k, c, n+k-1)
			}
			if used[c] {
				return fmt.Errorf("cluster: merge %d joins cluster %d, which an earlier merge already used", k, c)
			}
		}
		if mg.A == mg.B {
			return fmt.Errorf("cluster: merge %d joins cluster %d with itself", k, mg.A)
		}
		used[mg.A], used[mg.B] = true, true
		if want := size(mg.A) + size(mg.B); mg.Size != want {
			return fmt.Errorf("cluster: merge %d has size %d; its clusters hold %d observations", k, mg.Size, want)
		}
		if mg.Height < 0 {
			return fmt.Errorf("cluster: merge %d has negative height %v", k, mg.Height)
		}
	}
	return nil
}
