package main

import (
	"fmt"
	"io"

	"github.com/difftrace/difftrace/capture/record"
)

// convertUftraceOptions are the flags of `difftrace convert` that apply to
// uftrace recordings.
type convertUftraceOptions struct {
	out       string
	firstRank int
	force     bool
}

// convertUftrace turns uftrace data directories (uftrace record -d DIR)
// into a run directory; it is what `difftrace convert` does with a
// directory argument.
func convertUftrace(dirs []string, opt convertUftraceOptions, stdout io.Writer) error {
	m, err := record.ConvertUftraceDirs(dirs, record.ConvertDirsOptions{
		Out: opt.out, FirstRank: opt.firstRank, Force: opt.force, ToolVersion: version,
	})
	if err != nil {
		return err
	}
	threads := 0
	for _, r := range m.Ranks {
		threads += len(r.Threads)
	}
	fmt.Fprintf(stdout, "%s: %d processes, %d threads converted from uftrace\n", opt.out, len(m.Ranks), threads)
	return nil
}
