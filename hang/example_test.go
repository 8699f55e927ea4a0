package hang_test

import (
	"fmt"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/hang"
)

// In the committed stencil run, rank 3 skipped its halo exchange in step 6
// and then waited in MPI_Allreduce like most ranks; its neighbours 2 and 4
// waited in MPI_Waitall for the halos it never sent. Against the normal
// run, rank 3 is the one that did something its normal run did not.
func ExampleAnalyze() {
	c, err := compare.Open([]string{"../testdata/runs/stencil-normal", "../testdata/runs/stencil-skipbug"}, compare.Options{})
	if err != nil {
		panic(err)
	}
	rep, err := hang.Analyze(c, hang.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(rep.Ended)
	for _, l := range rep.Classes.Leaves() {
		fmt.Println(l.List, l.Frames[len(l.Frames)-1])
	}
	for _, s := range rep.Suspects {
		fmt.Println("suspect", s.Trace)
	}
	// Output:
	// timed out [0-7]
	// [0-1,3,5-7] MPI_Allreduce
	// [2,4] MPI_Waitall
	// suspect 3.0
}
