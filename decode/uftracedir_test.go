package decode

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/parlot"

	"github.com/difftrace/difftrace/internal/testenv"
	"github.com/difftrace/difftrace/trace"
	"github.com/difftrace/difftrace/uftrace"
	"github.com/difftrace/difftrace/uftrace/uftracetest"
)

// A program with two threads created one after the other (so creation order
// is fixed: thread 1 runs alpha, thread 2 runs beta) that forks a child
// running child_work. argv[1], if given, is the exit status.
const uftraceProg = `#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
int leaf(int x) { return x * 2; }
int alpha(int x) { int s = 0; for (int i = 0; i < 3; i++) s += leaf(x + i); return s; }
int beta(int x) { return leaf(x) + leaf(x + 1); }
void *run_alpha(void *a) { alpha(1); return 0; }
void *run_beta(void *a) { beta(2); return 0; }
int child_work(void) { return leaf(7); }
int main(int argc, char **argv) {
	pthread_t t;
	pthread_create(&t, 0, run_alpha, 0);
	pthread_join(t, 0);
	pthread_create(&t, 0, run_beta, 0);
	pthread_join(t, 0);
	pid_t c = fork();
	if (c == 0) { child_work(); _exit(0); }
	waitpid(c, 0, 0);
	return argc > 1 ? atoi(argv[1]) : 0;
}
`

