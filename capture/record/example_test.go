package record_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/difftrace/difftrace/capture/record"
	"github.com/difftrace/difftrace/uftrace/uftracetest"
)

// A uftrace recording (here a synthetic one of a two-thread program)
// becomes a run directory of ParLOT traces, with what the recording says
// of the run in run.json. Recording a program runs uftrace under the MPI
// launcher (record.Main, what difftrace capture calls); converting needs
// neither.
func ExampleConvertUftraceDirs() {
	tmp, err := os.MkdirTemp("", "difftrace-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)
	rec := filepath.Join(tmp, "uftrace.data")
	if err := os.Mkdir(rec, 0o755); err != nil {
		fmt.Println(err)
		return
	}
	if err := uftracetest.WriteDir(rec); err != nil {
		fmt.Println(err)
		return
	}
	out := filepath.Join(tmp, "run")
	m, err := record.ConvertUftraceDirs([]string{rec}, record.ConvertDirsOptions{Out: out})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Command, m.Backend)
	for _, r := range m.Ranks {
		fmt.Printf("rank %d on %s: %s, %d threads\n", r.Rank, r.Host, r.Ended(), len(r.Threads))
	}
	files, _ := filepath.Glob(filepath.Join(out, "trace.*"))
	for _, f := range files {
		fmt.Println(filepath.Base(f))
	}
	// Output:
	// [/bin/app -x] convert
	// rank 0 on node7: exited 3, 2 threads
	// trace.0.0
	// trace.0.1
	// trace.0.info
}
