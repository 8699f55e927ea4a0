package main

import (
	"fmt"
	"io"

	"github.com/difftrace/difftrace/capture/record"
	"github.com/difftrace/difftrace/decode"
)

// convertUftraceOptions are the flags of `difftrace convert` that apply to
// uftrace recordings.
type convertUftraceOptions struct {
	out       string
	firstRank int
	force     bool
	// numbered takes ranks from the numbers ending the directories' names
	// when they have distinct ones (no --rank given).
	numbered bool
}

// convertUftrace turns uftrace data directories (uftrace record -d DIR)
// into a run directory; it is what `difftrace convert` does with a
// directory argument. One directory that holds a recording per rank
// (uftrace.<rank>) stands for those recordings.
func convertUftrace(dirs []string, opt convertUftraceOptions, stdout, stderr io.Writer) error {
	var ranks []int
	if len(dirs) == 1 {
		subs, rs, numbered, err := decode.UftraceRankDirs(dirs[0])
		if err != nil {
			return err
		}
		if len(subs) > 0 {
			dirs = subs
			if !numbered {
				fmt.Fprintf(stderr, "note: the uftrace directories' names do not end in distinct rank numbers (uftrace.<rank>): ranks follow their names' sorted order\n")
			}
			if opt.numbered {
				ranks = rs
			}
		}
	}
	if ranks == nil && opt.numbered && len(dirs) > 1 {
		if rs, ok := decode.UftraceDirRanks(dirs); ok {
			ranks = rs
		}
	}
	m, err := record.ConvertUftraceDirs(dirs, record.ConvertDirsOptions{
		Out: opt.out, FirstRank: opt.firstRank, Ranks: ranks, Force: opt.force, ToolVersion: version,
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
