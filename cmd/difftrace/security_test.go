package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/internal/testenv"
)

// helperBin is the drawing helper built beside the difftrace binary.
func helperBin() string { return filepath.Join(filepath.Dir(difftraceBin), "difftrace-draw") }

// drawWith runs the helper with extra environment, returning what it wrote.
func drawWith(t *testing.T, env []string, argv ...string) (stdout, stderr string, err error) {
	t.Helper()
	if len(argv) == 0 {
		argv = []string{helperBin()}
	}
	cmd := exec.Command(argv[0], append(argv[1:], "svg")...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader("digraph { a -> b }")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// The drawing helper keeps go-graphviz's compiled code in a private cache
// (under XDG_CACHE_HOME, 0700), never in the shared temporary directory;
// a cache another user planted, or that others may write, is refused (the
// picture is still drawn, without it) and left untouched; a damaged cache of
// one's own is cleared and compiled afresh.
func TestDrawCacheIsPrivate(t *testing.T) {
	home := t.TempDir()
	tmp := t.TempDir()
	out, stderr, err := drawWith(t, []string{"XDG_CACHE_HOME=" + home, "TMPDIR=" + tmp})
	if err != nil || !strings.Contains(out, "<svg") {
		t.Fatalf("drawing: %v\n%s", err, stderr)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("the helper wrote into TMPDIR: %v", ents)
	}
	cache := filepath.Join(home, "difftrace", "graphviz")
	st, err := os.Stat(filepath.Join(home, "difftrace"))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("cache directory: %v, mode %v; want 0700", err, st.Mode().Perm())
	}
	compiled, _ := filepath.Glob(filepath.Join(cache, "go-graphviz", "*", "*"))
	if len(compiled) == 0 {
		t.Fatalf("no compiled code cached under %s", cache)
	}

	// Damaged (an empty file): difftrace clears it and draws.
	if err := os.WriteFile(compiled[0], nil, 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := difftraceAt(t, dir, []string{"XDG_CACHE_HOME=" + home}, "diffnlr", "5", "--normal", absRun(t, "oddeven-normal"), "--faulty", absRun(t, "oddeven-swapbug"), "-o", "d.svg")
	if r.code != 0 {
		t.Fatalf("drawing with a damaged cache: exit %d: %s", r.code, r.stderr)
	}
	if st, err := os.Stat(compiled[0]); err != nil || st.Size() == 0 {
		t.Errorf("the damaged cache file was not compiled afresh: %v", err)
	}

	// Writable by others: refused, and the picture is drawn all the same.
	if err := os.Chmod(compiled[0], 0o666); err != nil {
		t.Fatal(err)
	}
	out, stderr, err = drawWith(t, []string{"XDG_CACHE_HOME=" + home})
	if err != nil || !strings.Contains(out, "<svg") || !strings.Contains(stderr, "may be written by other users") {
		t.Errorf("a world-writable cache file: %v, stderr %q", err, stderr)
	}
	os.Chmod(compiled[0], 0o600)

	if os.Getuid() != 0 {
		t.Skip("SKIPPING the planted-by-another-user checks: they need root (to give files to another uid, and setpriv)")
	}
	// Planted by another user: refused, not touched.
	planted := t.TempDir()
	pdir := filepath.Join(planted, "difftrace", "graphviz", "go-graphviz", filepath.Base(filepath.Dir(compiled[0])))
	if err := os.MkdirAll(pdir, 0o700); err != nil {
		t.Fatal(err)
	}
	pfile := filepath.Join(pdir, filepath.Base(compiled[0]))
	if err := os.WriteFile(pfile, []byte("planted code"), 0o600); err != nil {
		t.Fatal(err)
	}
	filepath.Walk(filepath.Join(planted, "difftrace"), func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, 65534, 65534) })
	out, stderr, err = drawWith(t, []string{"XDG_CACHE_HOME=" + planted})
	if err != nil || !strings.Contains(out, "<svg") || !strings.Contains(stderr, "belongs to uid 65534") {
		t.Errorf("a cache planted by uid 65534: %v, stderr %q", err, stderr)
	}
	if b, _ := os.ReadFile(pfile); string(b) != "planted code" {
		t.Errorf("the planted file was changed: %q", b)
	}

	// The same, seen by a second user: root's cache is not nobody's.
	setpriv := testenv.Tool(t, "setpriv", "it runs the helper as a second user")
	bin := filepath.Join(t.TempDir(), "difftrace-draw")
	b, err := os.ReadFile(helperBin())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Dir(bin), 0o755)
	rootCache := t.TempDir()
	os.Chmod(rootCache, 0o755)
	if err := os.MkdirAll(filepath.Join(rootCache, "difftrace", "graphviz"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, stderr, err = drawWith(t, []string{"XDG_CACHE_HOME=" + rootCache, "HOME=/nonexistent"},
		setpriv, "--reuid", "65534", "--regid", "65534", "--clear-groups", bin)
	if err != nil || !strings.Contains(out, "<svg") || !strings.Contains(stderr, "not using the drawing cache") {
		t.Errorf("uid 65534 with a cache directory of root's: %v, stderr %q", err, stderr)
	}
}

// The helper's warning that it draws without a cache others may write
// reaches the user, once however many pictures are drawn (it was read and
// dropped when the picture was drawn all the same).
func TestDrawHelperWarningReachesTheUser(t *testing.T) {
	home := t.TempDir()
	shared := filepath.Join(home, "difftrace")
	if err := os.Mkdir(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := difftraceAt(t, dir, []string{"XDG_CACHE_HOME=" + home}, "diffnlr", "5", "--normal", absRun(t, "oddeven-normal"), "--faulty", absRun(t, "oddeven-swapbug"),
		"-o", "x.svg", "-o", "x.png")
	if r.code != 0 {
		t.Fatalf("drawing with a cache others may write: exit %d: %s", r.code, r.stderr)
	}
	for _, f := range []string{"x.svg", "x.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not drawn: %v", f, err)
		}
	}
	stderr := string(r.stderr)
	if n := strings.Count(stderr, "difftrace-draw: note: not using the drawing cache: "+shared+" may be written by other users"); n != 1 {
		t.Errorf("the helper's warning is on stderr %d times; want once:\n%s", n, stderr)
	}
}

