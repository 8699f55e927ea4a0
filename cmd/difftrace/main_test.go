package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/parlot/parlottest"
)

// The end-to-end tests run the real binary, built once here.
var difftraceBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "difftrace-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	difftraceBin = filepath.Join(dir, "difftrace")
	// The Graphviz helper goes beside the binary, where difftrace looks for it.
	build := exec.Command("go", "build", "-ldflags", "-X main.version=9.8.7-test", "-o", dir+string(filepath.Separator), ".", "../difftrace-draw")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as make build does
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building difftrace:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const fixtureDir = "../../testdata/parlot"

type result struct {
	stdout, stderr []byte
	code           int
}

// difftrace runs the binary with args.
func difftrace(t *testing.T, args ...string) result {
	t.Helper()
	return difftraceEnv(t, nil, args...)
}

// difftraceEnv runs the binary with args and extra environment variables.
func difftraceEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return difftraceAt(t, "", env, args...)
}

// difftraceAt runs the binary with args in the working directory dir (""
// for this one) with extra environment variables env.
func difftraceAt(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(difftraceBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.Bytes(), stderr: errb.Bytes()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running difftrace %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// ok runs difftrace and fails the test unless it succeeds.
func ok(t *testing.T, args ...string) string {
	t.Helper()
	r := difftrace(t, args...)
	if r.code != 0 {
		t.Fatalf("difftrace %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
	}
	return string(r.stdout)
}

// fails runs difftrace, expects failure with a one-line error on stderr
// holding every want, and returns the message.
func fails(t *testing.T, want []string, args ...string) string {
	t.Helper()
	r := difftrace(t, args...)
	msg := string(r.stderr)
	if r.code == 0 {
		t.Fatalf("difftrace %s succeeded; want an error", strings.Join(args, " "))
	}
	if strings.Count(msg, "\n") != 1 || !strings.HasSuffix(msg, "\n") || !strings.HasPrefix(msg, "difftrace: ") {
		t.Errorf("difftrace %s: error is not one line: %q", strings.Join(args, " "), msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("difftrace %s: error %q\nlacks %q", strings.Join(args, " "), msg, w)
		}
	}
	return msg
}

// fixturePairs lists (ParLOT file, decoded .u16) pairs of the reference files.
func fixturePairs(t *testing.T) [][2]string {
	var pairs [][2]string
	bins, _ := filepath.Glob(filepath.Join(fixtureDir, "edge", "*.bin"))
	for _, b := range bins {
		pairs = append(pairs, [2]string{b, strings.TrimSuffix(b, ".bin") + ".u16"})
	}
	traces, _ := filepath.Glob(filepath.Join(fixtureDir, "oddeven4", "Hdbg.*.0"))
	for _, f := range traces {
		pairs = append(pairs, [2]string{f, filepath.Join(filepath.Dir(f), "expected", filepath.Base(f)+".u16")})
	}
	if len(pairs) != 20 {
		t.Fatalf("found %d fixture pairs under %s, want 20", len(pairs), fixtureDir)
	}
	return pairs
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeTrace writes vals as a ParLOT trace file with the project's writer.
func writeTrace(t *testing.T, path string, vals []uint16) {
	t.Helper()
	writeFile(t, path, parlottest.Encode(t, vals, 1<<30))
}

// copyDir copies the regular files of src into a new temporary directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Type().IsRegular() {
			writeFile(t, filepath.Join(dir, e.Name()), mustRead(t, filepath.Join(src, e.Name())))
		}
	}
	return dir
}

func writeManifest(t *testing.T, dir string, m *decode.Manifest) {
	t.Helper()
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, decode.ManifestName), b)
}
