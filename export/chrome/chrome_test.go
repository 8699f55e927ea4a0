package chrome_test

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/export/chrome"
	"github.com/difftrace/difftrace/export/chrome/chrometest"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/trace"
)

const runs = "../../testdata/runs"

// table interns the names, symbols 1, 2, … in order.
func table(names ...string) *trace.Table {
	tab := trace.NewTable()
	for _, n := range names {
		tab.Intern(trace.Name{Image: "app", Func: n})
	}
	return tab
}

// validate checks the JSON in b and lists its events as "ph name ts"
// (instants with their scope, metadata left out).
func validate(t *testing.T, b []byte) (*chrometest.Summary, []string) {
	t.Helper()
	var got []string
	s, err := chrometest.Validate(bytes.NewReader(b), func(e chrometest.Event) {
		switch e.Ph {
		case "M":
		case "i":
			got = append(got, fmt.Sprintf("i/%s %s %d", e.Scope, e.Name, e.TS))
		default:
			u := ""
			if e.Args["unfinished"] == true {
				u = " unfinished"
			}
			got = append(got, fmt.Sprintf("%s %s %d%s", e.Ph, e.Name, e.TS, u))
		}
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return s, got
}

// A track's events become nested slices at their indices; an exit that
// closes nothing is passed over, and calls open at the end are closed one
// tick after the last event, marked, with an instant saying how many.
func TestTrack(t *testing.T) {
	tab := table("main", "send", "compute", "recv")
	main, send, compute, recv := trace.Symbol(1), trace.Symbol(2), trace.Symbol(3), trace.Symbol(4)
	events := []trace.Symbol{trace.Return, main, send, trace.Return, compute, send, trace.Return, trace.Return, recv}
	for _, tc := range []struct {
		name string
		keep func(trace.Symbol) bool
		want []string
	}{
		{"all", nil, []string{
			"B main 1", "B send 2", "E send 3", "B compute 4", "B send 5", "E send 6", "E compute 7", "B recv 8",
			"i/t trace ends inside 2 open calls 9", "E recv 9 unfinished", "E main 9 unfinished"}},
		// The filter hides main and compute; the send inside compute
		// keeps its time.
		{"filtered", func(s trace.Symbol) bool { return s == send || s == recv }, []string{
			"B send 2", "E send 3", "B send 5", "E send 6", "B recv 8",
			"i/t trace ends inside 1 open call 9", "E recv 9 unfinished"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			w := chrome.NewWriter(&b, chrome.Options{Names: tab, Keep: tc.keep})
			if err := w.Process(2, "rank 2", 2); err != nil {
				t.Fatal(err)
			}
			if err := w.Thread(2, 1, "thread 1"); err != nil {
				t.Fatal(err)
			}
			tr := w.Track(2, 1, 0)
			// In two chunks, as a decoder hands them over.
			if err := tr.Write(events[:5]); err != nil {
				t.Fatal(err)
			}
			if err := tr.Write(events[5:]); err != nil {
				t.Fatal(err)
			}
			if err := tr.Close(); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			s, got := validate(t, b.Bytes())
			if !slices.Equal(got, tc.want) {
				t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if s.Processes[2] != "rank 2" || s.Threads[chrometest.Track{PID: 2, TID: 1}] != "thread 1" {
				t.Errorf("names %v %v", s.Processes, s.Threads)
			}
			if s.DisplayTimeUnit != chrome.DisplayTimeUnit || s.OtherData["clock"] != chrome.Clock {
				t.Errorf("displayTimeUnit %q, otherData %v", s.DisplayTimeUnit, s.OtherData)
			}
			open := strings.Count(strings.Join(tc.want, "\n"), "unfinished")
			if n := s.OtherData["unfinished_slices"]; n != float64(open) {
				t.Errorf("otherData unfinished_slices %v, want %d", n, open)
			}
		})
	}
}

// Names from traces are anyone's to write: quotes, backslashes, control
// characters and invalid UTF-8 come out as valid JSON strings.
func TestHostileNames(t *testing.T) {
	tab := trace.NewTable()
	s := tab.Intern(trace.Name{Image: "lib\"x\\.so", Func: "f\"}]\n\x1b[31m\xff"})
	var b bytes.Buffer
	w := chrome.NewWriter(&b, chrome.Options{Names: tab, Metadata: map[string]any{"run": "a\"b"}})
	w.Process(0, "rank 0", 0)
	w.Thread(0, 0, "thread 0")
	tr := w.Track(0, 0, 0)
	if err := tr.Write([]trace.Symbol{s, trace.Return}); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, got := validate(t, b.Bytes())
	if len(got) != 2 || !strings.HasPrefix(got[0], "B f\"}]\n\x1b[31m\ufffd ") {
		t.Errorf("events %q", got)
	}
}

// An empty Writer still writes a valid object, and writing after Close
// fails.
func TestWriterEmptyAndClosed(t *testing.T) {
	var b bytes.Buffer
	w := chrome.NewWriter(&b, chrome.Options{})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	s, _ := validate(t, b.Bytes())
	if s.Events != 0 {
		t.Errorf("%d events", s.Events)
	}
	if err := w.Process(0, "rank 0", 0); err == nil {
		t.Error("Process after Close: no error")
	}
}

// A failing io.Writer's error comes back wrapped.
func TestWriterError(t *testing.T) {
	w := chrome.NewWriter(failing{}, chrome.Options{Names: table("main")})
	tr := w.Track(0, 0, 0)
	var err error
	for i := 0; i < 1e5 && err == nil; i++ {
		err = tr.Write([]trace.Symbol{1, trace.Return})
	}
	if err == nil {
		err = w.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("error %v, want the writer's", err)
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, fmt.Errorf("disk full") }

// open opens a committed run.
func open(t *testing.T, name string, tab *trace.Table) *decode.Run {
	t.Helper()
	if tab == nil {
		tab = trace.NewTable()
	}
	run, err := decode.Open(filepath.Join(runs, name), tab, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// keepOf compiles a filter spec ("" for every call).
func keepOf(t *testing.T, spec string, tab *trace.Table) func(trace.Symbol) bool {
	if spec == "" {
		return nil
	}
	f, err := filters.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return f.Compile(tab).Keep
}

// direct counts, straight from the decoded events, the calls a filter
// keeps in a trace and how many of them are open at its end.
func direct(t *testing.T, run *decode.Run, id trace.ID, keep func(trace.Symbol) bool) (calls, open int) {
	t.Helper()
	var stack []bool
	err := run.Stream(id, func(chunk []trace.Symbol) error {
		for _, s := range chunk {
			if s == trace.Return {
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
				continue
			}
			k := keep == nil || keep(s)
			stack = append(stack, k)
			if k {
				calls++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range stack {
		if k {
			open++
		}
	}
	return calls, open
}

// Whole committed runs, hung ones among them, make valid timelines: a
// named track per thread, a slice per call the filter keeps, as many
// unfinished as calls open at the trace's end.
func TestAddRun(t *testing.T) {
	for _, tc := range []struct{ run, filter string }{
		{"oddeven4-normal", ""},
		{"oddeven-swapbug", ""},
		{"oddeven-dlbug", ""},
		{"stencil-skipbug", ""},
		{"ilcs-critbug", "omp.crit+mpi"},
		{"../noise/farm-skipverify", "mpi"},
	} {
		t.Run(tc.run, func(t *testing.T) {
			tab := trace.NewTable()
			run := open(t, tc.run, tab)
			keep := keepOf(t, tc.filter, tab)
			pr, pw := io.Pipe()
			go func() {
				w := chrome.NewWriter(pw, chrome.Options{Names: run, Keep: keep})
				err := chrome.AddRun(w, run, run.Traces())
				if err == nil {
					err = w.Close()
				}
				pw.CloseWithError(err)
			}()
			s, err := chrometest.Validate(pr, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range run.Traces() {
				// pid and tid are the rank and the thread plus one.
				tr := chrometest.Track{PID: id.Proc + 1, TID: id.Thread + 1}
				calls, open := direct(t, run, id, keep)
				if s.Slices[tr] != calls || s.Unfinished[tr] != open {
					t.Errorf("trace %s: %d slices, %d unfinished; the trace has %d calls kept, %d open at its end", id, s.Slices[tr], s.Unfinished[tr], calls, open)
				}
				if s.Processes[tr.PID] != fmt.Sprintf("rank %d", id.Proc) || s.Threads[tr] != fmt.Sprintf("thread %d", id.Thread) {
					t.Errorf("trace %s: named %q, %q", id, s.Processes[tr.PID], s.Threads[tr])
				}
			}
			if len(s.Threads) != len(run.Traces()) || s.OtherData["ids"] != chrome.IDs {
				t.Errorf("%d tracks named for %d traces; otherData ids %v", len(s.Threads), len(run.Traces()), s.OtherData["ids"])
			}
			if tc.run == "oddeven-dlbug" || tc.run == "stencil-skipbug" {
				if s.OtherData["unfinished_slices"].(float64) == 0 {
					t.Error("a hung run with no unfinished slices")
				}
			}
		})
	}
}

// Size says how many bytes AddRun writes for each trace: with the header,
// process names and otherData, the whole file.
func TestSize(t *testing.T) {
	tab := trace.NewTable()
	run := open(t, "stencil-normal", tab)
	for _, spec := range []string{"", "mpi"} {
		opts := chrome.Options{Names: run, Keep: keepOf(t, spec, tab)}
		ids := run.Traces()
		sizes, err := chrome.Size(run, ids, opts)
		if err != nil {
			t.Fatal(err)
		}
		var c countWriter
		w := chrome.NewWriter(&c, opts)
		if err := chrome.AddRun(w, run, ids); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, s := range sizes {
			sum += s
		}
		// The rest: per process its two metadata events, and the
		// object around the events.
		if rest := c.n - sum; rest < 0 || rest > 2000 {
			t.Errorf("filter %q: sizes sum to %d, the file has %d bytes", spec, sum, c.n)
		}
	}
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func TestByRank(t *testing.T) {
	ids := []trace.ID{{Proc: 0, Thread: 0}, {Proc: 0, Thread: 1}, {Proc: 1, Thread: 0}, {Proc: 2, Thread: 0}}
	sizes := []int64{10, 10, 10, 10}
	if g := chrome.ByRank(ids, sizes, 40); len(g) != 1 || len(g[0]) != 4 {
		t.Errorf("within the limit: %v", g)
	}
	g := chrome.ByRank(ids, sizes, 39)
	if fmt.Sprint(g) != "[[0.0 0.1] [1.0] [2.0]]" {
		t.Errorf("over the limit: %v", g)
	}
	if g := chrome.ByRank(ids[:2], sizes[:2], 1); len(g) != 1 {
		t.Errorf("one process over the limit: %v", g)
	}
	for in, want := range map[string]string{
		"trace.json.gz":   "trace.rank-3.json.gz",
		"out/trace.json":  "out/trace.rank-3.json",
		"a.b/trace":       "a.b/trace.rank-3",
		"x.gz":            "x.rank-3.gz",
		"/tmp/.json":      "/tmp/.json.rank-3",
		"dir.json/t.json": "dir.json/t.rank-3.json",
	} {
		if got := chrome.RankFile(in, 3); got != want {
			t.Errorf("RankFile(%q) = %q, want %q", in, got, want)
		}
	}
}
