package export_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/google/pprof/profile"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/export"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/trace"
)

// The MPI calls of a committed run of the odd/even sort, as a pprof
// profile: rank 0's call paths, each with how often it was entered.
func ExampleRun() {
	run, err := decode.Open(filepath.Join("..", "testdata", "runs", "oddeven4-normal"), trace.NewTable(), decode.Options{})
	if err != nil {
		panic(err)
	}
	out := filepath.Join(os.TempDir(), "difftrace-example-calls.pb.gz")
	defer os.Remove(out)
	o := export.Options{To: export.Pprof, Filter: filters.MustParse("mpi"), Stdout: io.Discard, Stderr: io.Discard}
	if err := export.Run(run, []trace.ID{{Proc: 0}}, out, o); err != nil {
		panic(err)
	}
	f, err := os.Open(out)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		panic(err)
	}
	for _, s := range p.Sample {
		fmt.Printf("%-14s calls %d\n", s.Location[0].Line[0].Function.Name, s.Value[0])
	}
	// Output:
	// MPI_Init       calls 1
	// MPI_Comm_rank  calls 1
	// MPI_Comm_size  calls 1
	// MPI_Send       calls 2
	// MPI_Recv       calls 2
	// MPI_Finalize   calls 1
}
