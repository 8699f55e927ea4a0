package draw

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const graph = `digraph g { a [label="MPI_Init"]; a -> b; }`

// buildHelper builds difftrace-draw into a temporary directory.
func buildHelper(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH: cannot build difftrace-draw")
	}
	bin := filepath.Join(t.TempDir(), HelperName)
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/difftrace-draw").CombinedOutput()
	if err != nil {
		t.Fatalf("building %s: %v\n%s", HelperName, err, out)
	}
	return bin
}

// This package's tests link no engine, so Render runs the helper.
func TestRenderWithHelper(t *testing.T) {
	t.Setenv(HelperEnv, buildHelper(t))
	ctx := context.Background()
	svg, err := Render(ctx, []byte(graph), SVG)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(svg, new(struct{})); err != nil || !strings.Contains(string(svg), "MPI_Init") {
		t.Errorf("not an SVG of the graph (%v):\n%s", err, svg)
	}
	png, err := Render(ctx, []byte(graph), PNG)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(png), "\x89PNG\r\n\x1a\n") {
		t.Errorf("not a PNG: %q…", png[:min(16, len(png))])
	}

	// Graphviz's complaint comes back as one line.
	_, err = Render(ctx, []byte("digraph {"), SVG)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "syntax error") {
		t.Errorf("bad DOT: error %v, want Graphviz's syntax error on one line", err)
	}
	for _, f := range []Format{"gif", "json"} {
		if _, err := Render(ctx, []byte(graph), f); err == nil || !strings.Contains(err.Error(), `unknown format "`+string(f)+`"`) {
			t.Errorf("%s: error %v", f, err)
		}
	}
}

// A missing helper is reported with what to do.
func TestHelperMissing(t *testing.T) {
	t.Setenv(HelperEnv, filepath.Join(t.TempDir(), "nothing"))
	if _, err := Render(context.Background(), []byte(graph), SVG); err == nil || !strings.Contains(err.Error(), "no such program") {
		t.Errorf("error %v, want no such program", err)
	}
	t.Setenv(HelperEnv, "")
	t.Setenv("PATH", t.TempDir())
	exe, _ := os.Executable()
	if _, err := os.Stat(filepath.Join(filepath.Dir(exe), HelperName)); err == nil {
		t.Skip("a difftrace-draw sits beside the test binary")
	}
	_, err := Helper()
	if err == nil || !strings.Contains(err.Error(), "go install github.com/difftrace/difftrace/cmd/...") {
		t.Errorf("error %v, want how to install the helper", err)
	}
}

// TestFormatOf: the extension names the format, in any case; anything else
// is an error naming the file and the choices.
func TestFormatOf(t *testing.T) {
	for path, want := range map[string]Format{
		"a.svg": SVG, "dir/b.SVG": SVG, "c.png": PNG, "b.PNG": PNG, "d.dot": DOT, "e.gv": DOT,
	} {
		if got, err := FormatOf(path); err != nil || got != want {
			t.Errorf("FormatOf(%q) = %q, %v; want %q", path, got, err, want)
		}
	}
	for _, path := range []string{"x.jpg", "x.jpeg", "noext", "svg"} {
		_, err := FormatOf(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "*.svg, *.png or *.dot") {
			t.Errorf("FormatOf(%q): err = %v, want one naming the file and the formats", path, err)
		}
	}
	if DOT.Valid() {
		t.Error("DOT is rendered: it is the source, written as is")
	}
}

// The helper's warnings while it draws (here: a cache directory others may
// write, which it refuses) are passed on, once for any number of
// pictures, beginning with its name.
func TestHelperWarningsPassedOn(t *testing.T) {
	t.Setenv(HelperEnv, buildHelper(t))
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, "difftrace"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(home, "difftrace"), 0o777); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", home)
	var warned bytes.Buffer
	SetWarnings(&warned)
	defer SetWarnings(os.Stderr)
	for _, f := range []Format{SVG, PNG} {
		if _, err := Render(context.Background(), []byte(graph), f); err != nil {
			t.Fatal(err)
		}
	}
	w := warned.String()
	if strings.Count(w, "may be written by other users") != 1 || !strings.HasPrefix(w, HelperName+": ") || strings.Count(w, "\n") != 1 {
		t.Errorf("warnings passed on: %q; want the helper's note on the cache, once", w)
	}
}