// Twenty ranks at once in one directory, of two different pairs, leave a
// session whose two files come from one and the same rank.
func TestConcurrentRanksKeepTheSessionWhole(t *testing.T) {
	dir := t.TempDir()
	pairs := [][2]string{
		{absRun(t, "oddeven-normal"), absRun(t, "oddeven-swapbug")},
		{absRun(t, "oddeven-normal"), absRun(t, "oddeven-dlbug")},
	}
	errs := make(chan error, 20)
	for i := range 20 {
		p := pairs[i%2]
		go func() {
			cmd := exec.Command(difftraceBin, "rank", p[0], p[1], "--filters", "mpi")
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil {
				err = fmt.Errorf("%v: %s", err, out)
			}
			errs <- err
		}()
	}
	for range 20 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	var s struct {
		Normal, Faulty string
		Best           struct{ BScore float64 }
		Suggestion     struct{ Trace string }
	}
	var rk struct {
		Normal, Faulty string
		Rows           []struct{ BScore float64 }
		Suggestion     struct{ Trace string }
	}
	for _, f := range []struct {
		name string
		v    any
	}{{"session.json", &s}, {"ranking.json", &rk}} {
		b, err := os.ReadFile(filepath.Join(dir, ".difftrace", f.name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, f.v); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
	}
	if s.Faulty != rk.Faulty || s.Normal != rk.Normal || s.Best.BScore != rk.Rows[0].BScore || s.Suggestion != rk.Suggestion {
		t.Errorf("session.json (%s, %v) and ranking.json (%s, %v) come from different ranks", s.Faulty, s.Best, rk.Faulty, rk.Rows[0])
	}
	if left := temps(filepath.Join(dir, ".difftrace")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// snapshot maps every file below dir to its mode and contents.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		out[p] = info.Mode().String() + " " + string(b)
		return nil
	})
	return out
}

// A capture refused for its output directory (other files in it, or
// another run) leaves the directory byte for byte as it was: no lock file,
// no manifest.
func TestRefusedCaptureLeavesTheDirectory(t *testing.T) {
	foreign := t.TempDir()
	if err := os.WriteFile(filepath.Join(foreign, "thesis.tex"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := copyDir(t, exampleRun("oddeven4-normal"))
	for _, dir := range []string{foreign, other} {
		before := snapshot(t, dir)
		r := difftrace(t, "capture", "-o", dir, "--", difftraceBin, "--version")
		if r.code == 0 {
			t.Fatalf("capture into %s succeeded", dir)
		}
		if !strings.Contains(string(r.stderr), "--force") {
			t.Errorf("the refusal does not say what to do: %s", r.stderr)
		}
		after := snapshot(t, dir)
		if len(after) != len(before) {
			t.Errorf("%s changed: %d entries before, %d after", dir, len(before), len(after))
		}
		for p, v := range before {
			if after[p] != v {
				t.Errorf("%s changed", p)
			}
		}
	}
}

// Under a 1 GB address-space limit (ulimit -v) rank and drawing work; when
// the drawing helper cannot get the memory it needs, the error says so and
// what to try, not the last line of a stack trace.
func TestLowMemory(t *testing.T) {
	sh := testenv.Tool(t, "sh", "it sets ulimit -v")
	dir := t.TempDir()
	normal, faulty := absRun(t, "ilcs-normal"), absRun(t, "ilcs-dlbug")
	run := func(limitKB int, env []string, args ...string) (int, string) {
		cmd := exec.Command(sh, append([]string{"-c", "ulimit -v " + strconv.Itoa(limitKB) + " && exec \"$@\"", "sh", difftraceBin}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), errb.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, errb.String()
	}
	if code, stderr := run(1<<20, nil, "rank", normal, faulty, "--no-session"); code != 0 {
		t.Errorf("rank under ulimit -v 1 GB: exit %d\n%s", code, stderr)
	}
	if code, stderr := run(1<<20, nil, "diffnlr", "2", "--normal", normal, "--faulty", faulty, "-o", "d.svg"); code != 0 {
		t.Errorf("diffnlr -o d.svg under ulimit -v 1 GB: exit %d\n%s", code, stderr)
	}
	// The helper alone under 300 MB: the Go runtime cannot even start.
	wrapper := filepath.Join(t.TempDir(), "draw-300mb")
	script := "#!/bin/sh\nulimit -v 300000 && exec " + helperBin() + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	code, stderr := run(4<<20, []string{"DIFFTRACE_DRAW=" + wrapper}, "diffnlr", "2", "--normal", normal, "--faulty", faulty, "-o", "d.svg")
	if code == 0 || !strings.Contains(stderr, "fatal error: ") || !strings.Contains(stderr, "ran out of memory") || strings.Contains(stderr, ".go:") {
		t.Errorf("the helper out of memory: exit %d, stderr %q; want its fatal error and what to try", code, stderr)
	}
}
