package export

import (
	"io"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/summary"
	"github.com/difftrace/difftrace/trace"
)

// Dirs says how Dirs opens the runs it writes.
type Dirs struct {
	// Decode are the options each run is decoded with.
	Decode decode.Options
	// Signatures names C++ functions with their parameter lists
	// (trace.Table.ShowSignatures).
	Signatures bool
	// Wait, when set, is called for each run directory (not for a
	// summary) before it is opened: to wait until its recorders have
	// written it.
	Wait func(dir string) error
	// Stderr takes the note that a summary stands for its run (Open).
	Stderr io.Writer
}

// Write writes, as Run does, the traces sel selects (decode.Run.Select:
// "" for all) of the run in dirs[0]; or, when diff is not "", as Diff
// does, the trace (or process) it names (trace.ParseID) of the runs in
// dirs[0] and dirs[1]. Each run, or the run a summary stands for, is
// opened as Open opens it, the names of all of them in one table.
func (d Dirs) Write(dirs []string, sel, diff, out string, o Options) error {
	tab := trace.NewTable()
	tab.ShowSignatures(d.Signatures)
	runs := make([]*decode.Run, len(dirs))
	for i, dir := range dirs {
		if d.Wait != nil && !summary.Is(dir) {
			if err := d.Wait(dir); err != nil {
				return err
			}
		}
		var err error
		if runs[i], err = Open(dir, tab, d.Decode, d.Stderr); err != nil {
			return err
		}
	}
	if diff != "" {
		id, err := trace.ParseID(diff)
		if err != nil {
			return err
		}
		return Diff(runs[0], runs[1], id, out, o)
	}
	ids, err := runs[0].Select(sel)
	if err != nil {
		return err
	}
	return Run(runs[0], ids, out, o)
}
