// Package private keeps the paths difftrace chooses itself (its caches,
// the libraries it compiles, the session of rank, their locks and
// temporary files) out of other users' reach: nobody else may have planted
// them or be able to write through them.
//
// The rule: a directory is used only if it is a real directory (not a
// symbolic link) that belongs to this user and that neither group nor
// others may write; one that is missing is created with mode 0700. A file
// in it is opened without following a symbolic link, and used only if the
// open file is a regular file of this user's that neither group nor others
// may write. A file is written under a fresh name, created exclusively,
// and renamed into place: a symbolic link found at its name is replaced,
// never written through.
//
// Anything else is refused with an error that names the path and says why
// (it matches ErrNotPrivate); callers add what the user can do about it.
//
// Only the last directory of a path is checked, not the ones above it:
// those are the user's choice (a home directory, a project directory).
package private

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrNotPrivate is matched (errors.Is) by the errors that refuse a path
// another user may have planted or may write.
var ErrNotPrivate = errors.New("not private to this user")

// notPrivate says which path is refused and why.
type notPrivate struct{ path, why string }

func (e *notPrivate) Error() string        { return e.path + " " + e.why + ": remove it" }
func (e *notPrivate) Is(target error) bool { return target == ErrNotPrivate }

// check refuses a file or directory (st, from Lstat or Fstat of path)
// that is a symbolic link, is not of the kind wanted, belongs to another
// user, or may be written by group or others.
func check(path string, st *syscall.Stat_t, dir bool) error {
	mode := st.Mode & syscall.S_IFMT
	switch {
	case mode == syscall.S_IFLNK:
		return &notPrivate{path, "is a symbolic link"}
	case dir && mode != syscall.S_IFDIR:
		return &notPrivate{path, "is not a directory"}
	case !dir && mode != syscall.S_IFREG:
		return &notPrivate{path, "is not a regular file"}
	case int(st.Uid) != os.Getuid():
		return &notPrivate{path, fmt.Sprintf("belongs to uid %d, not to this user (uid %d)", st.Uid, os.Getuid())}
	case st.Mode&0o022 != 0:
		return &notPrivate{path, fmt.Sprintf("may be written by other users (mode %04o)", st.Mode&0o7777)}
	}
	return nil
}

// CheckDir refuses the directory dir unless it is private (see the package
// comment). A missing directory gives an error that matches
// fs.ErrNotExist.
func CheckDir(dir string) error {
	var st syscall.Stat_t
	if err := syscall.Lstat(dir, &st); err != nil {
		return &fs.PathError{Op: "lstat", Path: dir, Err: err}
	}
	return check(dir, &st, true)
}

// MkdirAll creates the directory dir with mode 0700 if it is missing
// (with any missing directories above it, also 0700), and refuses it,
// found or made, unless it is private. A symbolic link at dir is not
// followed: nothing is created through it.
func MkdirAll(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return CheckDir(dir)
}

// Check walks the directory dir and refuses it when it, or anything in
// it, is a symbolic link, is neither a directory nor a regular file,
// belongs to another user, or may be written by group or others: for a
// directory whose files another program reads by itself (a cache).
func Check(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			return &fs.PathError{Op: "lstat", Path: p, Err: err}
		}
		return check(p, &st, st.Mode&syscall.S_IFMT == syscall.S_IFDIR)
	})
}

// OpenFile opens the file name as os.OpenFile does, but never through a
// symbolic link (O_NOFOLLOW), and refuses the file unless it is a regular
// file of this user's that neither group nor others may write. Callers
// that mean a fresh file pass O_CREATE|O_EXCL. The directory holding name
// should be private (CheckDir): then nobody else can swap the file after
// it was checked.
//
// Nothing is done to a file that is refused: O_TRUNC truncates only once
// the file is checked, and a named pipe planted at name does not block the
// open (the file is opened non-blocking, and made blocking again once it
// is known to be a regular file).
func OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	trunc := flag&os.O_TRUNC != 0
	flag = flag&^os.O_TRUNC | syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	fd, err := syscall.Open(name, flag, uint32(perm.Perm()))
	if errors.Is(err, syscall.ELOOP) {
		return nil, &notPrivate{name, "is a symbolic link"}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	var st syscall.Stat_t
	if err = syscall.Fstat(fd, &st); err != nil {
		err = &fs.PathError{Op: "fstat", Path: name, Err: err}
	} else if err = check(name, &st, false); err == nil {
		err = syscall.SetNonblock(fd, false)
	}
	if err == nil && trunc {
		if err = syscall.Ftruncate(fd, 0); err != nil {
			err = &fs.PathError{Op: "truncate", Path: name, Err: err}
		}
	}
	if err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

// ReadFile reads the file name, opened with OpenFile.
func ReadFile(name string) ([]byte, error) {
	f, err := OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// WriteFile writes data to the file name, in a private directory, with
// the mode perm: to a temporary file created exclusively beside it, synced
// and renamed into place, so that a reader sees the old file or the whole
// new one, and a symbolic link at name is replaced, not written through.
func WriteFile(name string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(name)
	if err := CheckDir(dir); err != nil {
		return err
	}
	// os.CreateTemp opens with O_CREATE|O_EXCL, which never follows a
	// link, and with mode 0600.
	f, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}
