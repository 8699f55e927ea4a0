package outlier_test

import (
	"fmt"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/outlier"
	"github.com/difftrace/difftrace/rank"
)

// Analyze a run alone: rank 3 of the rod skipped smooth() in its fifth
// step; rank 0 (input, checkpoints) and rank 7 (one neighbour) are roles.
func ExampleAnalyze() {
	c, err := compare.Open([]string{"../testdata/outliers/rod-skipsmooth"}, compare.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fs, _ := rank.DefaultFilters("")
	rep, err := outlier.Analyze(c, rank.Grid{Filters: fs, Ks: []int{10}, Modes: fca.Modes(), Linkages: rank.DefaultLinkages, Prune: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, cl := range rep.Classes {
		if cl.Role != "" || cl.Lone {
			fmt.Println(cl.Traces, cl.Role, cl.Lone)
		}
	}
	s := rep.Suspects[0]
	fmt.Println(s.ID, "against", s.Peer)
	fmt.Println(s.Difference)
	// Output:
	// [0.0] rank 0, the first false
	// [3.0]  true
	// [7.0] rank 7, the last false
	// 3 against 2
	// first difference: iteration 5 of 12 of the loop over exchange and 4 more calls, in main: smooth missing
}
