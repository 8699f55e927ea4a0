package export_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/export"
)

// Dirs opens the runs, waiting for each first, and writes the traces
// selected or the one trace of two runs; a bad selection or trace ID is
// refused before anything is written.
func TestDirsWrite(t *testing.T) {
	normal, faulty := filepath.Join("..", "testdata", "runs", "stencil-normal"), filepath.Join("..", "testdata", "runs", "stencil-skipbug")
	var waited []string
	var stderr bytes.Buffer
	d := export.Dirs{Wait: func(dir string) error { waited = append(waited, dir); return nil }, Stderr: &stderr}
	o := export.Options{To: export.Chrome, Stdout: io.Discard, Stderr: &stderr}
	out := filepath.Join(t.TempDir(), "diff.json")
	if err := d.Write([]string{normal, faulty}, "", "3", out, o); err != nil {
		t.Fatal(err)
	}
	if len(waited) != 2 || waited[0] != normal || waited[1] != faulty {
		t.Errorf("waited for %q, want both runs in order", waited)
	}
	if b, err := os.ReadFile(out); err != nil || !bytes.Contains(b, []byte(`"traceEvents"`)) || !strings.Contains(stderr.String(), "trace 3.0: first difference") {
		t.Errorf("the diff: %d bytes, %v; stderr %q", len(b), err, stderr.String())
	}
	one := filepath.Join(t.TempDir(), "one.pb.gz")
	if err := d.Write([]string{normal}, "2,3", "", one, export.Options{To: export.Pprof, Stdout: io.Discard, Stderr: io.Discard}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(one); err != nil {
		t.Error(err)
	}
	for _, c := range []struct{ sel, diff, want string }{{"9.0", "", "no trace 9.0"}, {"", "x", `trace id "x"`}} {
		dirs := []string{normal, faulty}[:1+len(c.diff)]
		bad := filepath.Join(t.TempDir(), "bad.json")
		if err := d.Write(dirs, c.sel, c.diff, bad, o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %q: %v, want %q", c.sel, c.diff, err, c.want)
		}
		if _, err := os.Stat(bad); err == nil {
			t.Errorf("%q %q: %s written", c.sel, c.diff, bad)
		}
	}
}
