// Package exporttest is the harness the exporters' tests share: the
// committed runs of testdata/runs written by an exporter (the library or
// the command), each file read back with the library its viewers use
// (encoding/json and the trace-event format for Chrome, the pprof library
// for pprof), and what it holds checked against the decoded events: the
// calls of every call path of every trace, the event ticks spent in each,
// the calls left open, a hand-made trace's exact call stacks, and the
// errors bad input must give.
package exporttest

import (
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/trace"
)

// Runs is the directory of the committed runs.
var Runs = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "runs")
}()

// Open opens the committed run name (a directory under Runs), its names
// interned in tab (a new table when nil).
func Open(t testing.TB, name string, tab *trace.Table) *decode.Run {
	t.Helper()
	if tab == nil {
		tab = trace.NewTable()
	}
	run, err := decode.Open(filepath.Join(Runs, name), tab, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// Keep compiles the filter spec for tab: nil, every call, for "".
func Keep(t testing.TB, spec string, tab *trace.Table) func(trace.Symbol) bool {
	t.Helper()
	if spec == "" {
		return nil
	}
	f, err := filters.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return f.Compile(tab).Keep
}

// Count is what a file holds of one call path of one trace: how often the
// path was entered, and the event ticks with it the innermost call shown
// (for every event, the tick from it to the next).
type Count struct{ Calls, Events int64 }

// File is what an export holds, in one shape whatever its format.
type File struct {
	// Paths counts each call path, keyed "P.T a;b;c": the trace, then
	// the names of the calls shown, outermost first.
	Paths map[string]Count
	// Open counts, per trace, the calls shown that were still open
	// where the trace ended (formats that say so; traces with none are
	// left out).
	Open map[trace.ID]int
	// Images gives each function named the file name of its image.
	Images map[string]string

	// Of an expectation: the run (nil for a hand-made trace) and the
	// traces written.
	Run    *decode.Run
	Traces []trace.ID

	// What the format's reader returned, for the checks of one format:
	// a Chrome file's summary and its events, a pprof file's profile.
	Chrome *ChromeFile
	Pprof  *PprofFile
}

// OpenCalls is the number of calls open at the end of every trace.
func (f *File) OpenCalls() int {
	n := 0
	for _, o := range f.Open {
		n += o
	}
	return n
}

// Calls is the number of calls of trace id.
func (f *File) Calls(id trace.ID) int64 {
	var n int64
	for k, c := range f.Paths {
		if strings.HasPrefix(k, id.String()+" ") {
			n += c.Calls
		}
	}
	return n
}

// counter counts the call paths of one trace from its events, the slow
// and obvious way: a stack of names.
type counter struct {
	f     *File
	id    trace.ID
	keep  func(trace.Symbol) bool
	names decode.Namer
	stack []string // the calls shown that are open, by name
	kept  []bool   // per open call, whether it is shown
	key   string   // the trace and the stack, joined
}

func (c *counter) write(chunk []trace.Symbol) error {
	for _, s := range chunk {
		if s != trace.Return {
			k := c.keep == nil || c.keep(s)
			c.kept = append(c.kept, k)
			if k {
				name := c.names.Label(s)
				c.stack = append(c.stack, name)
				c.key = c.id.String() + " " + strings.Join(c.stack, ";")
				v := c.f.Paths[c.key]
				c.f.Paths[c.key] = Count{v.Calls + 1, v.Events}
				c.f.Images[name] = path.Base(c.names.Name(s).Image)
			}
		} else if n := len(c.kept); n > 0 {
			if c.kept[n-1] {
				c.stack = c.stack[:len(c.stack)-1]
				c.key = c.id.String() + " " + strings.Join(c.stack, ";")
			}
			c.kept = c.kept[:n-1]
		}
		if len(c.stack) > 0 {
			v := c.f.Paths[c.key]
			c.f.Paths[c.key] = Count{v.Calls, v.Events + 1}
		}
	}
	return nil
}

func (c *counter) close() {
	if len(c.stack) > 0 {
		c.f.Open[c.id] += len(c.stack)
	}
}

func newFile() *File {
	return &File{Paths: map[string]Count{}, Open: map[trace.ID]int{}, Images: map[string]string{}}
}

// Expect counts, straight from the decoded events, what a file of the
// traces ids of run must hold when keep chooses the calls shown (nil:
// every call).
func Expect(run *decode.Run, ids []trace.ID, keep func(trace.Symbol) bool) (*File, error) {
	f := newFile()
	f.Run, f.Traces = run, ids
	for _, id := range ids {
		c := &counter{f: f, id: id, keep: keep, names: run}
		if err := run.Stream(id, c.write); err != nil {
			return nil, fmt.Errorf("%s: trace %s: %w", run.Dir, id, err)
		}
		c.close()
	}
	return f, nil
}

// expectEvents is Expect for one trace's events in memory.
func expectEvents(names decode.Namer, id trace.ID, events []trace.Symbol, keep func(trace.Symbol) bool) *File {
	f := newFile()
	f.Traces = []trace.ID{id}
	c := &counter{f: f, id: id, keep: keep, names: names}
	c.write(events)
	c.close()
	return f
}

// Compare reports where the file got differs from want: every call
// path's calls and events, the images of the functions named, and, when
// the format says so, the calls open at each trace's end.
func Compare(t testing.TB, f Format, got, want *File) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(want.Paths)) {
		if got.Paths[k] != want.Paths[k] {
			t.Errorf("%s: %s: calls, events %v; the traces have %v", f.Name, k, got.Paths[k], want.Paths[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got.Paths)) {
		if _, ok := want.Paths[k]; !ok {
			t.Errorf("%s: %s: %v, a path the traces do not have", f.Name, k, got.Paths[k])
		}
	}
	for name, img := range got.Images {
		if w, ok := want.Images[name]; !ok || path.Base(img) != w {
			t.Errorf("%s: function %s in %q; the traces have it in %q", f.Name, name, img, w)
		}
	}
	if f.Open && !maps.Equal(got.Open, want.Open) {
		t.Errorf("%s: calls open at the end %v; the traces have %v", f.Name, got.Open, want.Open)
	}
}
