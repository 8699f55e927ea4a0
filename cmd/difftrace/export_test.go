package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/export/chrome/chrometest"
	"github.com/difftrace/difftrace/internal/exporttest"
	"github.com/difftrace/difftrace/trace"
)

// timeline reads the trace-event JSON in path, gunzipping a .gz, as the
// export harness does: encoding/json, the format's fields, Perfetto's
// importer's rules.
func timeline(t *testing.T, path string) *exporttest.ChromeFile {
	t.Helper()
	return exporttest.Chrome.ReadFile(t, path).Chrome
}

// cli is the Export of difftrace convert --to format -o name: the file
// written, gzipped when name ends in .gz, and no temporary file left.
func cli(format, name string) exporttest.Export {
	return func(t *testing.T, c exporttest.Case, run *decode.Run, _ func(trace.Symbol) bool) []byte {
		dir := t.TempDir()
		path := filepath.Join(dir, name)
		args := []string{"convert", "--to", format, run.Dir, "-o", path}
		if c.Filter != "" {
			args = append(args, "--filter", c.Filter)
		}
		r := difftrace(t, args...)
		if r.code != 0 || string(r.stderr) != "wrote "+path+"\n" {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		b := mustRead(t, path)
		if gz := len(b) > 1 && b[0] == 0x1f && b[1] == 0x8b; gz != strings.HasSuffix(name, ".gz") {
			t.Errorf("%s: gzip %v", name, gz)
		}
		assertNoTemps(t, dir)
		return b
	}
}

// convert --to writes a run as the exporters' harness wants it, with
// and without gzip: for Chrome a valid timeline with a named track per
// trace, the deadlocked ranks' open calls closed and marked; for pprof a
// profile the pprof library reads back; both holding every call path of
// the decoded events.
func TestConvertTo(t *testing.T) {
	dl := exporttest.Case{Run: "oddeven-dlbug", Hung: true}
	cases := []exporttest.Case{dl, {Run: "../noise/farm-skipverify", Filter: "mpi"}}
	for _, tc := range []struct {
		f   exporttest.Format
		out []string
	}{
		{exporttest.Chrome, []string{"dl.json", "dl.json.gz"}},
		{exporttest.Pprof, []string{"calls.pb.gz", "calls.pb"}},
	} {
		for _, out := range tc.out {
			t.Run(out, func(t *testing.T) {
				f := tc.f.TestRuns(t, cases, cli(tc.f.Name, out))[dl]
				if f == nil {
					return
				}
				if s := f.Chrome; s != nil {
					// pid and tid are the rank and the thread plus one.
					if len(s.Threads) != 16 || s.Processes[6] != "rank 5" || s.Threads[chrometest.Track{PID: 6, TID: 1}] != "thread 0" {
						t.Errorf("%s: tracks %v, processes %v", out, s.Threads, s.Processes)
					}
					if s.OtherData["unfinished_slices"].(float64) == 0 || s.OtherData["filter"] != "none: every call" {
						t.Errorf("%s: otherData %v", out, s.OtherData)
					}
				}
				var calls int64
				for _, c := range f.Paths {
					calls += c.Calls
				}
				// difftrace info: 671 calls.
				if calls != 671 {
					t.Errorf("%s: %d calls, want 671", out, calls)
				}
			})
		}
	}

	// A filter and a selection of traces.
	path := filepath.Join(t.TempDir(), "mpi.json")
	ok(t, "convert", "--to", "chrome", exampleRun("stencil-skipbug"), "--filter", "mpi.col", "--trace", "2,3", "-o", path)
	if s := timeline(t, path); len(s.Slices) != 2 || s.OtherData["filter"] != "mpi.col" {
		t.Errorf("--filter mpi.col --trace 2,3: slices %v, otherData %v", s.Slices, s.OtherData)
	}
}

// A timeline larger than --split-size is written one file per rank, each
// valid and holding its rank's traces alone, and stderr names them.
func TestConvertToChromeSplit(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "stencil.json.gz")
	r := difftrace(t, "convert", "--to", "chrome", exampleRun("stencil-normal"), "--filter", "mpi", "--split-size", "16K", "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(string(r.stderr), "more than --split-size 16K: writing one file per rank") {
		t.Errorf("stderr: %s", r.stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s written beside the files per rank", out)
	}
	for rank := range 8 {
		path := filepath.Join(dir, fmt.Sprintf("stencil.rank-%d.json.gz", rank))
		if !strings.Contains(string(r.stderr), "wrote "+path+"\n") {
			t.Errorf("stderr does not name %s:\n%s", path, r.stderr)
		}
		s := timeline(t, path)
		if len(s.Processes) != 1 || s.Processes[rank+1] != fmt.Sprintf("rank %d", rank) || len(s.Slices) != 1 {
			t.Errorf("%s: processes %v, tracks %v", path, s.Processes, s.Slices)
		}
	}
	// Under the limit, one file.
	r = difftrace(t, "convert", "--to", "chrome", exampleRun("stencil-normal"), "--filter", "mpi", "-o", out)
	if r.code != 0 || string(r.stderr) != "wrote "+out+"\n" {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if s := timeline(t, out); len(s.Processes) != 8 {
		t.Errorf("one file: processes %v", s.Processes)
	}
	fails(t, []string{"--split-size", "want a size in bytes"}, "convert", "--to", "chrome", exampleRun("stencil-normal"), "--split-size", "lots", "-o", out)
}

// --diff writes one trace of two runs as two processes, with the first
// difference at one ts in both and marked there, as stderr says.
func TestConvertToChromeDiff(t *testing.T) {
	out := filepath.Join(t.TempDir(), "diff.json")
	r := difftrace(t, "convert", "--to", "chrome", "--filter", "mpi", "--diff", exampleRun("stencil-normal"), exampleRun("stencil-skipbug"), "3", "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	m := regexp.MustCompile(`trace 3\.0: first difference after 76 events in common, at normal event (\d+) and faulty event (\d+): ts (\d+) in the file`).FindSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("stderr: %s", r.stderr)
	}
	s := timeline(t, out)
	if s.Processes[1] != "normal rank 3" || s.Processes[2] != "faulty rank 3" {
		t.Errorf("processes %v", s.Processes)
	}
	found := false
	for _, e := range s.Instants {
		if e.Name == "first difference" {
			found = true
			if fmt.Sprint(e.TS) != string(m[3]) || e.Scope != "g" {
				t.Errorf("first difference at ts %d scope %s; stderr says %s", e.TS, e.Scope, m[3])
			}
		}
	}
	if !found {
		t.Error("no first difference marked")
	}
	fails(t, []string{"NORMAL FAULTY TRACE", "got 2"}, "convert", "--to", "chrome", "--diff", exampleRun("stencil-normal"), exampleRun("stencil-skipbug"), "-o", out)
	fails(t, []string{"no process 9"}, "convert", "--to", "chrome", "--diff", exampleRun("stencil-normal"), exampleRun("stencil-skipbug"), "9", "-o", out)
	fails(t, []string{"trace id", "P.T"}, "convert", "--to", "chrome", "--diff", exampleRun("stencil-normal"), exampleRun("stencil-skipbug"), "x", "-o", out)
	fails(t, []string{"--diff", "go tool pprof -diff_base"}, "convert", "--to", "pprof", "--diff", exampleRun("stencil-normal"), exampleRun("stencil-skipbug"), "3", "-o", out)
}

// go tool pprof -diff_base shows what the bug changed: in the stencil
// every rank made 6 fewer halo exchanges (the run hung halfway), rank 3,
// which skipped one, 7.
func TestConvertToPprofDiffBase(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("SKIPPING: no go command to run go tool pprof")
	}
	dir := t.TempDir()
	normal, faulty := filepath.Join(dir, "normal.pb.gz"), filepath.Join(dir, "faulty.pb.gz")
	ok(t, "convert", "--to", "pprof", exampleRun("stencil-normal"), "-o", normal)
	ok(t, "convert", "--to", "pprof", exampleRun("stencil-skipbug"), "-o", faulty)
	exchanges := regexp.MustCompile(`(?m)^\s*(-?\d+)\s.*\shalo::Exchanger::exchange$`)
	for rank, want := range map[int]string{2: "-6", 3: "-7"} {
		cmd := exec.Command(goTool, "tool", "pprof", "-top", "-nodefraction=0", fmt.Sprintf("-tagfocus=rank=%d", rank), "-diff_base", normal, faulty)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, out)
		}
		m := exchanges.FindSubmatch(out)
		if m == nil || string(m[1]) != want || !bytes.Contains(out, []byte("Type: calls")) {
			t.Errorf("rank %d: want %s halo::Exchanger::exchange calls:\n%s", rank, want, out)
		}
	}
}

