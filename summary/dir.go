package summary

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/internal/atomicfile"
	"github.com/difftrace/difftrace/trace"
)

// ForeignFileError is a file in a summary directory that is not part of a
// summary: Prepare refuses to write there.
type ForeignFileError struct {
	Dir, Name string
}

func (e *ForeignFileError) Error() string {
	return fmt.Sprintf("%s: holds %s, which is not part of a summary", e.Dir, e.Name)
}

// Prepare readies dir for the parts of a summary written by of processes:
// it makes dir if need be, refusing one reached through a link another
// user may have planted (atomicfile.MkdirAll), and removes the parts of a
// summary made by another number of processes (this one replaces them).
// A file that is not part of a summary is a *ForeignFileError.
func Prepare(dir string, of int) error {
	if err := atomicfile.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		name := e.Name()
		if _, n, ok := ParsePartName(name); ok {
			if n != of {
				if err := os.Remove(filepath.Join(dir, name)); err != nil && !os.IsNotExist(err) {
					return err
				}
			}
			continue
		}
		if strings.HasPrefix(name, ".part-") {
			continue // another process's part being written
		}
		return &ForeignFileError{Dir: dir, Name: name}
	}
	return nil
}

// OpenRun opens, for reading its events, the run that the summary in dir
// summarises, where summarize read it, interning its names into symbols.
// It is an error when the run is no longer there or no longer holds the
// traces summarised.
func OpenRun(dir string, symbols *trace.Table, opts decode.Options) (*decode.Run, error) {
	s, err := Open(dir)
	if err != nil {
		return nil, err
	}
	run, err := decode.Open(s.Run.Dir, symbols, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: is a summary, which holds no events, and the run it summarises is not at %s from here (%w); give the run directory", dir, s.Run.Dir, err)
	}
	want, _, err := decode.FromHeader(s.Run, trace.NewTable())
	if err != nil || !slices.Equal(run.Traces(), want.Traces()) {
		return nil, fmt.Errorf("%s: is a summary, which holds no events, and %s no longer holds the traces it summarised; give the run directory", dir, s.Run.Dir)
	}
	return run, nil
}
