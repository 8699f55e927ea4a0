package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/difftrace/difftrace/decode"
)

// decode --raw reproduces every decoded fixture byte for byte.
func TestDecodeRawFixtures(t *testing.T) {
	for _, p := range fixturePairs(t) {
		got := ok(t, "decode", "--raw", p[0], "--format", "u16")
		if want := mustRead(t, p[1]); !bytes.Equal([]byte(got), want) {
			t.Errorf("decode --raw %s: %d bytes, want the %d of %s", p[0], len(got), len(want), p[1])
		}
	}
	// -o writes the same into a file.
	out := filepath.Join(t.TempDir(), "loops.u16")
	ok(t, "decode", "--raw", filepath.Join(fixtureDir, "edge", "loops.bin"), "-o", out)
	if !bytes.Equal(mustRead(t, out), mustRead(t, filepath.Join(fixtureDir, "edge", "loops.u16"))) {
		t.Error("decode --raw -o wrote something else")
	}
}

// convert --from u16 reproduces every fixture file byte for byte.
func TestConvertFixtures(t *testing.T) {
	dir := t.TempDir()
	for i, p := range fixturePairs(t) {
		out := filepath.Join(dir, filepath.Base(p[0])+".parlot")
		if i%2 == 1 {
			writeFile(t, out, []byte("an older file that convert replaces")) // replaced whole
		}
		ok(t, "convert", "--from", "u16", p[1], "-o", out)
		if got, want := mustRead(t, out), mustRead(t, p[0]); !bytes.Equal(got, want) {
			t.Errorf("convert %s: %d bytes, want the %d of %s", p[1], len(got), len(want), p[0])
		}
	}
	assertNoTemps(t, dir)
}

// assertNoTemps checks that no temporary output file was left behind.
func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left in %s", e.Name(), dir)
		}
	}
}

func TestInfoOddEven4(t *testing.T) {
	out := ok(t, "info", filepath.Join(fixtureDir, "oddeven4"))
	for _, want := range []string{
		"format      ParLOT (original tool output; processes numbered by ascending pid)",
		"program     /home/user/oddeven/oddeven\n",
		"processes   4\n", "traces      4\n", "events      128 (64 calls)",
		"functions   9 called, of 9 named in the function tables",
		"compressed  80 bytes, ratio 3.2 (256 bytes uncompressed)",
		"manifest    none",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("info lacks %q:\n%s", want, out)
		}
	}
	// One row per trace and per process, in pid order.
	for i, pid := range []string{"3208", "3213", "3216", "3218"} {
		events := []string{"28", "36", "36", "28"}[i]
		row := regexp.MustCompile(`(?m)^` + string(rune('0'+i)) + `\.0\s+` + pid + `\s+` + events + `\s+9\s+0\s+\d+\s+[\d.]+\s+Hdbg\.17\.node01\.` + pid + `\.0$`)
		if !row.MatchString(out) {
			t.Errorf("info has no trace row for %d.0 (pid %s):\n%s", i, pid, out)
		}
		prow := regexp.MustCompile(`(?m)^` + string(rune('0'+i)) + `\s+` + pid + `\s+node01\s+1\s+` + events + `\s+9\s+no record$`)
		if !prow.MatchString(out) {
			t.Errorf("info has no process row for %d (pid %s):\n%s", i, pid, out)
		}
	}
	// --max-events takes a count with an exponent, as the help's example does.
	if again := ok(t, "info", filepath.Join(fixtureDir, "oddeven4"), "--max-events", "1e10"); again != out {
		t.Errorf("info --max-events 1e10 printed\n%s\nwant\n%s", again, out)
	}
	fails(t, []string{"holds more than 20 events"}, "info", filepath.Join(fixtureDir, "oddeven4"), "--max-events", "2e1")
	fails(t, []string{`"2.55e1"`, "want a whole number of events"}, "info", filepath.Join(fixtureDir, "oddeven4"), "--max-events", "2.55e1")
}

// mpiCalls extracts the MPI calls in order from a flat listing, per trace.
func mpiCalls(flat string) map[string][]string {
	calls := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(flat), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			continue
		}
		if f[3] == "call" && strings.HasPrefix(f[5], "MPI_") {
			calls[f[0]] = append(calls[f[0]], strings.TrimPrefix(f[5], "MPI_"))
		}
	}
	return calls
}

