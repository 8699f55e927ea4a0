package parlot

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCopyRunSameAsSlow: copyRun, which copies a match that overlaps
// itself as repeating values, leaves exactly the values, history, hash
// table, hash and positions that copying it value by value leaves, for
// matches of every distance and length around the point where it switches.
func TestCopyRunSameAsSlow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 3000 {
		var a Reader
		for i := range a.hist {
			a.hist[i] = uint16(rng.IntN(8)) // few values: hashes collide often
		}
		for i := range a.last {
			a.last[i] = uint16(rng.IntN(65536))
		}
		a.pos = uint16(rng.IntN(65536))
		d := 1 + rng.IntN(400)
		if trial%10 == 0 {
			d = 1 + rng.IntN(65535)
		}
		a.cand = a.pos - uint16(d)
		a.hash = uint16(rng.IntN(4096))
		k := 2*d + minPeriodic + rng.IntN(3*d+100) - 50
		if k < 1 {
			k = 1
		}
		b := a
		outA, outB := make([]uint16, k), make([]uint16, k)
		a.copyRun(outA)
		b.copySlow(outB)
		if !slices.Equal(outA, outB) || a.hist != b.hist || a.last != b.last || a.hash != b.hash || a.pos != b.pos || a.cand != b.cand {
			t.Fatalf("trial %d (distance %d, length %d): copyRun and copySlow differ", trial, d, k)
		}
	}
}