// recordProg compiles uftraceProg with flags and records it with uftrace
// into dir (uftrace record -d dir prog args…).
func recordProg(t *testing.T, dir string, cflags []string, args ...string) string {
	t.Helper()
	testenv.Tools(t, "this test records a real program and needs it", "gcc", "uftrace")
	src := filepath.Join(t.TempDir(), "prog.c")
	if err := os.WriteFile(src, []byte(uftraceProg), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(filepath.Dir(src), "prog")
	if out, err := exec.Command("gcc", append(append([]string{"-O0", "-o", bin, src}, cflags...), "-lpthread")...).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	out, err := exec.Command("uftrace", append([]string{"record", "-d", dir, bin}, args...)...).CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("uftrace record: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "task.txt")); err != nil {
		t.Fatalf("uftrace record wrote no recording: %v\n%s", err, out)
	}
	return bin
}

// replayed returns uftrace's own reading of thread tid: the function name
// at each entry and "ret" at each exit.
func replayed(t *testing.T, dir string, tid int) []string {
	t.Helper()
	out, err := exec.Command("uftrace", "replay", "-d", dir, "-f", "none", "--no-comment", "--no-event", "--no-pager", "--tid", strconv.Itoa(tid)).Output()
	if err != nil {
		t.Fatalf("uftrace replay: %v", err)
	}
	var seq []string
	for _, l := range strings.Split(string(out), "\n") {
		switch l = strings.TrimSpace(l); {
		case strings.HasSuffix(l, "() {"):
			seq = append(seq, strings.TrimSuffix(l, "() {"))
		case strings.HasSuffix(l, "();"):
			seq = append(seq, strings.TrimSuffix(l, "();"), "ret")
		case l == "}" || strings.HasPrefix(l, "} /*"):
			seq = append(seq, "ret")
		case l == "" || strings.HasPrefix(l, "/*"):
		default:
			t.Fatalf("uftrace replay: unexpected line %q", l)
		}
	}
	return seq
}

// load opens dir and reads every trace, by ID.
func load(t *testing.T, dir string, opts Options) (*Run, map[trace.ID][]string) {
	t.Helper()
	tab := trace.NewTable()
	run, err := Open(dir, tab, opts)
	if err != nil {
		t.Fatal(err)
	}
	trs, err := run.Load(run.Traces())
	if err != nil {
		t.Fatal(err)
	}
	out := map[trace.ID][]string{}
	for _, tr := range trs {
		out[tr.ID] = names(tab, tr.Events)
	}
	return run, out
}

// TestOpenUftraceRecorded reads a real recording: which process and thread
// each trace is, and the very calls uftrace itself replays.
func TestOpenUftraceRecorded(t *testing.T) {
	for _, c := range []struct {
		name   string
		cflags []string
	}{
		{"pg", []string{"-pg"}},
		{"finstrument-functions", []string{"-finstrument-functions"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "uftrace.data")
			bin := recordProg(t, dir, c.cflags, "3")
			run, got := load(t, dir, Options{})
			if run.Format != FormatUftrace {
				t.Fatalf("format %q", run.Format)
			}
			want := []trace.ID{{Proc: 0, Thread: 0}, {Proc: 0, Thread: 1}, {Proc: 0, Thread: 2}, {Proc: 1, Thread: 0}}
			if !slices.Equal(run.Traces(), want) {
				t.Fatalf("traces %v, want %v (the program's main thread and two threads, then the forked child)", run.Traces(), want)
			}
			// Each trace holds what uftrace replays for its thread.
			data, err := uftrace.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range run.Procs {
				for _, tf := range p.Threads {
					tid, _ := strconv.Atoi(strings.TrimSuffix(filepath.Base(tf.Path), ".dat"))
					if r := replayed(t, dir, tid); !slices.Equal(got[tf.ID], r) {
						t.Errorf("trace %s (tid %d):\n got %v\nwant %v (uftrace replay)", tf.ID, tid, got[tf.ID], r)
					}
					if tf.Bytes == 0 {
						t.Errorf("trace %s: no size", tf.ID)
					}
				}
			}
			// The threads are the intended ones.
			for id, fn := range map[trace.ID]string{{Proc: 0, Thread: 0}: "main", {Proc: 0, Thread: 1}: "alpha", {Proc: 0, Thread: 2}: "beta", {Proc: 1, Thread: 0}: "child_work"} {
				if !slices.Contains(got[id], fn) {
					t.Errorf("trace %s does not call %s: %v", id, fn, got[id])
				}
			}
			if ps := data.Processes(); run.Procs[0].PID != ps[0] || run.Procs[1].PID != ps[1] {
				t.Errorf("pids %d %d, want %v", run.Procs[0].PID, run.Procs[1].PID, ps)
			}
			// The program's functions are in image trace.Program; the run
			// keeps the program's path, and shows its file name.
			tab := run.Symbols
			if s, ok := tab.Lookup(trace.Name{Image: trace.Program, Func: "alpha"}); !ok || s == trace.Return {
				t.Errorf("alpha is not named in the program's image")
			} else if n := run.Name(s).String(); n != "prog:alpha" {
				t.Errorf("alpha is shown as %s, want prog:alpha", n)
			}
			for _, p := range run.Procs {
				if p.Program != bin {
					t.Errorf("process %d: program %q, want %s", p.Index, p.Program, bin)
				}
			}
			// What uftrace's info says: command, exit status, host.
			m := run.Manifest
			if m == nil || m.Tool != "uftrace" || !strings.HasPrefix(m.ToolVersion, "v") || len(m.Command) != 2 || m.Command[0] != bin || m.Command[1] != "3" {
				t.Fatalf("manifest %+v", m)
			}
			if r := run.Procs[0].Rank; r == nil || !r.Exited || r.ExitStatus != 3 || r.Host == "" || len(r.Threads) != 3 {
				t.Errorf("process 0's record %+v: want exited with status 3, a host and 3 threads", r)
			}
			for i, th := range run.Procs[0].Rank.Threads {
				if th.Events != uint64(len(got[trace.ID{Proc: 0, Thread: i}])) {
					t.Errorf("thread %d: manifest says %d events, the trace holds %d", i, th.Events, len(got[trace.ID{Proc: 0, Thread: i}]))
				}
			}
			if r := run.Procs[1].Rank; r == nil || r.Exited || !strings.Contains(r.Note, "forked") {
				t.Errorf("process 1's record %+v: want a note that it was forked", r)
			}
			if len(run.Notes) != 0 {
				t.Errorf("notes on a clean recording: %v", run.Notes)
			}

			// One recording per rank: a directory of uftrace directories,
			// ranked by the number ending each name.
			ranks := t.TempDir()
			for _, n := range []string{"uftrace.1", "uftrace.0"} {
				if err := os.CopyFS(filepath.Join(ranks, n), os.DirFS(dir)); err != nil {
					t.Fatal(err)
				}
			}
			os.WriteFile(filepath.Join(ranks, "notes.txt"), []byte("not part of the run"), 0o644)
			run2, got2 := load(t, ranks, Options{})
			want2 := []trace.ID{{Proc: 0, Thread: 0}, {Proc: 0, Thread: 1}, {Proc: 0, Thread: 2}, {Proc: 1, Thread: 0}, {Proc: 1, Thread: 1}, {Proc: 1, Thread: 2}}
			if run2.Format != FormatUftrace || !slices.Equal(run2.Traces(), want2) {
				t.Fatalf("per-rank directories: %s, traces %v, want %v", run2.Format, run2.Traces(), want2)
			}
			for _, id := range want2 {
				if src := (trace.ID{Proc: 0, Thread: id.Thread}); !slices.Equal(got2[id], got[src]) {
					t.Errorf("rank directory trace %s differs from the recording's %s", id, src)
				}
			}
			if len(run2.Notes) != 2 || !strings.Contains(strings.Join(run2.Notes, "\n"), "forked") {
				t.Errorf("notes %v: want one per rank on the left-out child", run2.Notes)
			}
			if tf, _ := run2.Trace(trace.ID{Proc: 1, Thread: 0}); !strings.Contains(tf.Path, "uftrace.1") {
				t.Errorf("rank 1 read from %s", tf.Path)
			}
		})
	}
}