func TestDecodeOddEven4(t *testing.T) {
	run := filepath.Join(fixtureDir, "oddeven4")
	edge := "Init Comm_rank Comm_size Send Recv Send Recv Finalize"
	want := map[string]string{
		"0.0": edge,
		"1.0": "Init Comm_rank Comm_size Send Recv Send Recv Send Recv Send Recv Finalize", // pid 3213 = rank 2
		"2.0": "Init Comm_rank Comm_size Recv Send Recv Send Recv Send Recv Send Finalize", // pid 3216 = rank 1
		"3.0": "Init Comm_rank Comm_size Recv Send Recv Send Finalize",                     // pid 3218 = rank 3
	}
	calls := mpiCalls(ok(t, "decode", run, "--format", "flat"))
	if len(calls) != 4 {
		t.Fatalf("flat listing shows %d traces, want 4", len(calls))
	}
	for id, w := range want {
		if got := strings.Join(calls[id], " "); got != w {
			t.Errorf("trace %s MPI calls:\n got %s\nwant %s", id, got, w)
		}
	}

	// The tree listing: headers, indentation, names.
	tree := ok(t, "decode", run, "--trace", "3.0")
	for _, w := range []string{
		"== trace 3.0 (process 3, pid 3218): ",
		"       0  > oddeven:main\n",
		"       1    > libmpi.so.40:MPI_Init\n       2    < libmpi.so.40:MPI_Init\n",
		"       7    > oddeven:oddEvenSort\n       8      > oddeven:findPtr\n",
		"      10      > libmpi.so.40:MPI_Recv\n",
		"      27  < oddeven:main\n          (28 events)\n",
	} {
		if !strings.Contains(tree, w) {
			t.Errorf("tree lacks %q:\n%s", w, tree)
		}
	}
	if strings.Count(ok(t, "decode", run), "== trace ") != 4 {
		t.Error("the tree listing of the whole run does not show 4 traces")
	}

	// JSON Lines: one valid object per event.
	lines := strings.Split(strings.TrimSpace(ok(t, "decode", run, "-t", "0.0", "-f", "json")), "\n")
	if len(lines) != 28 {
		t.Fatalf("json: %d lines, want 28", len(lines))
	}
	var ev struct {
		Trace, Kind, Image, Func string
		Event, Depth             int
	}
	if err := json.Unmarshal([]byte(lines[10]), &ev); err != nil || ev.Func != "MPI_Send" || ev.Image != "libmpi.so.40" || ev.Kind != "call" || ev.Depth != 2 || ev.Event != 10 || ev.Trace != "0.0" {
		t.Errorf("json line 10: %s (%v)", lines[10], err)
	}

	// u16 of one trace of a run is the decoded file.
	u16 := ok(t, "decode", run, "-t", "2.0", "-f", "u16")
	if !bytes.Equal([]byte(u16), mustRead(t, filepath.Join(run, "expected", "Hdbg.17.node01.3216.0.u16"))) {
		t.Error("decode -t 2.0 -f u16 differs from the expected sequence")
	}

	// The call stack at an event.
	st := ok(t, "decode", run, "-t", "2.0", "--stack-at", "10")
	for _, w := range []string{"trace 2.0, event 10: call libmpi.so.40:MPI_Recv at depth 2",
		"0  oddeven:main           entered at event 0", "1  oddeven:oddEvenSort    entered at event 7", "2  libmpi.so.40:MPI_Recv  entered at event 10"} {
		if !strings.Contains(st, w) {
			t.Errorf("--stack-at lacks %q:\n%s", w, st)
		}
	}
	var sj struct {
		Stack []struct{ Func string }
	}
	if err := json.Unmarshal([]byte(ok(t, "decode", run, "-t", "2.0", "--stack-at", "11", "-f", "json")), &sj); err != nil || len(sj.Stack) != 3 || sj.Stack[2].Func != "MPI_Recv" {
		t.Errorf("--stack-at json: %+v %v", sj, err)
	}
}

