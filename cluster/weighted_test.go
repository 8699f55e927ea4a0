package cluster

import (
	"math"
	"math/rand/v2"
	"testing"
)

// classesOf returns random classes of observations: m points in the plane
// (Euclidean distances, so that centroid and median stay real), each
// standing for 1 to 4 observations, and the observations' classes in a
// random order.
func classesOf(rng *rand.Rand, m int) (d []float64, w, class []int) {
	xs, ys := make([]float64, m), make([]float64, m)
	for i := range xs {
		xs[i], ys[i] = rng.Float64(), rng.Float64()
	}
	for i := range m {
		for j := i + 1; j < m; j++ {
			d = append(d, math.Hypot(xs[i]-xs[j], ys[i]-ys[j]))
		}
	}
	w = make([]int, m)
	for i := range w {
		w[i] = 1 + rng.IntN(4)
		for range w[i] {
			class = append(class, i)
		}
	}
	rng.Shuffle(len(class), func(a, b int) { class[a], class[b] = class[b], class[a] })
	return d, w, class
}

// expanded returns the condensed distances of the observations of classes
// d: 0 within a class, the classes' distance between them.
func expanded(d []float64, m int, class []int) []float64 {
	n := len(class)
	out := make([]float64, 0, n*(n-1)/2)
	for i := range n {
		for j := i + 1; j < n; j++ {
			if class[i] == class[j] {
				out = append(out, 0)
			} else {
				out = append(out, d[Index(m, class[i], class[j])])
			}
		}
	}
	return out
}

// samePartition reports whether two labellings group the observations
// alike, whatever the numbers.
func samePartition(a, b []int) bool {
	ab, ba := map[int]int{}, map[int]int{}
	for i := range a {
		if x, ok := ab[a[i]]; ok && x != b[i] {
			return false
		}
		if x, ok := ba[b[i]]; ok && x != a[i] {
			return false
		}
		ab[a[i]], ba[b[i]] = b[i], a[i]
	}
	return true
}

// TestLinkageWeightedEqualsPerObservation: clustering classes with weights
// gives, for every method, the flat clusters of every k and the B-scores
// that clustering all the observations gives, on random inputs.
func TestLinkageWeightedEqualsPerObservation(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 200 {
		m := 2 + rng.IntN(10)
		d, w, class := classesOf(rng, m)
		// The same observations in other classes: a second run.
		d2, w2, class2 := classesOf(rng, m)
		for len(class2) != len(class) {
			d2, w2, class2 = classesOf(rng, m)
		}
		n := len(class)
		for _, meth := range Methods() {
			all, err := Linkage(expanded(d, m, class), meth)
			if err != nil {
				t.Fatal(err)
			}
			cl, err := LinkageWeighted(d, w, meth)
			if err != nil {
				t.Fatal(err)
			}
			all2, err := Linkage(expanded(d2, m, class2), meth)
			if err != nil {
				t.Fatal(err)
			}
			cl2, err := LinkageWeighted(d2, w2, meth)
			if err != nil {
				t.Fatal(err)
			}
			for k := 1; k <= n; k++ {
				want, err := all.MaxClust(k)
				if err != nil {
					t.Fatal(err)
				}
				got, err := cl.MaxClustClasses(k, class)
				if err != nil {
					t.Fatal(err)
				}
				if !samePartition(got, want) {
					t.Fatalf("trial %d, %s, k = %d: classes give %v, all observations %v (classes %v, weights %v)", trial, meth, k, got, want, class, w)
				}
				bw, err := BScore(all, all2, k)
				if err != nil {
					t.Fatal(err)
				}
				bg, err := BScoreClasses(cl, cl2, class, class2, k)
				if err != nil {
					t.Fatal(err)
				}
				if bg != bw {
					t.Fatalf("trial %d, %s, k = %d: B-score %v from classes, %v from all observations", trial, meth, k, bg, bw)
				}
			}
		}
	}
}

// Weights must be one per class and at least 1.
func TestLinkageWeightedBadWeights(t *testing.T) {
	d := []float64{1, 2, 3}
	for _, w := range [][]int{{1, 1}, {1, 0, 2}, {1, 1, 1, 1}} {
		if _, err := LinkageWeighted(d, w, Average); err == nil {
			t.Errorf("weights %v for 3 classes: no error", w)
		}
	}
	if _, err := LinkageWeighted(d, []int{1, 1, 1}, Average); err != nil {
		t.Errorf("weights of 1: %v", err)
	}
}
