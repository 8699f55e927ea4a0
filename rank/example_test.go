package rank_test

import (
	"fmt"
	"log"

	"github.com/difftrace/difftrace/cluster"
	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/rank"
)

// Rank the traces of the odd/even sort's swapBug run against its normal
// run over a small grid (the MPI filter, K 10, two attribute modes, ward
// linkage): rank 5, where the bug was planted, leads the consensus, and the
// diffNLR to look at first is suggested.
func ExampleSweep() {
	c, err := compare.Open([]string{"../testdata/runs/oddeven-normal", "../testdata/runs/oddeven-swapbug"}, compare.Options{})
	if err != nil {
		log.Fatal(err)
	}
	g := rank.Grid{
		Filters:  []*filters.Filter{filters.MustParse("mpi")},
		Ks:       []int{10},
		Modes:    []fca.Mode{fca.Modes()[0], fca.Modes()[1]},
		Linkages: []cluster.Method{cluster.Ward},
	}
	rk, _, err := rank.Sweep(c, g)
	if err != nil {
		log.Fatal(err)
	}
	top := rk.ThreadVotes[0]
	fmt.Printf("%d rows; %s first in %d of them\n", len(rk.Rows), top.ID, top.First)
	if v := rk.Suggestion; v != nil {
		fmt.Printf("look at: difftrace diffnlr %s (filter %s, K %d)\n", v.Trace, v.Filter, v.K)
	}
	// Output:
	// 2 rows; 5.0 first in 2 of them
	// look at: difftrace diffnlr 5 (filter mpi, K 10)
}
