package chrome_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/export/chrome"
	"github.com/difftrace/difftrace/internal/exporttest"
	"github.com/difftrace/difftrace/trace"
)

// listing lists a file's events as "ph name ts" (instants with their
// scope, metadata left out).
func listing(f *exporttest.File) []string {
	var got []string
	for _, e := range f.Chrome.List {
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
	}
	return got
}

// A track's events become nested slices at their indices; an exit that
// closes nothing is passed over, and calls open at the end are closed one
// tick after the last event, marked, with an instant saying how many.
// The harness checks the call stacks, the unfinished calls, the names and
// the clock; here, the events themselves.
func TestTrack(t *testing.T) {
	want := map[string][]string{
		"all": {"B main 1", "B MPI_Send 2", "E MPI_Send 3", "B compute 4", "B MPI_Send 5", "E MPI_Send 6", "E compute 7", "B MPI_Recv 8",
			"i/t trace ends inside 2 open calls 9", "E MPI_Recv 9 unfinished", "E main 9 unfinished"},
		// The filter hides main and compute; the send inside compute
		// keeps its time.
		"filtered": {"B MPI_Send 2", "E MPI_Send 3", "B MPI_Send 5", "E MPI_Send 6", "B MPI_Recv 8",
			"i/t trace ends inside 1 open call 9", "E MPI_Recv 9 unfinished"},
	}
	exporttest.Chrome.TestKnownTrace(t, func(t *testing.T, k exporttest.Known, got *exporttest.File) {
		if l := listing(got); !slices.Equal(l, want[k.Name]) {
			t.Errorf("events:\n%s\nwant:\n%s", strings.Join(l, "\n"), strings.Join(want[k.Name], "\n"))
		}
	})
}

// Names from traces are anyone's to write: quotes, backslashes, control
// characters and invalid UTF-8 come out as valid JSON strings.
func TestHostileNames(t *testing.T) {
	tab := trace.NewTable()
	s := tab.Intern(trace.Name{Image: "lib\"x\\.so", Func: "f\"}]\n\x1b[31m\xff"})
	var b bytes.Buffer
	w := chrome.NewWriter(&b, chrome.Options{Names: tab, Metadata: map[string]any{"run": "a\"b"}})
	w.Process(1, "rank 0", 0)
	w.Thread(1, 1, "thread 0")
	tr := w.Track(1, 1, 0)
	if err := tr.Write([]trace.Symbol{s, trace.Return}); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := exporttest.Chrome.Read(b.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, b.Bytes())
	}
	if got := listing(f); len(got) != 2 || !strings.HasPrefix(got[0], "B f\"}]\n\x1b[31m\ufffd ") {
		t.Errorf("events %q", got)
	}
	if f.Chrome.OtherData["run"] != "a\"b" {
		t.Errorf("otherData %v", f.Chrome.OtherData)
	}
}

// A failing io.Writer's error comes back wrapped; a Writer used after
// Close fails; a trace the run lacks is an error; an empty Writer still
// writes a valid object.
func TestBadInput(t *testing.T) { exporttest.Chrome.TestBadInput(t) }

// Whole committed runs, hung ones among them, make valid timelines: a
// named track per thread, a slice per call the filter keeps on its call
// path, as many unfinished as calls open at the trace's end.
func TestAddRun(t *testing.T) {
	exporttest.Chrome.TestRuns(t, exporttest.Cases, exporttest.Chrome.Library())
}

// Size says how many bytes AddRun writes for each trace: with the header,
// process names and otherData, the whole file.
func TestSize(t *testing.T) {
	tab := trace.NewTable()
	run := exporttest.Open(t, "stencil-normal", tab)
	for _, spec := range []string{"", "mpi"} {
		opts := chrome.Options{Names: run, Keep: exporttest.Keep(t, spec, tab)}
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
