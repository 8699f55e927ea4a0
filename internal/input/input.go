// Package input opens the files difftrace reads — traces, function tables,
// run manifests, summaries, uftrace recordings — as regular files only.
// Run directories are often shared, and anyone who may write in one could
// put a named pipe (FIFO) or a device where a file is expected: opened as
// usual, a FIFO blocks the reader for ever and a device never ends. Here
// the file is opened without blocking and refused, in one line that says
// what is there instead (*readerr.Error, its cause a *readerr.NotRegular),
// unless the open file is a regular file (or a directory, which a reader
// of directories asks for). Checking before opening would leave a moment
// in which the file could be swapped.
package input

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/difftrace/difftrace/internal/readerr"
)

// Open opens the regular file at path for reading and returns it with its
// size. Its errors are *readerr.Error, which keep their cause
// (errors.Is(err, fs.ErrNotExist) holds for a missing file).
func Open(path string) (*os.File, int64, error) {
	f, st, err := open(path, false)
	if err != nil {
		return nil, 0, readerr.New(path, err)
	}
	return f, st.Size(), nil
}

// ReadFile reads the regular file at path whole, as os.ReadFile does.
func ReadFile(path string) ([]byte, error) {
	f, _, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, readerr.New(path, err)
	}
	return b, nil
}

// Stat returns the size of the regular file at path without opening it:
// for listing a run's files, which Open reads later.
func Stat(path string) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, readerr.New(path, err)
	}
	if !st.Mode().IsRegular() {
		return 0, readerr.New(path, &readerr.NotRegular{Mode: st.Mode()})
	}
	return st.Size(), nil
}

// open opens path without blocking and checks what the open file is: a
// regular file, or a directory when dirs is true. Its errors are
// *fs.PathError.
func open(path string, dirs bool) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() && !(dirs && st.IsDir()) {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: &readerr.NotRegular{Mode: st.Mode()}}
	}
	return f, st, nil
}

// DirFS is os.DirFS(dir) whose Open opens regular files and directories
// only (see the package comment).
func DirFS(dir string) fs.FS { return dirFS(dir) }

type dirFS string

func (d dirFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, _, err := open(filepath.Join(string(d), filepath.FromSlash(name)), true)
	if err != nil {
		if pe, ok := err.(*fs.PathError); ok {
			pe.Path = name // as os.DirFS names it
		}
		return nil, err
	}
	return f, nil
}