// What convert --to does not take, it says.
func TestConvertToErrors(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.json")
	run := exampleRun("oddeven-normal")
	fails(t, []string{"--from u16 and --to chrome", "choose one"}, "convert", "--from", "u16", "--to", "chrome", run, "-o", out)
	fails(t, []string{`--to "svg"`, "chrome", "pprof"}, "convert", "--to", "svg", run, "-o", out)
	fails(t, []string{"needs an output file"}, "convert", "--to", "chrome", run)
	fails(t, []string{"one run directory", "got 2"}, "convert", "--to", "chrome", run, run, "-o", out)
	fails(t, []string{"--filter"}, "convert", "--to", "chrome", run, "--filter", "cust=(", "-o", out)
	fails(t, []string{"--filter applies with --to"}, "convert", "--from", "u16", "x.u16", "--filter", "mpi", "-o", out)
	fails(t, []string{"no trace 7.3"}, "convert", "--to", "pprof", run, "--trace", "7.3", "-o", out)
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed convert left its output")
	}
	help := ok(t, "convert", "--help")
	for _, want := range []string{"--to", "--diff", "--split-size", "--filter", "Perfetto", "go tool pprof -diff_base"} {
		if !strings.Contains(help, want) {
			t.Errorf("convert --help does not mention %s", want)
		}
	}
}

