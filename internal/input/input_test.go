package input

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/difftrace/difftrace/internal/readerr"
)

// A named pipe where a file is expected is refused at once (a plain open
// would wait for a writer for ever), in one line naming it; so is a
// directory; a regular file reads whole, and a missing one says so.
func TestOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "run.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "trace.0.info")
	if err := os.WriteFile(file, []byte("+\n/bin/a\nmain\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	for name, open := range map[string]func(string) error{
		"Open":     func(p string) error { _, _, err := Open(p); return err },
		"ReadFile": func(p string) error { _, err := ReadFile(p); return err },
		"Stat":     func(p string) error { _, err := Stat(p); return err },
		"DirFS": func(p string) error {
			if _, err := fs.ReadFile(DirFS(filepath.Dir(p)), filepath.Base(p)); err != nil {
				return readerr.New(p, err)
			}
			return nil
		},
	} {
		err := open(fifo)
		var nr *readerr.NotRegular
		if !errors.As(err, &nr) || err.Error() != fifo+": cannot read: not a regular file but a named pipe (FIFO); copy the real file into the run directory" {
			t.Errorf("%s of a FIFO: %v", name, err)
		}
		err = open(filepath.Join(dir, "missing"))
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "missing: cannot read: the file does not exist") {
			t.Errorf("%s of a missing file: %v", name, err)
		}
		if err := open(file); err != nil {
			t.Errorf("%s of a regular file: %v", name, err)
		}
	}
	if _, _, err := Open(dir); err == nil || err.Error() != dir+": cannot read: is a directory, not a file (remove or rename it; it is not part of the run)" {
		t.Errorf("Open of a directory: %v", err)
	}
	if f, err := DirFS(dir).Open("."); err != nil {
		t.Errorf("DirFS opens its directory: %v", err)
	} else {
		f.Close()
	}
	if b, err := ReadFile(file); err != nil || string(b) != "+\n/bin/a\nmain\n" {
		t.Errorf("ReadFile: %q, %v", b, err)
	}
}
