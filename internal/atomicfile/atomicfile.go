// Package atomicfile writes a file so that readers see either the old file
// or the whole new one, never a part: the data goes to a temporary file in
// the same directory, which is synced and renamed into place only when the
// writer commits. Every file difftrace writes (run files, pictures, tables)
// goes through it.
package atomicfile

import (
	"os"
	"path/filepath"
)

// File is a file being written under a temporary name.
type File struct {
	f    *os.File
	path string
}

// Create starts writing path. Nothing at path changes until Commit.
func Create(path string) (*File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return nil, err
	}
	return &File{f: f, path: path}, nil
}

// Write writes to the temporary file.
func (a *File) Write(p []byte) (int, error) { return a.f.Write(p) }

// Commit makes the file readable by all (mode 0644), syncs it and renames it
// into place. On an error the temporary file is removed and path is left as
// it was.
func (a *File) Commit() error {
	if a.f == nil {
		return os.ErrClosed
	}
	tmp := a.f.Name()
	err := a.f.Chmod(0o644)
	if err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, a.path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	a.f = nil
	return err
}

// Abort discards the temporary file; path is left as it was. It does
// nothing after Commit.
func (a *File) Abort() {
	if a.f == nil {
		return
	}
	a.f.Close()
	os.Remove(a.f.Name())
	a.f = nil
}
