package decode

import (
	"fmt"
	"io"

	"github.com/difftrace/difftrace/parlot"
	"github.com/difftrace/difftrace/trace"
)

// WriteU16 decodes the ParLOT trace file at path, read without its
// function table, to w as raw values (parlot.WriteU16): a function ID at
// every entry, 0 at every exit, as little-endian uint16. A trace that
// decodes to more than maxEvents events is refused.
func WriteU16(w io.Writer, path string, maxEvents uint64) error {
	return writeU16(w, path, maxEvents, 0, "")
}

// WriteU16 decodes trace id of the run to w as raw values, as the package's
// WriteU16 does, with every function ID checked against its process's
// function table. A uftrace recording holds no ParLOT values: convert it
// first.
func (r *Run) WriteU16(w io.Writer, id trace.ID) error {
	t, ok := r.Trace(id)
	if !ok {
		return fmt.Errorf("%s: no trace %s", r.Dir, id)
	}
	if r.Format == FormatUftrace {
		return fmt.Errorf("%s is a uftrace recording, which holds no ParLOT values; convert it first (difftrace convert %s -o RUN)", r.Dir, r.Dir)
	}
	return writeU16(w, t.Path, r.opts.MaxEvents, t.Proc.Funcs, t.Proc.Info)
}

// writeU16 decodes the file at path to w; info, when set, is the function
// table of funcs functions IDs are checked against.
func writeU16(w io.Writer, path string, maxEvents uint64, funcs int, info string) error {
	in, _, err := OpenInput(path)
	if err != nil {
		return err
	}
	defer in.Close()
	rd := parlot.NewReader(in, path, maxEvents)
	if info != "" {
		rd.CheckIDs(funcs, info)
	}
	return parlot.WriteU16(w, rd)
}