func TestStatsOddEven4(t *testing.T) {
	run := filepath.Join(fixtureDir, "oddeven4")
	out := ok(t, "stats", run)
	if strings.Count(out, "== process ") != 4 {
		t.Errorf("stats shows %d processes, want 4:\n%s", strings.Count(out, "== process "), out)
	}
	for _, w := range []string{
		"== process 1: 1 trace, 36 events, 18 calls, 9 functions, max depth 3\nCALLS  FUNCTION\n    4  libmpi.so.40:MPI_Recv\n    4  libmpi.so.40:MPI_Send\n    4  oddeven:findPtr\n    1  libmpi.so.40:MPI_Comm_rank\n",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("stats lacks %q:\n%s", w, out)
		}
	}
	prog := ok(t, "stats", run, "--by", "program", "--edges")
	for _, w := range []string{"== program (4 processes): 4 traces, 128 events, 64 calls", "   16  oddeven:findPtr\n", "   12  oddeven:oddEvenSort  libmpi.so.40:MPI_Send\n", "    4  (root)               oddeven:main\n"} {
		if !strings.Contains(prog, w) {
			t.Errorf("stats --by program --edges lacks %q:\n%s", w, prog)
		}
	}
	if th := ok(t, "stats", run, "--by", "thread", "--top", "1"); strings.Count(th, "== thread ") != 4 || strings.Count(th, "\n") != 4*3+3 ||
		strings.Count(th, "    4  oddeven:findPtr\n") != 2 || strings.Count(th, "    4  libmpi.so.40:MPI_Recv\n") != 2 {
		t.Errorf("stats --by thread --top 1:\n%s", th)
	}
	csv := ok(t, "stats", run, "--by", "program", "--edges", "--format", "csv")
	for _, w := range []string{"program,kind,caller_image,caller,image,function,calls\n",
		"program,function,,,libmpi.so.40,MPI_Send,12\n",
		"program,edge,,(root),oddeven,main,4\n"} {
		if !strings.Contains(csv, w) {
			t.Errorf("csv lacks %q:\n%s", w, csv)
		}
	}
	var doc struct {
		By     string
		Groups []struct {
			Name      string
			Events    int
			Functions []struct {
				Func  string
				Calls int
			}
		}
	}
	if err := json.Unmarshal([]byte(ok(t, "stats", run, "--format", "json")), &doc); err != nil || doc.By != "process" || len(doc.Groups) != 4 ||
		doc.Groups[2].Events != 36 || doc.Groups[2].Functions[0].Func != "MPI_Recv" || doc.Groups[2].Functions[0].Calls != 4 {
		t.Errorf("stats json: %+v %v", doc, err)
	}
	// Output to a file.
	f := filepath.Join(t.TempDir(), "s.txt")
	if ok(t, "stats", run, "-o", f) != "" || string(mustRead(t, f)) != out {
		t.Error("stats -o did not write the same table to the file")
	}
}

