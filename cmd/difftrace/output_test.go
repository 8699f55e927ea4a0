package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeOutputs replaces each old file whole, keeping its mode, reports what it
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
	err := writeOutputs(&stderr, paths, nil, func(i int, out *output) error {
		_, err := out.WriteString("new " + filepath.Base(paths[i]))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if got := string(mustRead(t, p)); got != "new "+filepath.Base(p) {
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
	err = writeOutputs(&stderr, paths[:1], nil, func(i int, out *output) error {
		out.WriteString("half")
		return errors.New("drawing failed")
	})
	if err == nil || err.Error() != "drawing failed" {
		t.Errorf("err = %v, want the write's error", err)
	}
	if got := string(mustRead(t, paths[0])); got != "new a.svg" {
		t.Errorf("a failed write changed %s to %q", paths[0], got)
	}
	// Into a missing directory: an error naming it.
	err = writeOutputs(&stderr, []string{filepath.Join(dir, "missing", "c.svg")}, nil, func(int, *output) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("writing into a missing directory: err = %v", err)
	}
	// Over an input: refused.
	err = writeOutputs(&stderr, paths[1:], paths[1:], func(int, *output) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "is the input") {
		t.Errorf("writing over an input: err = %v", err)
	}
	assertNoTemps(t, dir)
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("directory holds %d entries, want the two outputs", len(ents))
	}
}
