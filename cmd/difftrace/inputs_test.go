package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/internal/testenv"
)

// Tests of what difftrace does with inputs that are wrong, planted or
// too large: each ends in one line on stderr that says what and where,
// never in a Go runtime dump.

// copyRunDir copies the committed run name into dir, without its run.json
// if noManifest.
func copyRunDir(t *testing.T, name, dir string, noManifest bool) {
	t.Helper()
	if err := os.CopyFS(dir, os.DirFS(exampleRun(name))); err != nil {
		t.Fatal(err)
	}
	if noManifest {
		if err := os.Remove(filepath.Join(dir, "run.json")); err != nil {
			t.Fatal(err)
		}
	}
}

// oneLineError checks that a command failed with one line on stderr that
// holds want.
func oneLineError(t *testing.T, r result, want string) {
	t.Helper()
	if r.code != 1 || bytes.Count(r.stderr, []byte("\n")) != 1 || !strings.Contains(string(r.stderr), want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and one line holding %q", r.code, r.stderr, want)
	}
}

// A trace of another program copied into a run without run.json (with
// its function table) is refused, naming the file; --mixed-programs
// reads such a run (an MPMD job).
func TestForeignTraceRefused(t *testing.T) {
	base := t.TempDir()
	normal, faulty := filepath.Join(base, "normal"), filepath.Join(base, "faulty")
	copyRunDir(t, "oddeven-normal", normal, true)
	copyRunDir(t, "oddeven-dlbug", faulty, true)
	for _, f := range []string{"info", "0"} {
		b, err := os.ReadFile(filepath.Join(exampleRun("ilcs-normal"), "trace.0."+f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(normal, "trace.16."+f), b)
	}
	want := filepath.Join(normal, "trace.16.info") + ": process 16 is of the program /work/main/examples/ilcs, but 16 of the run's 17 processes are of /work/main/examples/oddeven"
	oneLineError(t, difftrace(t, "rank", normal, faulty, "--no-session"), want)
	oneLineError(t, difftrace(t, "info", normal), want)
	if r := difftrace(t, "info", normal, "--mixed-programs"); r.code != 0 {
		t.Errorf("info --mixed-programs: exit %d\n%s", r.code, r.stderr)
	}
}

// difftraceLimited runs the binary with args under ulimit -v limitKB.
func difftraceLimited(t *testing.T, limitKB int, args ...string) result {
	t.Helper()
	sh := testenv.Tool(t, "sh", "it sets ulimit -v")
	return runLimited(t, sh, limitKB, args...)
}

func runLimited(t *testing.T, sh string, limitKB int, args ...string) result {
	t.Helper()
	cmd := exec.Command(sh, append([]string{"-c", "ulimit -v " + strconv.Itoa(limitKB) + " && exec \"$@\"", "sh", difftraceBin}, args...)...)
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

// A summary part whose name claims a vast number of parts is refused in
// one line, with or without a memory limit, before anything is made for
// that many parts.
func TestSummaryClaimsManyParts(t *testing.T) {
	for _, of := range []string{"1000000000", "100000000000"} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "part-0-of-"+of+".dts"), []byte("difftrace-summary\n"))
		want := filepath.Join(dir, "part-0-of-"+of+".dts") + ": the name says " + of + " parts, the directory holds 1"
		oneLineError(t, difftraceLimited(t, 1000000, "rank", dir, dir, "--no-session"), want)
		oneLineError(t, difftrace(t, "rank", dir, dir, "--no-session"), want)
	}
}

// A valid but large function table (60,000 names of 3 KB, 180 MB) under
// ulimit -v 1000000, where the Go runtime has reserved about 750 MB of the
// 1 GB when it starts: info and rank either read it or say in one line
// that it needs more than the limit leaves, never end in a runtime dump.
// Without the limit, info reads it.
func TestLargeFunctionTable(t *testing.T) {
	sh := testenv.Tool(t, "sh", "it sets ulimit -v")
	dir := t.TempDir()
	var b bytes.Buffer
	b.WriteString("+\n/bin/app\nmain\n")
	pad := strings.Repeat("x", 3000)
	for i := range 60000 {
		fmt.Fprintf(&b, "f%05d_%s\n", i, pad)
	}
	writeFile(t, filepath.Join(dir, "trace.0.info"), b.Bytes())
	b.Reset()
	tr, err := os.ReadFile(filepath.Join(exampleRun("oddeven4-normal"), "trace.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "trace.0.0"), tr)
	for _, args := range [][]string{{"info", dir}, {"rank", dir, dir, "--no-session"}} {
		r := runLimited(t, sh, 1000000, args...)
		if r.code == 0 {
			continue
		}
		want := filepath.Join(dir, "trace.0.info") + ": the function table (173 MB, 60003 lines) needs about"
		if r.code != 1 || bytes.Count(r.stderr, []byte("\n")) != 1 || !strings.Contains(string(r.stderr), want) || !strings.Contains(string(r.stderr), "(ulimit -v 1000000)") {
			t.Errorf("%s under ulimit -v 1000000: exit %d, stderr (%d lines):\n%.2000s\nwant success or one line holding %q", args[0], r.code, bytes.Count(r.stderr, []byte("\n")), r.stderr, want)
		}
	}
	if r := difftrace(t, "info", dir); r.code != 0 {
		t.Errorf("info without a limit: exit %d\n%s", r.code, r.stderr)
	}
}
