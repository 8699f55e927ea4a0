package exporttest

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/trace"
)

// Case is a committed run to export.
type Case struct {
	Run    string // under Runs
	Filter string // the filter spec choosing the calls shown; "" for every call
	Hung   bool   // the run hung: some of its calls are open at the end
}

func (c Case) String() string { return c.Run + "/" + c.Filter }

// Cases are the committed runs every exporter is tested on: sound, buggy
// and hung runs, with OpenMP threads, under filters.
var Cases = []Case{
	{Run: "oddeven4-normal"},
	{Run: "oddeven-swapbug"},
	{Run: "oddeven-dlbug", Hung: true},
	{Run: "stencil-skipbug", Hung: true},
	{Run: "ilcs-critbug"},
	{Run: "ilcs-critbug", Filter: "omp.crit+mpi"},
	{Run: "ilcs-maxbug", Filter: "omp+mpi"},
	{Run: "../noise/farm-skipverify", Filter: "mpi"},
}

// Export writes the file of case c, its run open as run, its filter
// compiled as keep, and returns the file's bytes.
type Export func(t *testing.T, c Case, run *decode.Run, keep func(trace.Symbol) bool) []byte

// Library is the Export of f's library, Write, of every trace.
func (f Format) Library() Export {
	return func(t *testing.T, c Case, run *decode.Run, keep func(trace.Symbol) bool) []byte {
		var b bytes.Buffer
		if err := f.Write(&b, run, run.Traces(), keep); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
}

// TestRuns exports each case, reads the file back with f.Read and checks
// that it holds what the decoded events do (Compare) and what f.Check
// asks, and that a hung run has calls open at its end. It returns the
// files read, by case.
func (f Format) TestRuns(t *testing.T, cases []Case, export Export) map[Case]*File {
	files := map[Case]*File{}
	for _, c := range cases {
		t.Run(c.String(), func(t *testing.T) {
			tab := trace.NewTable()
			run := Open(t, c.Run, tab)
			keep := Keep(t, c.Filter, tab)
			got, err := f.Read(export(t, c, run, keep))
			if err != nil {
				t.Fatal(err)
			}
			want, err := Expect(run, run.Traces(), keep)
			if err != nil {
				t.Fatal(err)
			}
			Compare(t, f, got, want)
			f.Check(t, got, want)
			if c.Hung && (want.OpenCalls() == 0 || f.Open && got.OpenCalls() == 0) {
				t.Errorf("a hung run with no calls open at the end: %d in the traces, %d in the file", want.OpenCalls(), got.OpenCalls())
			}
			files[c] = got
		})
	}
	return files
}

// The known trace: rank 2's thread 1 starts with an exit that closes
// nothing, main sends, computes (and sends inside), and the trace ends
// inside a receive.
var (
	knownNames = []trace.Name{
		{Image: "app", Func: "main"},
		{Image: "libmpi.so.40", Func: "MPI_Send"},
		{Image: "app", Func: "compute"},
		{Image: "libmpi.so.40", Func: "MPI_Recv"},
	}
	// KnownID is the known trace's.
	KnownID = trace.ID{Proc: 2, Thread: 1}
)

// knownEvents are the known trace's events with main, send, compute and
// recv symbols 1 to 4.
var knownEvents = []trace.Symbol{trace.Return, 1, 2, trace.Return, 3, 2, trace.Return, trace.Return, 4}

// Known is one way to show the known trace, and the call stacks it gives.
type Known struct {
	Name string
	Keep func(trace.Symbol) bool
	Want *File
}

// KnownCases are the known trace with every call shown, then with the
// sends and the receive alone: the send inside compute keeps its place.
func KnownCases() (*trace.Table, []trace.Symbol, []Known) {
	tab := trace.NewTable()
	for _, n := range knownNames {
		tab.Intern(n)
	}
	paths := func(p map[string]Count, open int) *File {
		f := newFile()
		f.Traces = []trace.ID{KnownID}
		for k, v := range p {
			f.Paths[KnownID.String()+" "+k] = v
		}
		f.Open[KnownID] = open
		f.Images = map[string]string{"main": "app", "compute": "app", "MPI_Send": "libmpi.so.40", "MPI_Recv": "libmpi.so.40"}
		return f
	}
	return tab, knownEvents, []Known{
		{"all", nil, paths(map[string]Count{
			"main":                  {1, 3},
			"main;MPI_Send":         {1, 1},
			"main;compute":          {1, 2},
			"main;compute;MPI_Send": {1, 1},
			"main;MPI_Recv":         {1, 1},
		}, 2)},
		{"filtered", func(s trace.Symbol) bool { return s == 2 || s == 4 }, paths(map[string]Count{
			"MPI_Send": {2, 2},
			"MPI_Recv": {1, 1},
		}, 1)},
	}
}

// TestKnownTrace writes the known trace, handed over in three chunks,
// for each of KnownCases, and checks the file's call stacks, calls and
// events against the ones written down, which Expect must also find.
// each, when set, sees each file read, for the checks of one format.
func (f Format) TestKnownTrace(t *testing.T, each func(t *testing.T, k Known, got *File)) {
	tab, events, cases := KnownCases()
	for _, k := range cases {
		t.Run(k.Name, func(t *testing.T) {
			var b bytes.Buffer
			if err := f.WriteTrace(&b, tab, k.Keep, KnownID, events[:4], events[4:5], events[5:]); err != nil {
				t.Fatal(err)
			}
			got, err := f.Read(b.Bytes())
			if err != nil {
				t.Fatalf("%v\n%s", err, b.Bytes())
			}
			Compare(t, f, got, k.Want)
			Compare(t, Format{Name: "Expect", Open: true}, expectEvents(tab, KnownID, events, k.Keep), k.Want)
			f.Check(t, got, k.Want)
			if each != nil {
				each(t, k, got)
			}
		})
	}
}

// failing is an io.Writer that fails.
type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestBadInput checks what f makes of what it should refuse, and of
// nothing: an io.Writer's failure comes back wrapped; a Writer used after
// Close says so; a trace the run lacks is an error naming it; a file of
// no traces is a valid one, empty; and a truncated file fails f.Read, so
// that the harness's own checks can fail.
func (f Format) TestBadInput(t *testing.T) {
	tab := trace.NewTable()
	run := Open(t, "oddeven4-normal", tab)
	t.Run("failing writer", func(t *testing.T) {
		names := trace.NewTable()
		for _, n := range SolverNames {
			names.Intern(trace.Name{Image: "app", Func: n})
		}
		err := f.WriteTrace(failing{}, names, nil, trace.ID{}, SolverEvents(1<<18))
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("error %v, want the writer's", err)
		}
	})
	t.Run("after Close", func(t *testing.T) {
		if err := f.Reuse(); err == nil || !strings.Contains(err.Error(), "after Close") {
			t.Errorf("a Writer used after Close: error %v", err)
		}
	})
	t.Run("missing trace", func(t *testing.T) {
		err := f.Write(io.Discard, run, []trace.ID{{Proc: 9, Thread: 0}}, nil)
		if err == nil || !strings.Contains(err.Error(), "9.0") {
			t.Errorf("trace 9.0 of a run of 4 ranks: error %v", err)
		}
	})
	t.Run("no traces", func(t *testing.T) {
		var b bytes.Buffer
		if err := f.Write(&b, run, nil, nil); err != nil {
			t.Fatal(err)
		}
		got, err := f.Read(b.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		want := newFile()
		want.Run = run
		Compare(t, f, got, want)
		f.Check(t, got, want)
	})
	t.Run("truncated", func(t *testing.T) {
		var b bytes.Buffer
		if err := f.Write(&b, run, run.Traces(), nil); err != nil {
			t.Fatal(err)
		}
		whole := bytes.TrimRight(b.Bytes(), "\n")
		for _, n := range []int{0, len(whole) / 2, len(whole) - 1} {
			if _, err := f.Read(whole[:n]); err == nil {
				t.Errorf("the first %d of %d bytes read without an error", n, len(whole))
			}
		}
	})
}

// SolverNames name the functions of SolverEvents, symbols 1 to 8.
var SolverNames = []string{"main", "step", "kernel", "flux", "update", "MPI_Irecv", "MPI_Isend", "MPI_Waitall"}

// SolverEvents is a time-stepping trace of about n events: main, then
// steps of 16 kernel calls (two fluxes and an update each) and a halo
// exchange.
func SolverEvents(n int) []trace.Symbol {
	const main, step, kernel, flux, update, irecv, isend, waitall = 1, 2, 3, 4, 5, 6, 7, 8
	ev := []trace.Symbol{main}
	for len(ev) < n {
		ev = append(ev, step)
		for range 16 {
			ev = append(ev, kernel, flux, trace.Return, flux, trace.Return, update, trace.Return, trace.Return)
		}
		ev = append(ev, irecv, trace.Return, isend, trace.Return, waitall, trace.Return, trace.Return)
	}
	return append(ev, trace.Return)
}

// Bench writes a SolverEvents trace of about 2^20 events with f's
// Writer, to io.Discard, in the 64 Ki-event chunks decode.Run.Stream
// hands over, every call shown, and reports events a second.
func (f Format) Bench(b *testing.B) {
	tab := trace.NewTable()
	for _, n := range SolverNames {
		tab.Intern(trace.Name{Image: "app", Func: n})
	}
	ev := SolverEvents(1 << 20)
	var chunks [][]trace.Symbol
	for c := ev; len(c) > 0; c = c[min(len(c), 64<<10):] {
		chunks = append(chunks, c[:min(len(c), 64<<10)])
	}
	b.SetBytes(int64(len(ev)) * 4)
	for b.Loop() {
		if err := f.WriteTrace(io.Discard, tab, nil, trace.ID{}, chunks...); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(ev))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
}
