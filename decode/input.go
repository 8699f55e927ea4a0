package decode

// Opening input files, with errors that say what is wrong and what to do.

import (
	"errors"
	"fmt"
	"os"

	"github.com/difftrace/difftrace/internal/readerr"
)

// readManifestFile reads run.json, refusing what is not a regular file.
func readManifestFile(path string) (*Manifest, error) {
	if _, err := regularFile(path); err != nil {
		return nil, err
	}
	m, err := ReadManifest(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, readerr.New(path, err)
		}
		return nil, err
	}
	return m, nil
}

// OpenInput opens a regular file for reading, with errors that say what is
// wrong and what to do; a directory, FIFO or device is refused before it is
// opened (a FIFO would block). It returns the file and its size.
func OpenInput(path string) (*os.File, int64, error) {
	size, err := regularFile(path)
	if err != nil {
		return nil, 0, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, readerr.New(path, err)
	}
	return f, size, nil
}

// regularFile returns the size of the regular file at path, or an error that
// says what is there instead. A FIFO or device would block or never end, so
// it is refused before it is opened.
func regularFile(path string) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, readerr.New(path, err)
	}
	switch {
	case st.IsDir():
		return 0, fmt.Errorf("%s: cannot read: is a directory, not a file (remove or rename it; it is not part of the run)", path)
	case !st.Mode().IsRegular():
		what := "a special file"
		switch t := st.Mode().Type(); {
		case t&os.ModeNamedPipe != 0:
			what = "a named pipe (FIFO)"
		case t&os.ModeSocket != 0:
			what = "a socket"
		case t&os.ModeDevice != 0:
			what = "a device"
		}
		return 0, fmt.Errorf("%s: cannot read: not a regular file but %s; copy the real file into the run directory", path, what)
	}
	return st.Size(), nil
}