// TestOpenUftraceSynthetic reads the synthetic recording as a run: exits
// become Return, lost markers and events vanish, damage is noted.
func TestOpenUftraceSynthetic(t *testing.T) {
	dir := t.TempDir()
	uftracetest.Write(t, dir)
	run, got := load(t, dir, Options{Workers: 1})
	want := map[trace.ID][]string{
		{Proc: 0, Thread: 0}: {"main", "memcpy", "ret", "work", "helper", "ret", "dl_thing", "0xdead"},
		{Proc: 0, Thread: 1}: {"work", "ret"},
	}
	for id, w := range want {
		if !slices.Equal(got[id], w) {
			t.Errorf("trace %s: %v, want %v", id, got[id], w)
		}
	}
	if len(got) != 2 {
		t.Errorf("traces %v", run.Traces())
	}
	notes := strings.Join(run.Notes, "\n")
	for _, w := range []string{"trace 0.0: uftrace lost 3 records", fmt.Sprintf("trace 0.1: %s ends inside a record at byte 32", filepath.Join(dir, fmt.Sprint(uftracetest.PID+7)+".dat"))} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	if r := run.Procs[0].Rank; r == nil || !r.Exited || r.ExitStatus != 3 || r.Host != "node7" {
		t.Errorf("rank record %+v", r)
	}
	if m := run.Manifest; m.Command[0] != "/bin/app" || m.Command[1] != "-x" {
		t.Errorf("command %v", m.Command)
	}
	// Names are interned grouped by image, each image's functions by first
	// call, as convert numbers them.
	var order []string
	for s := 1; s < run.Symbols.Len(); s++ {
		order = append(order, run.Symbols.Name(trace.Symbol(s)).String())
	}
	if w := []string{"app:main", "app:memcpy", "app:work", "libfoo.so:helper", "libdl.so:dl_thing", "?:0xdead"}; !slices.Equal(order, w) {
		t.Errorf("symbols %v, want %v", order, w)
	}
	// The same, whatever the number of workers.
	tab := trace.NewTable()
	if _, err := Open(dir, tab, Options{Workers: 8}); err != nil {
		t.Fatal(err)
	}
	for s := 1; s < tab.Len(); s++ {
		if tab.Name(trace.Symbol(s)) != run.Symbols.Name(trace.Symbol(s)) {
			t.Errorf("symbol %d differs with 8 workers", s)
		}
	}
	// The event limit holds.
	r2, err := Open(dir, trace.NewTable(), Options{MaxEvents: 5})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r2.Load(r2.Traces())
	var le *parlot.LimitError
	if !errors.As(err, &le) || le.Max != 5 {
		t.Errorf("over the limit: %v", err)
	}
}

