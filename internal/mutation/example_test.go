package mutation_test

import (
	"fmt"
	"log"

	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/internal/mutation"
)

// Delete a call in a trace of the odd/even sort, explain the mutated
// trace as diffnlr's first line does, and check the answer: the MPI_Recv
// missing from iteration 2 of the sort's loop.
func Example() {
	base, err := mutation.OpenBase("../../testdata/runs/oddeven4-normal")
	if err != nil {
		log.Fatal(err)
	}
	e, err := base.Explainer(mutation.View{Filter: filters.MustParse("all"), K: 10})
	if err != nil {
		log.Fatal(err)
	}
	m, err := base.Draw(1, 1, mutation.OpDelete, 0) // seed 1, trace 1.0, the first draw
	if err != nil {
		log.Fatal(err)
	}
	o, err := e.Check(1, m)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.What)
	fmt.Println(o.Text)
	fmt.Println("got:", o.Got.Format(base.Name))
	fmt.Println("all right:", o.OK[mutation.CheckAll])
	// Output:
	// delete: want missing MPI_Recv in 2/4 at main > oddEvenSort
	// first difference: iteration 2 of 4 of the loop over findPtr and 2 more calls, in main > oddEvenSort: MPI_Recv missing
	// got: missing MPI_Recv in 2/4 at main > oddEvenSort
	// all right: true
}
