package outfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteAll replaces each old file whole, keeping its mode, reports what it
// wrote, and on a failure leaves the old file as it was and no temporary
// file behind.
func TestWriteOutputs(t *testing.T) {
	dir := t.TempDir()
	paths := []string{filepath.Join(dir, "a.svg"), filepath.Join(dir, "b.dot")}
	for _, p := range paths {
		if err := os.WriteFile(p, []byte("old content, longer than the new"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var stderr bytes.Buffer
	err := WriteAll(&stderr, paths, nil, func(i int, out *File) error {
		_, err := out.WriteString("new " + filepath.Base(paths[i]))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if got := readString(t, p); got != "new "+filepath.Base(p) {
			t.Errorf("%s holds %q", p, got)
		}
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, %v; want 0600, the mode of the file it replaced", p, st.Mode(), err)
		}
	}
	if want := "wrote " + paths[0] + "\nwrote " + paths[1] + "\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}

	// A failing write keeps the file as it was.
	err = WriteAll(&stderr, paths[:1], nil, func(i int, out *File) error {
		out.WriteString("half")
		return errors.New("drawing failed")
	})
	if err == nil || err.Error() != "drawing failed" {
		t.Errorf("err = %v, want the write's error", err)
	}
	if got := readString(t, paths[0]); got != "new a.svg" {
		t.Errorf("a failed write changed %s to %q", paths[0], got)
	}
	// Into a missing directory: an error naming it.
	err = WriteAll(&stderr, []string{filepath.Join(dir, "missing", "c.svg")}, nil, func(int, *File) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("writing into a missing directory: err = %v", err)
	}
	// Over an input: refused.
	err = WriteAll(&stderr, paths[1:], paths[1:], func(int, *File) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "is the input") {
		t.Errorf("writing over an input: err = %v", err)
	}
	assertNoTemps(t, dir)
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("directory holds %d entries, want the two outputs", len(ents))
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left in %s", e.Name(), dir)
		}
	}
}

// An output inside an input directory is refused, whatever link leads
// there.
func TestCreateInsideInput(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if err := os.Mkdir(run, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(run, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(run, "run.json"), filepath.Join(dir, "link", "x.svg")} {
		if _, err := Create(p, nil, run); err == nil || !strings.Contains(err.Error(), "is inside the input "+run) {
			t.Errorf("Create(%s): err = %v, want it refused as inside the input", p, err)
		}
	}
	out, err := Create(filepath.Join(dir, "beside.txt"), nil, run)
	if err != nil {
		t.Fatal(err)
	}
	out.Abort()
}
