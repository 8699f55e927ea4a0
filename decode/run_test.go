package decode

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/difftrace/difftrace/parlot"
	"github.com/difftrace/difftrace/parlot/parlottest"

	"github.com/difftrace/difftrace/trace"
)

// writeTrace writes vals as a ParLOT trace file.
func writeTrace(t testing.TB, path string, vals []uint16) {
	t.Helper()
	if err := os.WriteFile(path, parlottest.Encode(t, vals, 1<<30), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fixtureDir holds the reference ParLOT files.
const fixtureDir = "../testdata/parlot"

const oddeven4 = fixtureDir + "/oddeven4"

// names renders a symbol sequence as "image:func" names, "ret" for exits.
func names(tab *trace.Table, ev []trace.Symbol) []string {
	out := make([]string, len(ev))
	for i, s := range ev {
		if s == trace.Return {
			out[i] = "ret"
		} else {
			out[i] = tab.Name(s).Func
		}
	}
	return out
}

func TestOpenParLOT(t *testing.T) {
	tab := trace.NewTable()
	run, err := Open(oddeven4, tab, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if run.Format != FormatParLOT || run.Manifest != nil {
		t.Errorf("format %q, manifest %v", run.Format, run.Manifest)
	}
	pids := []int{3208, 3213, 3216, 3218}
	if len(run.Procs) != 4 {
		t.Fatalf("%d processes, want 4", len(run.Procs))
	}
	for i, p := range run.Procs {
		if p.Index != i || p.PID != pids[i] || p.Host != "node01" || p.Funcs != 9 || len(p.Threads) != 1 {
			t.Errorf("process %d: %+v", i, p)
		}
	}
	if got := fmt.Sprint(run.Traces()); got != "[0.0 1.0 2.0 3.0]" {
		t.Errorf("traces %s", got)
	}
	// The tables differ in order (MPI_Send is 7 in some processes, 8 in
	// others); the symbols must not.
	if tab.Len() != 10 {
		t.Errorf("table has %d symbols, want 9 functions + Return", tab.Len())
	}
	// Images are identities: the program is trace.Program, a library its
	// file name; the run keeps the program's path and shows its file name.
	mainSym, ok1 := tab.Lookup(trace.Name{Image: trace.Program, Func: "main"})
	send, ok2 := tab.Lookup(trace.Name{Image: "libmpi.so.40", Func: "MPI_Send"})
	if !ok1 || !ok2 {
		t.Errorf("main or MPI_Send not interned by image identity: %v %v", ok1, ok2)
	}
	for _, p := range run.Procs {
		if p.Program != "/home/user/oddeven/oddeven" {
			t.Errorf("process %d: program %q", p.Index, p.Program)
		}
	}
	if got := run.Name(mainSym).String() + " " + run.Name(send).String() + " " + tab.Name(mainSym).String(); got != "oddeven:main libmpi.so.40:MPI_Send main" {
		t.Errorf("names shown: %s", got)
	}
	traces, err := run.Load(run.Traces())
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range traces {
		f := run.Procs[i].Threads[0].Path
		raw := parlottest.LoadU16(t, filepath.Join(oddeven4, "expected", filepath.Base(f)+".u16"))
		info, err := parlot.ReadFuncTable(run.Procs[i].Info)
		if err != nil {
			t.Fatal(err)
		}
		if len(raw) != len(tr.Events) {
			t.Fatalf("%s: %d events, want %d", tr.ID, len(tr.Events), len(raw))
		}
		for k, v := range raw {
			want := trace.Return
			if v != 0 {
				want, _ = tab.Lookup(canonical(info.Names[v-1], info.Program))
			}
			if tr.Events[k] != want {
				t.Fatalf("%s event %d: %v, want %v", tr.ID, k, tab.Name(tr.Events[k]), info.Names[v-1])
			}
		}
	}
	// Rank 0 (pid 3208) sends first; rank 1 (pid 3216, process 2) receives first.
	mpi := func(ev []trace.Symbol) string {
		var s []string
		for _, n := range names(tab, ev) {
			if strings.HasPrefix(n, "MPI_") {
				s = append(s, n)
			}
		}
		return strings.Join(s, " ")
	}
	if got, want := mpi(traces[0].Events), "MPI_Init MPI_Comm_rank MPI_Comm_size MPI_Send MPI_Recv MPI_Send MPI_Recv MPI_Finalize"; got != want {
		t.Errorf("process 0 MPI calls:\n got %s\nwant %s", got, want)
	}
	if got, want := mpi(traces[2].Events), "MPI_Init MPI_Comm_rank MPI_Comm_size MPI_Recv MPI_Send MPI_Recv MPI_Send MPI_Recv MPI_Send MPI_Recv MPI_Send MPI_Finalize"; got != want {
		t.Errorf("process 2 MPI calls:\n got %s\nwant %s", got, want)
	}
}

// TestOpenParLOTManifest: a run.json next to original ParLOT files maps
// pids to ranks (oddeven4's real ranks, see testdata/parlot/README.md).
func TestOpenParLOTManifest(t *testing.T) {
	dir := t.TempDir()
	for _, f := range mustGlob(t, filepath.Join(oddeven4, "Hdbg.*")) {
		b, _ := os.ReadFile(f)
		writeFile(t, filepath.Join(dir, filepath.Base(f)), string(b))
	}
	m := Manifest{Schema: 1, Ranks: []Rank{{Rank: 0, PID: 3208}, {Rank: 1, PID: 3216}, {Rank: 2, PID: 3213}, {Rank: 3, PID: 3218}}}
	b, _ := json.Marshal(m)
	writeFile(t, filepath.Join(dir, ManifestName), string(b))
	run, err := Open(dir, trace.NewTable(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, p := range run.Procs {
		got = append(got, p.PID)
		if p.Rank == nil || p.Rank.Rank != p.Index {
			t.Errorf("process %d has manifest record %+v", p.Index, p.Rank)
		}
	}
	if !slices.Equal(got, []int{3208, 3216, 3213, 3218}) {
		t.Errorf("pids by rank: %v", got)
	}
}

func mustGlob(t testing.TB, pat string) []string {
	m, err := filepath.Glob(pat)
	if err != nil || len(m) == 0 {
		t.Fatalf("no files match %s", pat)
	}
	return m
}

// makeRunDir writes a run directory of this project's layout: rank r has
// the given tables (one .info per rank) and thread sequences.
func makeRunDir(t testing.TB, dir string, infos []string, threads [][][]uint16, manifest *Manifest) {
	t.Helper()
	for r, info := range infos {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("trace.%d.info", r)), info)
		for th, vals := range threads[r] {
			writeTrace(t, filepath.Join(dir, fmt.Sprintf("trace.%d.%d", r, th)), vals)
		}
	}
	if manifest != nil {
		b, err := json.MarshalIndent(manifest, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, ManifestName), string(b))
	}
}

func TestOpenRunDir(t *testing.T) {
	dir := t.TempDir()
	m := &Manifest{Schema: 1, Tool: "difftrace", Prefix: "trace", Backend: "uftrace",
		Ranks: []Rank{{Rank: 0, PID: 100, Host: "h", Exited: true}, {Rank: 1, PID: 99, Host: "h", Signal: "SIGTERM", KilledByTimeout: true}, {Rank: 2, PID: 98}}}
	makeRunDir(t, dir,
		[]string{"+\n/bin/app\nmain\nwork\n+\n/lib/libgomp.so\nGOMP_parallel\n", "+\n/bin/app\nwork\nmain\n"},
		[][][]uint16{{{1, 3, 2, 0, 0, 0}, {2, 0, 2, 0}}, {{2, 1}}}, m)
	tab := trace.NewTable()
	run, err := Open(dir, tab, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if run.Format != FormatRun || run.Manifest == nil {
		t.Fatalf("format %q manifest %v", run.Format, run.Manifest)
	}
	if got := fmt.Sprint(run.Traces()); got != "[0.0 0.1 1.0]" {
		t.Errorf("traces %s", got)
	}
	if p := run.Procs[1]; p.PID != 99 || p.Rank == nil || !p.Rank.KilledByTimeout {
		t.Errorf("rank 1: %+v", p)
	}
	if !slices.Contains(run.Notes, "rank 2 is in run.json but left no traces") {
		t.Errorf("notes %q", run.Notes)
	}
	traces, err := run.Load(run.Traces())
	if err != nil {
		t.Fatal(err)
	}
	got := [][]string{}
	for _, tr := range traces {
		got = append(got, names(tab, tr.Events))
	}
	want := [][]string{
		{"main", "GOMP_parallel", "work", "ret", "ret", "ret"},
		{"work", "ret", "work", "ret"},
		{"main", "work"}, // killed: open calls at the end are valid
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("events\n got %v\nwant %v", got, want)
	}
	// Symbols are interned in process order, whatever the worker count.
	for _, w := range []int{1, 2, 8} {
		tab2 := trace.NewTable()
		if _, err := Open(dir, tab2, Options{Workers: w}); err != nil {
			t.Fatal(err)
		}
		for s := 1; s < tab.Len(); s++ {
			if tab2.Name(trace.Symbol(s)) != tab.Name(trace.Symbol(s)) {
				t.Errorf("workers=%d: symbol %d differs", w, s)
			}
		}
	}
	// Select.
	for sel, want := range map[string]string{"": "[0.0 0.1 1.0]", "0": "[0.0 0.1]", "1.0,0.1": "[0.1 1.0]", "0,0.1": "[0.0 0.1]"} {
		ids, err := run.Select(sel)
		if err != nil || fmt.Sprint(ids) != want {
			t.Errorf("Select(%q) = %v, %v; want %s", sel, ids, err, want)
		}
	}
	for sel, msg := range map[string]string{"5": "no process 5 in this run (it has processes 0 to 1", "0.7": "no trace 0.7 in this run", "x": "want P.T"} {
		if _, err := run.Select(sel); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("Select(%q) error %v, want %q", sel, err, msg)
		}
	}
}

func TestRunDirWithoutManifest(t *testing.T) {
	dir := t.TempDir()
	makeRunDir(t, dir, []string{"+\n/bin/a\nf\n"}, [][][]uint16{{{1, 0}}}, nil)
	run, err := Open(dir, trace.NewTable(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if run.Format != FormatRun || run.Manifest != nil || run.Procs[0].Rank != nil {
		t.Errorf("%+v", run)
	}
}

func TestStackAndStats(t *testing.T) {
	tab := trace.NewTable()
	run, err := Open(oddeven4, tab, Options{})
	if err != nil {
		t.Fatal(err)
	}
	id := trace.ID{Proc: 0, Thread: 0}
	// 1 4 0 5 0 6 0 2 3 0 7 0 8 ...: event 10 enters MPI_Send inside oddEvenSort.
	ev, frames, err := run.StackAt(id, 10)
	if err != nil {
		t.Fatal(err)
	}
	stack := func(fr []Frame) string {
		var s []string
		for _, f := range fr {
			s = append(s, fmt.Sprintf("%s@%d", tab.Name(f.Func).Func, f.Event))
		}
		return strings.Join(s, " ")
	}
	if ev.Exit || tab.Name(ev.Func).Func != "MPI_Send" || ev.Depth != 2 || stack(frames) != "main@0 oddEvenSort@7 MPI_Send@10" {
		t.Errorf("event 10: %+v, stack %s", ev, stack(frames))
	}
	// Event 11 is MPI_Send's exit: the stack still shows it.
	ev, frames, err = run.StackAt(id, 11)
	if err != nil || !ev.Exit || tab.Name(ev.Func).Func != "MPI_Send" || ev.Depth != 2 || stack(frames) != "main@0 oddEvenSort@7 MPI_Send@10" {
		t.Errorf("event 11: %+v, stack %s, %v", ev, stack(frames), err)
	}
	if _, _, err := run.StackAt(id, 28); err == nil || !strings.Contains(err.Error(), "event 28 is past the end of trace 0.0, which has 28 events (0 to 27)") {
		t.Errorf("past the end: %v", err)
	}
	// Walk: depths of the listing.
	var depths []int
	if err := run.Walk(id, func(e Event) error { depths = append(depths, e.Depth); return nil }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(depths[:12]) != "[0 1 1 1 1 1 1 1 2 2 2 2]" || depths[27] != 0 {
		t.Errorf("depths %v", depths)
	}

	stats, err := run.Summarize(run.Traces(), true)
	if err != nil {
		t.Fatal(err)
	}
	count := func(st *Stats, fn string) uint64 {
		for _, f := range st.Funcs {
			if tab.Name(f.Func).Func == fn {
				return f.Calls
			}
		}
		return 0
	}
	edge := func(st *Stats, from, to string) uint64 {
		for _, e := range st.Edges {
			caller := "<root>"
			if e.Caller != trace.Return {
				caller = tab.Name(e.Caller).Func
			}
			if caller == from && tab.Name(e.Callee).Func == to {
				return e.Calls
			}
		}
		return 0
	}
	s0 := stats[0]
	if s0.Events != 28 || s0.Calls != 14 || s0.Open != 0 || s0.MaxDepth != 3 || len(s0.Funcs) != 9 ||
		count(s0, "findPtr") != 4 || count(s0, "MPI_Send") != 2 || edge(s0, "oddEvenSort", "MPI_Recv") != 2 || edge(s0, "<root>", "main") != 1 {
		t.Errorf("process 0 stats %+v", s0)
	}
	groups := GroupStats(run.Traces(), stats, ByProgram)
	if len(groups) != 1 || groups[0].Stats.Traces != 4 || groups[0].Stats.Events != 128 ||
		count(groups[0].Stats, "MPI_Send") != 12 || edge(groups[0].Stats, "oddEvenSort", "MPI_Send") != 12 || len(groups[0].Procs) != 4 {
		t.Errorf("program stats %+v", groups[0].Stats)
	}
	top := groups[0].Stats.ByCalls(tab)
	if tab.Name(top[0].Func).Func != "findPtr" || top[0].Calls != 16 {
		t.Errorf("most called: %v %d", tab.Name(top[0].Func), top[0].Calls)
	}
	if g := GroupStats(run.Traces(), stats, ByProcess); len(g) != 4 || g[3].Name != "3" {
		t.Errorf("process groups %+v", g)
	}
}

func TestKilledThreadStats(t *testing.T) {
	dir := t.TempDir()
	makeRunDir(t, dir, []string{"+\n/bin/a\nmain\nsolve\nMPI_Recv\n"}, [][][]uint16{{{1, 2, 3, 0, 3}}}, nil)
	run, err := Open(dir, trace.NewTable(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := run.Summarize(run.Traces(), false)
	if err != nil {
		t.Fatal(err)
	}
	if st[0].Open != 3 || st[0].Calls != 4 || st[0].Unmatched != 0 || st[0].Edges != nil {
		t.Errorf("%+v", st[0])
	}
	_, frames, err := run.StackAt(trace.ID{}, 4)
	if err != nil || len(frames) != 3 {
		t.Errorf("stack at the last event: %v %v", frames, err)
	}
}

// Bad input: each error names the file and the place, says what to do, is
// one line.
func TestOpenErrors(t *testing.T) {
	good := "+\n/bin/a\nmain\nf\n"
	okTrace := []uint16{1, 2, 0, 0}
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T, dir string)
		want   []string // substrings; {dir} is replaced
		atOpen bool
	}{
		{"empty directory", func(*testing.T, string) {}, []string{"{dir}: no traces found: expected a difftrace run", "give the directory a capture or uftrace record wrote"}, true},
		{"traces without tables", func(t *testing.T, dir string) {
			writeTrace(t, filepath.Join(dir, "trace.0.0"), okTrace)
		}, []string{"{dir}: 1 trace files but no .info function table", "copy the .info files"}, true},
		{"trace without its table", func(t *testing.T, dir string) {
			makeRunDir(t, dir, []string{good}, [][][]uint16{{okTrace}}, nil)
			writeTrace(t, filepath.Join(dir, "trace.1.0"), okTrace)
		}, []string{"{dir}/trace.1.0: trace file without its function table trace.1.info", "copy the .info file"}, true},
		{"trace is a directory", func(t *testing.T, dir string) {
			makeRunDir(t, dir, []string{good}, [][][]uint16{{okTrace}}, nil)
			os.Mkdir(filepath.Join(dir, "trace.0.1"), 0o755)
		}, []string{"{dir}/trace.0.1: cannot read: is a directory, not a file"}, true},
		{"info is a directory", func(t *testing.T, dir string) {
			os.Mkdir(filepath.Join(dir, "trace.0.info"), 0o755)
			writeTrace(t, filepath.Join(dir, "trace.0.0"), okTrace)
		}, []string{"{dir}/trace.0.info: cannot read: is a directory"}, true},
		{"dangling symlink", func(t *testing.T, dir string) {
			makeRunDir(t, dir, []string{good}, [][][]uint16{{okTrace}}, nil)
			os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, "trace.0.1"))
		}, []string{"{dir}/trace.0.1: cannot read: the file does not exist (a dangling symbolic link"}, true},
		{"fifo", func(t *testing.T, dir string) {
			makeRunDir(t, dir, []string{good}, [][][]uint16{{okTrace}}, nil)
			if err := syscall.Mkfifo(filepath.Join(dir, "trace.0.1"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, []string{"{dir}/trace.0.1: cannot read: not a regular file", "copy the real file"}, true},
		{"malformed info", func(t *testing.T, dir string) {
			makeRunDir(t, dir, []string{"main\n"}, [][][]uint16{{okTrace}}, nil)
		}, []string{"{dir}/trace.0.info: line 1: malformed ParLOT function table"}, true},
		{"malformed manifest", func(t *testing.T, dir string) {
			makeRunDir(t, dir, []string{good}, [][][]uint16{{okTrace}}, nil)
			writeFile(t, filepath.Join(dir, ManifestName), `{"schema": 1,`)
		}, []string{"{dir}/run.json: byte ", "malformed run manifest", "fix or remove the file"}, true},
		{"unknown id", func(t *testing.T, dir string) {
			makeRunDir(t, dir, []string{good}, [][][]uint16{{{1, 2, 0, 3, 0, 0}}}, nil)
		}, []string{"{dir}/trace.0.0: byte 3: event 3 calls function ID 3, but {dir}/trace.0.info defines only IDs 1 to 2", "put the .info written by the same process next to the trace"}, false},
		{"truncated trace", func(t *testing.T, dir string) {
			makeRunDir(t, dir, []string{good}, [][][]uint16{{okTrace}}, nil)
			b, _ := os.ReadFile(filepath.Join(dir, "trace.0.0"))
			writeFile(t, filepath.Join(dir, "trace.0.0"), string(b[:len(b)-2]))
		}, []string{"{dir}/trace.0.0: byte 0: corrupt ParLOT trace: ", "the file is truncated", "recapture it or restore it"}, false},
		{"bad trailer", func(t *testing.T, dir string) {
			makeRunDir(t, dir, []string{good}, [][][]uint16{{okTrace}}, nil)
			b, _ := os.ReadFile(filepath.Join(dir, "trace.0.0"))
			b[len(b)-1] = 9
			writeFile(t, filepath.Join(dir, "trace.0.0"), string(b))
		}, []string{"{dir}/trace.0.0: byte ", "corrupt ParLOT trace: trailer byte is 9, want 1 to 4"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			run, err := Open(dir, trace.NewTable(), Options{})
			if !tc.atOpen {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				_, err = run.Summarize(run.Traces(), false)
			}
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			for _, w := range tc.want {
				w = strings.ReplaceAll(w, "{dir}", dir)
				if !strings.Contains(msg, w) {
					t.Errorf("error %q\nlacks %q", msg, w)
				}
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error is not one line: %q", msg)
			}
		})
	}
}

func TestMaxEvents(t *testing.T) {
	dir := t.TempDir()
	vals := make([]uint16, 0, 20000)
	for range 5000 {
		vals = append(vals, 1, 2, 0, 0)
	}
	makeRunDir(t, dir, []string{"+\n/bin/a\nmain\nf\n"}, [][][]uint16{{vals}}, nil)
	run, err := Open(dir, trace.NewTable(), Options{MaxEvents: 1000})
	if err != nil {
		t.Fatal(err)
	}
	_, err = run.Summarize(run.Traces(), false)
	var le *parlot.LimitError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), filepath.Join(dir, "trace.0.0")+": byte ") ||
		!strings.Contains(err.Error(), "more than 1000 events (the event limit); raise the limit") {
		t.Errorf("got %v", err)
	}
}

func TestOpenNotADirectory(t *testing.T) {
	f := filepath.Join(oddeven4, "Hdbg.17.node01.3208.0")
	_, err := Open(f, trace.NewTable(), Options{})
	if err == nil || !strings.Contains(err.Error(), f+": is a file, not a run directory") || !strings.Contains(err.Error(), "parlot.NewReader") {
		t.Errorf("got %v", err)
	}
	_, err = Open(filepath.Join(t.TempDir(), "nope"), trace.NewTable(), Options{})
	if err == nil || !strings.Contains(err.Error(), "no such run directory") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("got %v", err)
	}
}

// Where run.json and the trace files disagree, the run says so, one line
// each: a listed thread with no file, a rank listed with no threads while
// its trace exists, a size or an event count that is not the file's.
func TestManifestDisagreements(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "testdata", "runs", "oddeven4-normal"))); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(filepath.Join(dir, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	m.Ranks[0].Threads = append(m.Ranks[0].Threads, Thread{Thread: 3, Events: 10})
	m.Ranks[1].Threads = []Thread{}
	m.Ranks[2].Threads[0].Bytes++
	m.Ranks[3].Threads[0].Events = 300006
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, ManifestName), b, 0o644); err != nil {
		t.Fatal(err)
	}
	run, err := Open(dir, trace.NewTable(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.Load(run.Traces()); err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(append(run.Notes, run.TraceNotes()...), "\n")
	for _, want := range []string{
		"run.json lists thread 0.3, but there is no trace file for it",
		"run.json lists no threads for rank 1, but its trace 1.0 exists",
		"trace 2.0: run.json says",
		"trace 3.0: run.json counts 300006 events, the trace holds",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	// The committed runs agree with their manifests: no such note.
	for _, name := range []string{"oddeven-normal", "oddeven-dlbug", "ilcs-critbug", "stencil-skipbug"} {
		run, err := Open(filepath.Join("..", "testdata", "runs", name), trace.NewTable(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := run.Load(run.Traces()); err != nil {
			t.Fatal(err)
		}
		if n := append(run.Notes, run.TraceNotes()...); len(n) > 0 {
			t.Errorf("%s: notes %q, want none", name, n)
		}
	}
}

// A run.json that contradicts itself is refused, the error naming the file
// and the field; one that is not capture's at all (null, {}) says so
// rather than asking for a newer difftrace.
func TestManifestContradictions(t *testing.T) {
	base, err := ReadManifest(filepath.Join("..", "testdata", "runs", "oddeven4-normal", ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, json string
		edit       func(m *Manifest)
		want       string
	}{
		{name: "null", json: "null", want: "run.json has no schema: it was not written by difftrace capture (or is damaged)"},
		{name: "empty", json: "{}", want: "run.json has no schema: it was not written by difftrace capture (or is damaged)"},
		{name: "newer", json: `{"schema": 2}`, want: "manifest schema 2 is newer than this difftrace reads (1 to 1); use a newer difftrace"},
		{name: "duplicate", edit: func(m *Manifest) { m.Ranks[3].Rank = 1; m.Ranks[3].ExitStatus = 3 },
			want: "run.json: ranks[3].rank: 1, and ranks[1] is rank 1 too (exited 0 there, exited 3 here): a rank is listed once"},
		{name: "beyond", edit: func(m *Manifest) { m.Size = 4; m.Ranks[3].Rank = 99 },
			want: "run.json: ranks[3].rank: 99, but the run has 4 ranks (size)"},
		{name: "negative", edit: func(m *Manifest) { m.Ranks[0].Rank = -1 },
			want: "run.json: ranks[0].rank: -1, a rank cannot be negative"},
		{name: "exited-and-killed", edit: func(m *Manifest) { m.Ranks[2].Signal = "SIGTERM" },
			want: `run.json: ranks[2]: exited is true (status 0) and signal is "SIGTERM": a process either exits or is killed`},
		{name: "status-without-exit", edit: func(m *Manifest) { m.Ranks[2].Exited = false; m.Ranks[2].ExitStatus = 1 },
			want: "run.json: ranks[2].exit_status: 1, but exited is false"},
		{name: "status-range", edit: func(m *Manifest) { m.Ranks[2].ExitStatus = 300 },
			want: "run.json: ranks[2].exit_status: 300, an exit status is 0 to 255"},
		{name: "thread-twice", edit: func(m *Manifest) { m.Ranks[1].Threads = append(m.Ranks[1].Threads, m.Ranks[1].Threads[0]) },
			want: "run.json: ranks[1].threads[1].thread: 0, and ranks[1].threads[0] is thread 0 too"},
		{name: "peer", edit: func(m *Manifest) {
			m.Size = 4
			m.Ranks[0].Threads[0].Waiting = &Waiting{Call: "MPI_Recv", Peers: []int{7}}
		}, want: "run.json: ranks[0].threads[0].waiting.peers[0]: 7, not a rank of the run (size 4)"},
		{name: "prefix", edit: func(m *Manifest) { m.Prefix = "../trace" }, want: `run.json: prefix: "../trace" is not a file-name prefix`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := []byte(tc.json)
			if tc.edit != nil {
				var m Manifest
				raw, _ := json.Marshal(base)
				json.Unmarshal(raw, &m)
				tc.edit(&m)
				b, _ = json.Marshal(&m)
			}
			path := filepath.Join(t.TempDir(), ManifestName)
			writeFile(t, path, string(b))
			_, err := ReadManifest(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), path) {
				t.Errorf("got %v\nwant %s: …%s…", err, path, tc.want)
			}
		})
	}
	// Every committed run reads as before.
	for _, glob := range []string{"runs", "noise"} {
		ms, _ := filepath.Glob(filepath.Join("..", "testdata", glob, "*", ManifestName))
		for _, p := range ms {
			if _, err := ReadManifest(p); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		}
	}
}

// copyRun copies a committed run into a new directory.
func copyRun(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "testdata", "runs", name))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// copyFile copies the file from into to.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A run directory whose traces are not of one run is refused, naming the
// odd file: without run.json, a process of another program; with it, a
// rank or a thread the manifest does not list, or a rank beyond its size.
func TestForeignTraces(t *testing.T) {
	t.Run("other program", func(t *testing.T) {
		dir := t.TempDir()
		app := "+\n/bin/app\nmain\nwork\n"
		makeRunDir(t, dir, []string{app, app, "+\n/other/tool\nmain\nwork\n", app},
			[][][]uint16{{{1, 2, 0, 0}}, {{1, 2, 0, 0}}, {{1, 2, 0, 2, 0, 0}}, {{1, 0}}}, nil)
		_, err := Open(dir, trace.NewTable(), Options{})
		want := filepath.Join(dir, "trace.2.info") + ": process 2 is of the program /other/tool, but 3 of the run's 4 processes are of /bin/app"
		var me *MixedProgramsError
		if !errors.As(err, &me) || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "Options.MixedPrograms") {
			t.Errorf("got %v\nwant %s…", err, want)
		}
		run, err := Open(dir, trace.NewTable(), Options{MixedPrograms: true})
		if err != nil || len(run.Procs) != 4 || run.ProgramName() != "app|tool" {
			t.Errorf("with MixedPrograms: %v", err)
		}
	})
	// setSize records the run's size in a copied run's manifest, as
	// capture does since it records it.
	setSize := func(t *testing.T, dir string, size int) {
		m, err := ReadManifest(filepath.Join(dir, ManifestName))
		if err != nil {
			t.Fatal(err)
		}
		m.Size = size
		b, _ := json.Marshal(m)
		writeFile(t, filepath.Join(dir, ManifestName), string(b))
	}
	t.Run("rank not listed", func(t *testing.T) {
		dir := copyRun(t, "oddeven4-normal")
		copyFile(t, filepath.Join(dir, "trace.1.info"), filepath.Join(dir, "trace.3.info"))
		copyFile(t, filepath.Join(dir, "trace.1.0"), filepath.Join(dir, "trace.3.0"))
		m, _ := ReadManifest(filepath.Join(dir, ManifestName))
		m.Ranks = m.Ranks[:3]
		b, _ := json.Marshal(m)
		writeFile(t, filepath.Join(dir, ManifestName), string(b))
		// A manifest of an older capture (no size) may lack a rank whose
		// recorder was killed: a note.
		run, err := Open(dir, trace.NewTable(), Options{})
		if note := "rank 3 has traces but is not in run.json, which lists ranks 0 to 2"; err != nil || !slices.ContainsFunc(run.Notes, func(n string) bool { return strings.HasPrefix(n, note) }) {
			t.Errorf("without size: %v, notes %q; want the note %q…", err, run.Notes, note)
		}
		setSize(t, dir, 4)
		_, err = Open(dir, trace.NewTable(), Options{})
		want := filepath.Join(dir, "trace.3.info") + ": rank 3 is not in run.json (which lists ranks 0 to 2): the file is from another run"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("got %v\nwant %s…", err, want)
		}
	})
	t.Run("rank beyond size", func(t *testing.T) {
		dir := copyRun(t, "oddeven4-normal")
		m, err := ReadManifest(filepath.Join(dir, ManifestName))
		if err != nil {
			t.Fatal(err)
		}
		m.Size = 3
		m.Ranks = m.Ranks[:3]
		b, _ := json.Marshal(m)
		writeFile(t, filepath.Join(dir, ManifestName), string(b))
		_, err = Open(dir, trace.NewTable(), Options{})
		want := filepath.Join(dir, "trace.3.info") + ": rank 3, but run.json says the run had 3 processes: the file is from another run"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("got %v\nwant %s…", err, want)
		}
	})
	t.Run("thread not listed", func(t *testing.T) {
		dir := copyRun(t, "oddeven4-normal")
		copyFile(t, filepath.Join(dir, "trace.2.0"), filepath.Join(dir, "trace.2.7"))
		run, err := Open(dir, trace.NewTable(), Options{})
		if note := "trace 2.7 is not listed in run.json"; err != nil || !slices.ContainsFunc(run.Notes, func(n string) bool { return strings.HasPrefix(n, note) }) {
			t.Errorf("without size: %v, notes %q; want the note %q…", err, run.Notes, note)
		}
		setSize(t, dir, 4)
		_, err = Open(dir, trace.NewTable(), Options{})
		want := filepath.Join(dir, "trace.2.7") + ": trace 2.7 is not among the 1 threads run.json lists for rank 2: the file is from another run"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("got %v\nwant %s…", err, want)
		}
	})
}
