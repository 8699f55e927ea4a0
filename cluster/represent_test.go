package cluster

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRepresentatives: on points in the plane, the choice is the
// farthest-first one, every point is assigned to a nearest
// representative, and a representative to itself.
func TestRepresentatives(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for trial := range 50 {
		k := 1 + rng.IntN(200)
		xs, ys := make([]float64, k), make([]float64, k)
		w := make([]int, k)
		for i := range xs {
			xs[i], ys[i], w[i] = rng.Float64(), rng.Float64(), 1+rng.IntN(5)
		}
		dist := func(p, q int) float64 { return math.Hypot(xs[p]-xs[q], ys[p]-ys[q]) }
		l := 1 + rng.IntN(20)
		reps, of := Representatives(k, l, w, func(dst []float64, p int) []float64 {
			dst = dst[:0]
			for q := range k {
				dst = append(dst, dist(p, q))
			}
			return dst
		})
		if len(reps) != min(k, l) {
			t.Fatalf("trial %d: %d representatives of %d points, want %d", trial, len(reps), k, min(k, l))
		}
		for p := range k {
			best := math.Inf(1)
			for _, r := range reps {
				best = min(best, dist(p, r))
			}
			if dist(p, reps[of[p]]) != best {
				t.Fatalf("trial %d: point %d assigned to a representative at %v, the nearest is at %v", trial, p, dist(p, reps[of[p]]), best)
			}
		}
		for i, r := range reps {
			if of[r] != i {
				t.Fatalf("trial %d: representative %d assigned to %d", trial, r, of[r])
			}
		}
		// Farthest first: each new representative was the farthest point
		// from those before it.
		for i := 1; i < len(reps); i++ {
			far := 0.0
			for p := range k {
				near := math.Inf(1)
				for _, r := range reps[:i] {
					near = min(near, dist(p, r))
				}
				far = max(far, near)
			}
			near := math.Inf(1)
			for _, r := range reps[:i] {
				near = min(near, dist(reps[i], r))
			}
			if near != far {
				t.Fatalf("trial %d: representative %d is %v from the others, the farthest point %v", trial, i, near, far)
			}
		}
	}
}

// Points chosen first are representatives, in order, each standing for
// itself; the rest are chosen farthest first and every point goes to a
// nearest representative.
func TestRepresentativesFrom(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for trial := range 50 {
		k := 2 + rng.IntN(200)
		xs, ys := make([]float64, k), make([]float64, k)
		w := make([]int, k)
		for i := range xs {
			xs[i], ys[i], w[i] = rng.Float64(), rng.Float64(), 1+rng.IntN(5)
		}
		dist := func(p, q int) float64 { return math.Hypot(xs[p]-xs[q], ys[p]-ys[q]) }
		first := rng.Perm(k)[:1+rng.IntN(min(k, 5))]
		l := 1 + rng.IntN(20)
		reps, of := RepresentativesFrom(first, k, l, w, func(dst []float64, p int) []float64 {
			dst = dst[:0]
			for q := range k {
				dst = append(dst, dist(p, q))
			}
			return dst
		})
		n := min(len(first), l)
		if len(reps) < n || !slices.Equal(reps[:n], first[:n]) {
			t.Fatalf("trial %d: representatives %v do not start with %v", trial, reps, first[:n])
		}
		for i, r := range reps {
			if of[r] != i {
				t.Fatalf("trial %d: representative %d assigned to %d", trial, r, of[r])
			}
		}
		for p := range k {
			best := math.Inf(1)
			for _, r := range reps {
				best = min(best, dist(p, r))
			}
			if dist(p, reps[of[p]]) != best {
				t.Fatalf("trial %d: point %d assigned to a representative at %v, the nearest is at %v", trial, p, dist(p, reps[of[p]]), best)
			}
		}
	}
}
