package compare

import (
	"testing"

	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/filters"
)

// TestSweepJSMIsTheLatticeJSM: the sweep computes its JSMs from attribute
// bitsets and builds process contexts from the thread contexts it has; the
// lattice and jsm commands read the JSMs off the lattices. Both give the
// same matrices, at both levels, in every mode.
func TestSweepJSMIsTheLatticeJSM(t *testing.T) {
	c := openRuns(t, Options{}, "ilcs-normal", "ilcs-critbug")
	ns, err := c.Recognize([]*filters.Filter{filters.MustParse("all"), filters.MustParse("omp")}, []int{10})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range ns {
		for _, m := range fca.Modes() {
			for _, l := range []Level{Threads, Processes} {
				lat, err := n.Similarity(m, l)
				if err != nil {
					t.Fatal(err)
				}
				var bits *Similarity
				if l == Threads {
					bits, err = n.similarity(m, l, false)
				} else {
					th, _ := n.similarity(m, Threads, false)
					ctxs := make([]*fca.Context, 2)
					for r := range ctxs {
						ctxs[r], _ = n.processContext(th.Ctx[r])
					}
					bits, err = n.similarityOf(l, ctxs, false)
				}
				if err != nil {
					t.Fatal(err)
				}
				for r := range 2 {
					if lat.Lattice[r] == nil || bits.Lattice[r] != nil {
						t.Fatalf("%s %v %v: lattice %v, bitsets %v", n.Filter.Name(), m, l, lat.Lattice[r] != nil, bits.Lattice[r] != nil)
					}
					k := len(lat.IDs)
					for a := range k {
						for b := range k {
							if x, y := lat.JSM[r].At(a, b), bits.JSM[r].At(a, b); x != y {
								t.Fatalf("%s %v %v run %d: JSM[%d][%d] = %v off the lattice, %v from bitsets", n.Filter.Name(), m, l, r, a, b, x, y)
							}
						}
					}
				}
			}
		}
	}
}
