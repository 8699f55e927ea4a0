package readerr_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/difftrace/difftrace/internal/readerr"
)

func TestCauseKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gone")
	_, err := os.Open(path)
	err = readerr.New(path, err)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%v: not fs.ErrNotExist", err)
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != path {
		t.Errorf("%v: no *fs.PathError for %s", err, path)
	}
	want := path + ": cannot read: the file does not exist (a dangling symbolic link, or the file was moved; restore it from the original run)"
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

func ExampleNew() {
	_, err := os.Open("/nonexistent/trace.0.0")
	err = readerr.New("/nonexistent/trace.0.0", err)
	fmt.Println(err)
	fmt.Println(errors.Is(err, fs.ErrNotExist))
	// Output:
	// /nonexistent/trace.0.0: cannot read: the file does not exist (a dangling symbolic link, or the file was moved; restore it from the original run)
	// true
}

// A caller's own words, with the cause kept.
func TestReason(t *testing.T) {
	_, err := os.Stat("/nonexistent/run")
	err = readerr.Reason("/nonexistent/run", err, "no such run directory")
	if err.Error() != "/nonexistent/run: no such run directory" || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %q (fs.ErrNotExist: %v)", err, errors.Is(err, fs.ErrNotExist))
	}
}
