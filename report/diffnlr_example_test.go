package report_test

import (
	"os"
	"slices"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/report"
	"github.com/difftrace/difftrace/trace"
)

// The diffNLR of rank 5 of the odd-even sort whose rank 5 swaps its send
// and receive after seven iterations (seeds/002 Fig. 3.5b), written as
// "difftrace diffnlr 5" prints it.
func ExampleDiffNLR() {
	c, err := compare.Open([]string{"../testdata/runs/oddeven-normal", "../testdata/runs/oddeven-swapbug"}, compare.Options{})
	if err != nil {
		panic(err)
	}
	res, err := c.Recognize([]*filters.Filter{filters.MustParse("mpi")}, []int{10})
	if err != nil {
		panic(err)
	}
	d, err := c.DiffNLR(res[0], trace.ID{Proc: 5}, diffnlr.Abridge{})
	if err != nil {
		panic(err)
	}
	d.Picture.Notes = slices.Delete(d.Picture.Notes, 0, 1) // the first difference's long line
	if err := report.Write(os.Stdout, report.NewDiffNLR(d, ""), report.Options{}); err != nil {
		panic(err)
	}
	// Output:
	// diffNLR(5.0): filter mpi, K 10
	// normal  ../testdata/runs/oddeven-normal
	// faulty  ../testdata/runs/oddeven-swapbug
	//
	// --- normal
	// +++ faulty
	//   MPI_Init
	//   MPI_Comm_rank
	//   MPI_Comm_size
	// - L1^16
	// + L1^7  (L1 ×16 → ×7, then L0 ×9: in iterations 8–16, the same calls in another order: [MPI_Recv, MPI_Send] then [MPI_Send, MPI_Recv])
	// + L0^9
	//   MPI_Finalize
	//
	// loops:
	//   L0 = [MPI_Send, MPI_Recv]
	//   L1 = [MPI_Recv, MPI_Send]
}
