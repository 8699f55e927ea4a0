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
	switch {
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