// TestOpenUftraceBroken checks that a damaged recording is refused with the
// file, where, and what to do.
func TestOpenUftraceBroken(t *testing.T) {
	dat := fmt.Sprint(uftracetest.PID) + ".dat"
	for _, c := range []struct {
		name string
		edit func(dir string)
		want []string
	}{
		{"no info", func(d string) { os.Remove(filepath.Join(d, "info")) }, []string{"no info file", "record the run again"}},
		{"bad info", func(d string) { os.WriteFile(filepath.Join(d, "info"), make([]byte, 64), 0o644) }, []string{"info: byte 0: not a uftrace info file", "record the run again"}},
		{"bad task line", func(d string) {
			os.WriteFile(filepath.Join(d, "task.txt"), []byte("SESS timestamp=1.0 pid=1 sid=x exename=\"/a\"\nTASK tid=x pid=1\n"), 0o644)
		}, []string{"task.txt:2: malformed TASK line", "record the run again"}},
		{"damaged record", func(d string) {
			b, _ := os.ReadFile(filepath.Join(d, dat))
			b[16+8] = 0xff // second record's magic
			os.WriteFile(filepath.Join(d, dat), b, 0o644)
		}, []string{dat + ": byte 16: bad record magic", "move this file out"}},
		{"data file is a directory", func(d string) {
			os.Remove(filepath.Join(d, dat))
			os.Mkdir(filepath.Join(d, dat), 0o755)
		}, []string{dat + ": cannot read: is a directory"}},
		{"arguments", func(d string) {
			os.WriteFile(filepath.Join(d, dat), uftracetest.Record(1, uftrace.Entry, true, 0, uftracetest.Base+0x1135), 0o644)
		}, []string{"arguments", "record without them"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			uftracetest.Write(t, dir)
			c.edit(dir)
			_, err := Open(dir, trace.NewTable(), Options{})
			if err == nil {
				t.Fatal("opened a damaged recording")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
	// A directory that is neither: the message names all three layouts.
	_, err := Open(t.TempDir(), trace.NewTable(), Options{})
	if err == nil || !strings.Contains(err.Error(), "uftrace record") {
		t.Errorf("empty directory: %v", err)
	}
}

// FuzzUftraceRun puts arbitrary bytes in a thread's data file of the
// synthetic recording: opening and reading the run must not panic, every
// error must be one line naming the file, and a run that opens must read
// back exactly the events its opening counted.
func FuzzUftraceRun(f *testing.F) {
	f.Add([]byte{})
	f.Add(uftracetest.Record(1, uftrace.Entry, false, 0, uftracetest.Base+0x1135))
	f.Add(append(uftracetest.Record(1, uftrace.Entry, false, 0, uftracetest.Base+0x1135), uftracetest.Record(2, uftrace.Exit, false, 0, uftracetest.Base+0x1135)...))
	f.Add(append(uftracetest.Record(3, uftrace.Event, true, 0, 7), 3, 0, 'a', 'b', 'c', 0, 0, 0))
	f.Add(uftracetest.Record(4, uftrace.Lost, false, 0, 9))
	f.Add(make([]byte, 40))
	dir := f.TempDir()
	uftracetest.Write(f, dir)
	dat := filepath.Join(dir, fmt.Sprint(uftracetest.PID)+".dat")
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(dat, b, 0o644); err != nil {
			t.Fatal(err)
		}
		run, err := Open(dir, trace.NewTable(), Options{Workers: 1})
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, dir) {
				t.Fatalf("error %q: want one line naming the recording", msg)
			}
			return
		}
		id := trace.ID{Proc: 0, Thread: 0}
		trs, err := run.Load([]trace.ID{id})
		if err != nil {
			t.Fatalf("opened, then failed to read: %v", err)
		}
		if got, want := uint64(len(trs[0].Events)), run.Procs[0].Rank.Threads[0].Events; got != want {
			t.Fatalf("read %d events, opening counted %d", got, want)
		}
		for _, s := range trs[0].Events {
			if int(s) >= run.Symbols.Len() {
				t.Fatalf("symbol %d outside the table", s)
			}
		}
	})
}

// BenchmarkUftraceRun measures reading a uftrace recording as a run: Open
// (the first pass, which names every function) and then streaming every
// trace as symbols (the second pass).
func BenchmarkUftraceRun(b *testing.B) {
	dir := b.TempDir()
	const n = 1 << 20
	size := uftracetest.WriteLong(b, dir, n)
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run, err := Open(dir, trace.NewTable(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		var events int
		for _, id := range run.Traces() {
			if err := run.Stream(id, func(c []trace.Symbol) error { events += len(c); return nil }); err != nil {
				b.Fatal(err)
			}
		}
		if events < n {
			b.Fatalf("%d events", events)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrecords/s")
}
