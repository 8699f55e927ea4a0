package cluster

import (
	"fmt"
	"math"
)

// FowlkesMallows returns the Fowlkes–Mallows index B_k of two flat clusterings
// of the same observations (Fowlkes & Mallows 1983), given as one label per
// observation; label values are arbitrary, only equality matters. With m_ij
// the number of observations in cluster i of a and cluster j of b, and n the
// number of observations,
//
//	T = Σ m_ij² − n,  P = Σ_i (Σ_j m_ij)² − n,  Q = Σ_j (Σ_i m_ij)² − n,
//	B = T / √(P·Q),
//
// that is, the pairs placed together by both clusterings over the geometric
// mean of the pairs each places together. B is 1 for identical clusterings
// and falls towards 0 as they disagree.
//
// When a denominator term is zero one clustering puts every observation in a
// cluster of its own and T is zero too. B is then defined as 1 when both
// clusterings are all singletons (they are identical; this includes n ≤ 1) and
// 0 when only one is (the other joins some pair that this one separates).
func FowlkesMallows(a, b []int) (float64, error) {
	if len(a) != len(b) {
		return 0, fmt.Errorf("cluster: clusterings label %d and %d observations; want the same observations", len(a), len(b))
	}
	n := int64(len(a))
	type pair struct{ x, y int }
	joint := make(map[pair]int64)
	ca := make(map[int]int64)
	cb := make(map[int]int64)
	for i := range a {
		joint[pair{a[i], b[i]}]++
		ca[a[i]]++
		cb[b[i]]++
	}
	var t, p, q int64
	for _, c := range joint {
		t += c * c
	}
	for _, c := range ca {
		p += c * c
	}
	for _, c := range cb {
		q += c * c
	}
	t, p, q = t-n, p-n, q-n
	switch {
	case p == 0 && q == 0:
		return 1, nil
	case p == 0 || q == 0:
		return 0, nil
	}
	return float64(t) / math.Sqrt(float64(p)*float64(q)), nil
}

// BScore cuts two dendrograms of the same observations into at most k
// clusters each (MaxClust) and returns the Fowlkes–Mallows index of the two
// cuts: how much of the clustering survived from one run to the other.
func BScore(a, b *Dendrogram, k int) (float64, error) {
	if a == nil || b == nil {
		return 0, fmt.Errorf("cluster: nil dendrogram")
	}
	if a.N != b.N {
		return 0, fmt.Errorf("cluster: dendrograms cluster %d and %d observations; want the same observations", a.N, b.N)
	}
	la, err := a.MaxClust(k)
	if err != nil {
		return 0, err
	}
	lb, err := b.MaxClust(k)
	if err != nil {
		return 0, err
	}
	return FowlkesMallows(la, lb)
}

// MaxClustClasses cuts a dendrogram of classes (LinkageWeighted) into at
// most k clusters and labels the observations: class[i] is observation i's
// class, and each observation gets its class's cluster, as MaxClust on a
// dendrogram of all the observations would give it (a class is never split:
// its observations merge at height 0, below any cut). k must be between 1
// and len(class); with k = len(class) every observation is alone.
func (dg *Dendrogram) MaxClustClasses(k int, class []int) ([]int, error) {
	n := len(class)
	if k < 1 || k > n {
		return nil, fmt.Errorf("cluster: %d clusters asked of %d observations; k must be between 1 and %d", k, n, n)
	}
	labels := make([]int, n)
	if k == n {
		for i := range labels {
			labels[i] = i + 1
		}
		return labels, nil
	}
	cl, err := dg.MaxClust(min(k, dg.N))
	if err != nil {
		return nil, err
	}
	for i, c := range class {
		if c < 0 || c >= dg.N {
			return nil, fmt.Errorf("cluster: observation %d is in class %d of %d", i, c, dg.N)
		}
		labels[i] = cl[c]
	}
	return labels, nil
}

// BScoreClasses is BScore for dendrograms of classes (LinkageWeighted):
// ca[i] and cb[i] are observation i's classes in a and in b.
func BScoreClasses(a, b *Dendrogram, ca, cb []int, k int) (float64, error) {
	if a == nil || b == nil {
		return 0, fmt.Errorf("cluster: nil dendrogram")
	}
	if len(ca) != len(cb) {
		return 0, fmt.Errorf("cluster: %d and %d observations; want the same observations", len(ca), len(cb))
	}
	la, err := a.MaxClustClasses(k, ca)
	if err != nil {
		return 0, err
	}
	lb, err := b.MaxClustClasses(k, cb)
	if err != nil {
		return 0, err
	}
	return FowlkesMallows(la, lb)
}