// A difftrace run directory: the manifest says how each rank ended; a
// killed thread's open calls are shown, not refused.
func TestRunDirectory(t *testing.T) {
	dir := t.TempDir()
	info := []byte("+\n/bin/app\nmain\nsolve\n+\n/usr/lib/libmpi.so.40\nMPI_Recv\nMPI_Send\n")
	for r := range 4 {
		writeFile(t, filepath.Join(dir, "trace."+string(rune('0'+r))+".info"), info)
	}
	writeTrace(t, filepath.Join(dir, "trace.0.0"), []uint16{1, 2, 4, 0, 3, 0, 0, 0})
	writeTrace(t, filepath.Join(dir, "trace.0.1"), []uint16{2, 0})
	writeTrace(t, filepath.Join(dir, "trace.1.0"), []uint16{1, 2, 3}) // hung in MPI_Recv
	writeTrace(t, filepath.Join(dir, "trace.2.0"), []uint16{1, 2, 3, 0})
	writeTrace(t, filepath.Join(dir, "trace.3.0"), []uint16{1, 0})
	start := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	writeManifest(t, dir, &decode.Manifest{Schema: 1, Tool: "difftrace", ToolVersion: "0.1.0", Format: "parlot-17", Backend: "uftrace", Images: "main",
		Prefix: "trace", Command: []string{"./app", "--bug"}, Start: start, End: start.Add(30 * time.Second),
		Ranks: []decode.Rank{
			{Rank: 0, PID: 501, Host: "n1", Exited: true, Threads: []decode.Thread{{Thread: 0, Events: 8}, {Thread: 1, Events: 2}}},
			{Rank: 1, PID: 502, Host: "n1", Signal: "SIGTERM", KilledByTimeout: true, Note: "open frames added from a stack snapshot", Threads: []decode.Thread{{Thread: 0, Events: 2}}},
			{Rank: 2, PID: 503, Host: "n1", Signal: "SIGSEGV"},
		}})
	out := ok(t, "info", dir)
	for _, w := range []string{
		"format      difftrace run directory (process = rank)",
		"recorded by difftrace 0.1.0, backend uftrace, images main",
		"command     ./app --bug",
		"started     2025-03-01 10:00:00 UTC, ended 2025-03-01 10:00:30 UTC (30s)",
		"open calls  5 at the ends of traces",
		"note: rank 1: open frames added from a stack snapshot",
		"note: trace 1.0 holds 3 events but run.json records 2",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("info lacks %q:\n%s", w, out)
		}
	}
	for _, re := range []string{
		`(?m)^0\s+501\s+n1\s+2\s+10\s+4\s+exited 0$`,
		`(?m)^1\s+502\s+n1\s+1\s+3\s+3\s+timed out$`,
		`(?m)^2\s+503\s+n1\s+1\s+4\s+3\s+signal SIGSEGV$`,
		`(?m)^3\s+-\s+-\s+1\s+2\s+1\s+no record$`,
		`(?m)^1\.0\s+502\s+3\s+3\s+3\s+`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("info does not match %s:\n%s", re, out)
		}
	}
	tree := ok(t, "decode", dir, "-t", "1")
	if !strings.Contains(tree, "       2      > libmpi.so.40:MPI_Recv\n          (trace ends inside 3 open calls: app:main > app:solve > libmpi.so.40:MPI_Recv)\n") {
		t.Errorf("the hung trace's listing:\n%s", tree)
	}
	st := ok(t, "decode", dir, "-t", "1.0", "--stack-at", "2")
	if !strings.Contains(st, "2  libmpi.so.40:MPI_Recv  entered at event 2") {
		t.Errorf("stack of the hung trace:\n%s", st)
	}
	if s := ok(t, "stats", dir, "--by", "thread", "-t", "0"); strings.Count(s, "== thread 0.") != 2 {
		t.Errorf("stats of process 0's threads:\n%s", s)
	}

	// Ranks that ended alike share one note.
	dl := ok(t, "info", filepath.Join(runsDir, "oddeven-dlbug"))
	if !strings.Contains(dl, "\nnote: ranks 0–14: killed by capture's --timeout 10s; thread 0: MPI_Recv, the call it was blocked in") ||
		!strings.Contains(dl, "\nnote: rank 15: killed by capture's --timeout 10s; thread 0: MPI_Finalize") || strings.Count(dl, "note: ") != 2 {
		t.Errorf("info of the dlBug run's notes:\n%s", dl)
	}
}

