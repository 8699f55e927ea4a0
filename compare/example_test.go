package compare_test

import (
	"fmt"
	"strings"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/trace"
)

// In the committed oddeven runs (examples/oddeven.c, seeds/002 Fig. 3.5),
// rank 5 of the faulty run swaps its MPI_Send and MPI_Recv from phase 7
// on. Opened together and folded under the filter mpi with K = 10, trace
// 5.0 runs the loop L1 = [MPI_Recv, MPI_Send] 16 times in the normal run
// and 7 times in the faulty one, then L0 = [MPI_Send, MPI_Recv] 9 times;
// Explain says where its calls first part and how, read on the whole call
// trees, and DiffNLR gives the diffNLR the diffnlr command draws.
func Example() {
	c, err := compare.Open([]string{"../testdata/runs/oddeven-normal", "../testdata/runs/oddeven-swapbug"}, compare.Options{})
	if err != nil {
		panic(err)
	}
	nlrs, err := c.Recognize([]*filters.Filter{filters.MustParse("mpi")}, []int{10})
	if err != nil {
		panic(err)
	}
	n := nlrs[0]
	id := trace.ID{Proc: 5, Thread: 0}
	i, _ := c.Index(id)
	fmt.Println(strings.Join(n.Table.Legend(n.Names()), "; "))
	fmt.Println("normal:", n.Seq(compare.Normal, i).Format(n.Names()))
	fmt.Println("faulty:", n.Seq(compare.Faulty, i).Format(n.Names()))

	p, ok, _, err := n.Explain(i)
	if err != nil || !ok {
		panic(fmt.Sprint("no explanation: ", ok, err))
	}
	fmt.Println(p.Text)

	d, err := c.DiffNLR(n, id, diffnlr.Abridge{})
	if err != nil {
		panic(err)
	}
	for _, b := range d.Blocks[0] {
		fmt.Println(b.Kind, b.Elems.Format(n.Names()))
	}
	// Output:
	// L0 = [MPI_Send, MPI_Recv]; L1 = [MPI_Recv, MPI_Send]
	// normal: MPI_Init, MPI_Comm_rank, MPI_Comm_size, L1^16, MPI_Finalize
	// faulty: MPI_Init, MPI_Comm_rank, MPI_Comm_size, L1^7, L0^9, MPI_Finalize
	// first difference: iteration 8 of 16 of the loop over findPtr and 2 more calls, in main > oddEvenSort: the same calls in another order: MPI_Recv, MPI_Send in the normal run, MPI_Send, MPI_Recv in the faulty run
	// common MPI_Init, MPI_Comm_rank, MPI_Comm_size
	// normal-only L1^16
	// faulty-only L1^7, L0^9
	// common MPI_Finalize
}
