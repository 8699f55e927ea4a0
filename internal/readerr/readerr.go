// Package readerr words an error opening or reading an input file so that
// the user knows what to do, and keeps the cause: errors.Is(err,
// fs.ErrNotExist) and errors.As(err, &*fs.PathError) still see it.
package readerr

import (
	"errors"
	"fmt"
	"io/fs"
)

// Error is a file that could not be read: which file, and why.
type Error struct {
	Path   string
	Err    error  // the cause, as the operating system gave it
	Reason string // what the caller says of it; "" words Err
}

func (e *Error) Error() string {
	if e.Reason != "" {
		return e.Path + ": " + e.Reason
	}
	err := e.Err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var nr *NotRegular
	switch {
	case errors.As(err, &nr) && nr.Mode.IsDir():
		return fmt.Sprintf("%s: cannot read: is a directory, not a file (remove or rename it; it is not part of the run)", e.Path)
	case nr != nil:
		return fmt.Sprintf("%s: cannot read: %v; copy the real file into the run directory", e.Path, nr)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("%s: cannot read: the file does not exist (a dangling symbolic link, or the file was moved; restore it from the original run)", e.Path)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("%s: cannot read: permission denied (give the user running difftrace read access)", e.Path)
	}
	return fmt.Sprintf("%s: cannot read: %v (check the file is intact and readable)", e.Path, err)
}

func (e *Error) Unwrap() error { return e.Err }

// New returns the error of reading the file at path, which failed with err.
func New(path string, err error) error { return &Error{Path: path, Err: err} }

// Reason returns the error of reading the file at path, which failed with
// err, in the words of reason: what it means to the caller and what to do.
func Reason(path string, err error, reason string) error {
	return &Error{Path: path, Err: err, Reason: reason}
}

// NotRegular is why a file was refused: a regular file was expected and
// something else found, a named pipe (FIFO) or device planted in its place,
// say, which would block the reader or never end.
type NotRegular struct {
	Mode fs.FileMode // the type found
}

func (e *NotRegular) Error() string {
	if e.Mode.IsDir() {
		return "is a directory, not a file"
	}
	what := "a special file"
	switch t := e.Mode.Type(); {
	case t&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		what = "a socket"
	case t&fs.ModeDevice != 0:
		what = "a device"
	case t&fs.ModeSymlink != 0:
		what = "a symbolic link"
	}
	return "not a regular file but " + what
}