func TestVersionHelpAndCompletion(t *testing.T) {
	if v := ok(t, "--version"); v != "difftrace version 9.8.7-test\n" {
		t.Errorf("--version printed %q", v)
	}
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		if out := ok(t, "completion", sh); !strings.Contains(out, "difftrace") || len(out) < 500 {
			t.Errorf("completion %s printed %d bytes", sh, len(out))
		}
	}
	// Completion of flag values works through the binary.
	if out := ok(t, "__complete", "stats", "x", "--by", ""); !strings.Contains(out, "thread\nprocess\nprogram\n") {
		t.Errorf("completing --by: %q", out)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"nlr", "x", "--filter", "mpi+om"}, []string{"\nmpi+omp\tOpenMP runtime calls", "\nmpi+omp.crit\t", "\nmpi+cust=\t"}},
		{[]string{"rank", "x", "y", "--filters", "mpi,omp+"}, []string{"\nmpi,omp+mem\t"}},
		{[]string{"rank", "x", "y", "--attrs", "sing.noFreq,"}, []string{"\nsing.noFreq,doub.log10\n"}},
		{[]string{"rank", "x", "y", "--linkage", ""}, []string{"\nward\n", "\nall\n"}},
		{[]string{"jsm", "x", "--level", ""}, []string{"thread\nprocess\n"}},
		{[]string{"diffnlr", "5", "--color", ""}, []string{"auto\nalways\nnever\n"}},
		{[]string{"capture", "--backend", ""}, []string{"uftrace\npin\n"}},
	} {
		out := "\n" + ok(t, append([]string{"__complete"}, c.args...)...)
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("completing %v: %q lacks %q", c.args, out, w)
			}
		}
	}
	// diffnlr's TRACE completes with the suspects of the session rank left.
	dir := t.TempDir()
	okIn(t, dir, "rank", absRun(t, "oddeven-normal"), absRun(t, "oddeven-swapbug"))
	if out := okIn(t, dir, "__complete", "diffnlr", ""); !strings.HasPrefix(out, "5.0\tthread most often the top suspect\n5\tprocess most often the top suspect\n") {
		t.Errorf("completing diffnlr's TRACE after rank: %q", out)
	}
	for _, c := range []string{"info", "decode", "stats", "convert"} {
		h := ok(t, c, "--help")
		if !strings.Contains(h, "Examples:\n  difftrace "+c) || !strings.Contains(h, "Usage:") {
			t.Errorf("%s --help has no examples:\n%s", c, h)
		}
	}
	// Help cites the dissertation by name: a user has no seeds/ directory.
	for _, c := range []string{"capture", "convert", "decode", "diffnlr", "filter", "info", "jsm", "lattice", "nlr", "rank", "stats"} {
		if h := ok(t, c, "--help"); strings.Contains(h, "seeds/") {
			t.Errorf("%s --help cites a source by its file in this project's notes: %q", c, h)
		}
	}
}

// The same inputs give byte-identical outputs whatever the core count.
func TestOutputsDoNotDependOnCores(t *testing.T) {
	run := filepath.Join(fixtureDir, "oddeven4")
	for _, args := range [][]string{
		{"info", run},
		{"stats", run, "--by", "thread", "--edges", "--format", "json"},
		{"stats", run, "--by", "program", "--edges", "--format", "csv"},
		{"decode", run, "--format", "flat"},
		{"rank", filepath.Join(runsDir, "ilcs-normal"), filepath.Join(runsDir, "ilcs-critbug"), "--format", "json", "--no-session"},
	} {
		var outs []string
		for _, procs := range []string{"1", "2", "7"} {
			r := difftraceEnv(t, []string{"GOMAXPROCS=" + procs}, args...)
			if r.code != 0 {
				t.Fatalf("%v: %s", args, r.stderr)
			}
			outs = append(outs, string(r.stdout))
		}
		if outs[0] != outs[1] || outs[0] != outs[2] {
			t.Errorf("difftrace %s: output depends on GOMAXPROCS", strings.Join(args, " "))
		}
	}
}

// A command that reads a run while its recorders still write it (the
// launcher returned after killing them) waits for them, and says so.
func TestWaitsForRecorders(t *testing.T) {
	dir := copyDir(t, filepath.Join(runsDir, "oddeven4-normal"))
	f, err := os.Create(filepath.Join(dir, ".run.active"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	released := make(chan time.Time, 1)
	go func() {
		time.Sleep(500 * time.Millisecond)
		released <- time.Now()
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	}()
	for _, args := range [][]string{{"info", dir}, {"nlr", dir}, {"decode", dir, "-t", "0.0"}} {
		r := difftrace(t, args...)
		if r.code != 0 || !strings.Contains(string(r.stderr), "waiting for the recorders still writing "+dir) {
			t.Errorf("difftrace %s: exit %d, stderr %q; want it to wait for the recorders", strings.Join(args, " "), r.code, r.stderr)
		}
		select {
		case <-released:
		default:
			t.Errorf("difftrace %s returned before the recorders let go", strings.Join(args, " "))
		}
		syscall.Flock(int(f.Fd()), syscall.LOCK_SH)
		go func() {
			time.Sleep(300 * time.Millisecond)
			released <- time.Now()
			syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		}()
	}
	<-released
}