// A summary stands for the run it summarises.
func TestConvertToFromSummary(t *testing.T) {
	work := summaryWork(t)
	if r := difftraceAt(t, work, nil, "summarize", "runs/oddeven-normal", "-o", "sum"); r.code != 0 {
		t.Fatalf("summarize: %s", r.stderr)
	}
	r := difftraceAt(t, work, nil, "convert", "--to", "chrome", "sum", "-o", "t.json")
	if r.code != 0 || !strings.Contains(string(r.stderr), "note: sum is a summary: reading the run it summarises, runs/oddeven-normal") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if s := timeline(t, filepath.Join(work, "t.json")); len(s.Threads) != 16 {
		t.Errorf("%d tracks", len(s.Threads))
	}
}

// Every file of a split timeline goes where -o would: another user's link
// planted at one rank's name in a sticky directory is refused before any
// file is written, and the file it leads to is left as it was.
func TestConvertToChromeSplitPlanted(t *testing.T) {
	asRoot(t)
	tmp := stickyDir(t)
	secret := filepath.Join(t.TempDir(), "secret")
	writeFile(t, secret, []byte("secret"))
	link := filepath.Join(tmp, "t.rank-3.json")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	r := difftraceWithin(t, time.Minute, tmp, "convert", "--to", "chrome", absRun(t, "stencil-normal"), "--filter", "mpi", "--split-size", "16K", "-o", "t.json")
	if r.code == 0 || !strings.Contains(string(r.stderr), "t.rank-3.json: a symbolic link owned by ") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if b := mustRead(t, secret); string(b) != "secret" {
		t.Fatalf("the victim's file now holds %.40q", b)
	}
	if m, _ := filepath.Glob(filepath.Join(tmp, "t.rank-0.json")); len(m) != 0 {
		t.Errorf("rank 0's file written before the refusal")
	}
	assertNoTemps(t, tmp)
}
