package report_test

import (
	"log"
	"os"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/report"
)

// The loops of every trace of a run under the mpi filter, as "difftrace
// nlr" prints them.
func ExampleNLRs() {
	c, err := compare.Open([]string{"../testdata/runs/oddeven4-normal"}, compare.Options{})
	if err != nil {
		log.Fatal(err)
	}
	res, err := c.Recognize([]*filters.Filter{filters.MustParse("mpi")}, []int{10})
	if err != nil {
		log.Fatal(err)
	}
	doc := report.NewNLRs(c, res[0], c.IDs)
	if err := report.Write(os.Stdout, doc, report.Options{Format: report.Text}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// filter mpi, K = 10
	//
	// TRACE  CALLS  ITER  NLR
	// 0.0    8      2     MPI_Init, MPI_Comm_rank, MPI_Comm_size, L0^2, MPI_Finalize
	// 1.0    12     4     MPI_Init, MPI_Comm_rank, MPI_Comm_size, L1^4, MPI_Finalize
	// 2.0    12     4     MPI_Init, MPI_Comm_rank, MPI_Comm_size, L0^4, MPI_Finalize
	// 3.0    8      2     MPI_Init, MPI_Comm_rank, MPI_Comm_size, L1^2, MPI_Finalize
	//
	// loops:
	//   L0 = [MPI_Send, MPI_Recv]
	//   L1 = [MPI_Recv, MPI_Send]
}
