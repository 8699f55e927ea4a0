package diffnlr_test

import (
	"fmt"
	"testing"

	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/internal/mutation"
)

// The loops found around a callee are those the mutation harness defines,
// for every callee of every call of real traces.
func TestLoopsAsTheHarnessDefines(t *testing.T) {
	runs := []string{"../testdata/runs/oddeven-normal", "../testdata/runs/ilcs-normal", "../testdata/runs/stencil-normal",
		"../testdata/noise/farm-1", "../testdata/mutation/particles-1", "../testdata/mutation/heat-1",
		"../testdata/mutation/hybrid-1", "../testdata/mutation/twolevel-1"}
	for _, dir := range runs {
		b, err := mutation.OpenBase(dir)
		if err != nil {
			t.Fatal(err)
		}
		checked, wrong := 0, 0
		for i := range b.IDs {
			tr := b.Tree(i)
			for n := range tr.Nodes {
				kids := tr.Nodes[n].Children
				if len(kids) < 2 {
					continue
				}
				h := make([]uint64, len(kids))
				for j, k := range kids {
					h[j] = tr.Nodes[k].Hash
				}
				skip := 0
				if n != mutation.Root {
					skip = len(tr.AroundCall(int32(n)))
				}
				for c := range kids {
					if len(kids) > 1000 && c%613 != 0 {
						continue
					}
					want := tr.Around(int32(n), c)[skip:]
					firsts, periods, counts, iters := diffnlr.LoopsAround(h, c)
					ok := len(want) == len(firsts)
					for k := 0; ok && k < len(want); k++ {
						ok = want[k].First == firsts[k] && want[k].Period == periods[k] && want[k].Count == counts[k] && want[k].Iteration == iters[k]
					}
					checked++
					if !ok {
						wrong++
						if wrong <= 3 {
							var w []string
							for _, l := range want {
								w = append(w, fmt.Sprintf("%d+%dx%d@%d", l.First, l.Period, l.Count, l.Iteration))
							}
							var g []string
							for k := range firsts {
								g = append(g, fmt.Sprintf("%d+%dx%d@%d", firsts[k], periods[k], counts[k], iters[k]))
							}
							t.Logf("%s %s node %d (%d callees) callee %d: want %v, got %v", dir, b.IDs[i], n, len(kids), c, w, g)
						}
					}
				}
			}
		}
		if wrong > 0 {
			t.Errorf("%s: %d of %d callees with other loops", dir, wrong, checked)
		}
	}
}
