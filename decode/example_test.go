package decode_test

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/trace"
)

// Open a run directory (here the four-rank odd/even sort this repository
// keeps), list its traces and count each one's calls, streaming.
func ExampleOpen() {
	symbols := trace.NewTable()
	run, err := decode.Open("../testdata/runs/oddeven4-normal", symbols, decode.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(run.Format, run.ProgramName(), run.Traces())
	ids := run.Traces()[:2]
	stats, err := run.Summarize(ids, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, st := range stats {
		fmt.Println(ids[i], st.Calls, "calls, deepest", st.MaxDepth)
	}
	// A run that is not there says so, and keeps the cause.
	_, err = decode.Open("../testdata/runs/nonexistent", symbols, decode.Options{})
	fmt.Println(errors.Is(err, fs.ErrNotExist))
	// Output:
	// difftrace oddeven [0.0 1.0 2.0 3.0]
	// 0.0 14 calls, deepest 3
	// 1.0 18 calls, deepest 3
	// true
}
