package export

import (
	"fmt"
	"io"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/summary"
	"github.com/difftrace/difftrace/trace"
)

// Open opens the run in dir for reading its events, interning its names
// into tab. A summary (summary.Is) stands for the run it summarises, when
// that is still where the summary was made (summary.OpenRun); a note on
// stderr says which run is read then.
func Open(dir string, tab *trace.Table, opts decode.Options, stderr io.Writer) (*decode.Run, error) {
	if !summary.Is(dir) {
		return decode.Open(dir, tab, opts)
	}
	run, err := summary.OpenRun(dir, tab, opts)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "note: %s is a summary: reading the run it summarises, %s\n", trace.Printable(dir), trace.Printable(run.Dir))
	return run, nil
}
