package nlr

import (
	"math/rand/v2"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

// Fold, which opens the traces a batch at a time and splices each as it
// comes, gives the NLRs and table of folding them all at once
// (foldReference), whatever the batches, the order of the traces and the
// number of workers.
func TestFoldSameAsReference(t *testing.T) {
	defer func(old int) { foldPerWorker = old }(foldPerWorker)
	rng := rand.New(rand.NewPCG(5, 29))
	for trial := range 150 {
		tab := trace.NewTable()
		n := 1 + rng.IntN(30)
		evs := make([][]trace.Symbol, n)
		for i := range evs {
			evs[i] = nest(rng, tab, 1+rng.IntN(4))
			if i > 0 && rng.IntN(3) == 0 {
				evs[i] = evs[rng.IntN(i)] // traces alike, as in a large run
			}
		}
		keep := func(s trace.Symbol) bool { return s != 3 }
		k := 1 + rng.IntN(10)
		if trial%5 == 0 {
			k = 30 + rng.IntN(20)
		}
		structural, returns := trial%3 != 0, trial%4 == 0
		perm := rng.Perm(n)
		discover := func() []Discovered {
			ds := []Discovered{}
			for _, p := range perm {
				d := discoverOne(k, evs[p], keep, structural, returns)
				if p%2 == 0 {
					d.Seal()
				}
				ds = append(ds, Discovered{Run: p % 2, ID: trace.ID{Proc: p / 2, Thread: p % 3}, D: d})
			}
			return ds
		}
		want, wt, err := foldReference(discover(), 2)
		if err != nil {
			t.Fatal(err)
		}
		foldPerWorker = 1 + rng.IntN(4)
		got, gt, err := Fold(discover(), 1+rng.IntN(3))
		if err != nil {
			t.Fatal(err)
		}
		sameFold(t, trial, "streamed", got, gt, want, wt)
	}
}

// Traces discovered two ways cannot be folded together.
func TestFoldMixedDiscoverers(t *testing.T) {
	keep := func(trace.Symbol) bool { return true }
	a := discoverOne(5, []trace.Symbol{1, trace.Return}, keep, true, false)
	b := discoverOne(5, []trace.Symbol{1, trace.Return}, keep, false, false)
	_, _, err := Fold([]Discovered{{ID: trace.ID{Proc: 0}, D: a}, {ID: trace.ID{Proc: 1}, D: b}}, 1)
	if err == nil {
		t.Fatal("folded a structural and a flat Discoverer together")
	}
	t.Log(err)
}
