package pprof_test

import (
	"bytes"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/export/pprof"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/trace"
)

const runs = "../../testdata/runs"

// counts are a profile's values by "rank.thread path", the path root
// first, joined by ";".
type counts map[string][2]int64

// parse reads a profile back with the pprof library and checks it.
func parse(t *testing.T, b []byte) *profile.Profile {
	t.Helper()
	p, err := profile.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	if len(p.SampleType) != 2 || p.SampleType[0].Type != pprof.Calls || p.SampleType[1].Type != pprof.Events || p.DefaultSampleType != pprof.Calls {
		t.Fatalf("sample types %v, default %q", p.SampleType, p.DefaultSampleType)
	}
	return p
}

// countsOf sums a profile's values by trace and call path.
func countsOf(t *testing.T, p *profile.Profile) counts {
	t.Helper()
	c := counts{}
	for _, s := range p.Sample {
		r, th := s.NumLabel[pprof.RankLabel], s.NumLabel[pprof.ThreadLabel]
		if len(r) != 1 || len(th) != 1 {
			t.Fatalf("sample labels %v", s.NumLabel)
		}
		var names []string
		for i := len(s.Location) - 1; i >= 0; i-- {
			names = append(names, s.Location[i].Line[0].Function.Name)
		}
		k := fmt.Sprintf("%d.%d %s", r[0], th[0], strings.Join(names, ";"))
		v := c[k]
		c[k] = [2]int64{v[0] + s.Value[0], v[1] + s.Value[1]}
	}
	return c
}

// direct counts call paths straight from a trace's events: the calls of
// each path, and the events after which it is the innermost kept call.
func direct(c counts, id trace.ID, events []trace.Symbol, label func(trace.Symbol) string, keep func(trace.Symbol) bool) {
	var stack []string // kept calls open, by name
	var kept []bool    // per open call, whether it was kept
	for _, s := range events {
		if s != trace.Return {
			k := keep == nil || keep(s)
			kept = append(kept, k)
			if k {
				stack = append(stack, label(s))
				key := id.String() + " " + strings.Join(stack, ";")
				v := c[key]
				c[key] = [2]int64{v[0] + 1, v[1]}
			}
		} else if n := len(kept); n > 0 {
			if kept[n-1] {
				stack = stack[:len(stack)-1]
			}
			kept = kept[:n-1]
		}
		if len(stack) > 0 {
			key := id.String() + " " + strings.Join(stack, ";")
			v := c[key]
			c[key] = [2]int64{v[0], v[1] + 1}
		}
	}
}

// equal reports the differences of two sets of counts.
func equal(t *testing.T, got, want counts) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if got[k] != want[k] {
			t.Errorf("%s: calls, events %v; want %v", k, got[k], want[k])
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %v, a path the traces do not have", k, got[k])
		}
	}
}

func TestTrace(t *testing.T) {
	tab := trace.NewTable()
	main := tab.Intern(trace.Name{Image: "app", Func: "main"})
	send := tab.Intern(trace.Name{Image: "libmpi.so.40", Func: "MPI_Send"})
	compute := tab.Intern(trace.Name{Image: "app", Func: "compute"})
	recv := tab.Intern(trace.Name{Image: "libmpi.so.40", Func: "MPI_Recv"})
	// An exit that closes nothing, then a trace that ends inside recv.
	events := []trace.Symbol{trace.Return, main, send, trace.Return, compute, send, trace.Return, trace.Return, recv}
	for _, tc := range []struct {
		name string
		keep func(trace.Symbol) bool
		want counts
	}{
		{"all", nil, counts{
			"2.1 main":                  {1, 3},
			"2.1 main;MPI_Send":         {1, 1},
			"2.1 main;compute":          {1, 2},
			"2.1 main;compute;MPI_Send": {1, 1},
			"2.1 main;MPI_Recv":         {1, 1},
		}},
		{"filtered", func(s trace.Symbol) bool { return s == send || s == recv }, counts{
			"2.1 MPI_Send": {2, 2},
			"2.1 MPI_Recv": {1, 1},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			w := pprof.NewWriter(&b, pprof.Options{Names: tab, Keep: tc.keep})
			tr := w.Trace(trace.ID{Proc: 2, Thread: 1})
			if err := tr.Write(events[:4]); err != nil {
				t.Fatal(err)
			}
			if err := tr.Write(events[4:]); err != nil {
				t.Fatal(err)
			}
			if err := tr.Close(); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			p := parse(t, b.Bytes())
			equal(t, countsOf(t, p), tc.want)
			want := counts{}
			direct(want, trace.ID{Proc: 2, Thread: 1}, events, tab.Label, tc.keep)
			equal(t, want, tc.want)
			for _, f := range p.Function {
				if f.Name == "MPI_Send" && f.Filename != "libmpi.so.40" {
					t.Errorf("MPI_Send in %q", f.Filename)
				}
			}
			if err := w.Close(); err == nil {
				t.Error("a second Close: no error")
			}
		})
	}
}

// open opens a committed run.
func open(t *testing.T, name string, tab *trace.Table) *decode.Run {
	t.Helper()
	run, err := decode.Open(filepath.Join(runs, name), tab, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

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

// profileOf writes the profile of a whole run and reads it back.
func profileOf(t *testing.T, run *decode.Run, keep func(trace.Symbol) bool) *profile.Profile {
	t.Helper()
	var b bytes.Buffer
	w := pprof.NewWriter(&b, pprof.Options{Names: run, Program: run.ProgramName(), Keep: keep})
	if err := pprof.AddRun(w, run, run.Traces()); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return parse(t, b.Bytes())
}

// The profiles of committed runs, read back by the pprof library, count
// what the decoded events hold, path by path, trace by trace.
func TestAddRun(t *testing.T) {
	for _, tc := range []struct{ run, filter string }{
		{"oddeven-swapbug", ""},
		{"oddeven-dlbug", ""},
		{"stencil-skipbug", ""},
		{"ilcs-critbug", ""},
		{"ilcs-maxbug", "omp+mpi"},
		{"../noise/farm-skipverify", "mpi"},
	} {
		t.Run(tc.run+"/"+tc.filter, func(t *testing.T) {
			tab := trace.NewTable()
			run := open(t, tc.run, tab)
			keep := keepOf(t, tc.filter, tab)
			p := profileOf(t, run, keep)
			want := counts{}
			for _, id := range run.Traces() {
				tr, err := run.Load([]trace.ID{id})
				if err != nil {
					t.Fatal(err)
				}
				direct(want, id, tr[0].Events, tab.Label, keep)
			}
			equal(t, countsOf(t, p), want)
			if p.Mapping[0].File != run.ProgramName() {
				t.Errorf("first mapping %q, want the program's", p.Mapping[0].File)
			}
		})
	}
}

// What go tool pprof -diff_base shows: the base's values negated and
// merged with the other profile's. The call paths of rank 3's skipped halo
// exchange differ; MPI_Init and the grid's set-up, made once by every
// rank, do not. In the odd/even sort, rank 5's deadlock ends its sends
// early; its MPI_Init is the same.
//
// (Counts show a bug that changes how often calls are made. swapBug only
// swaps a send and a receive: oddeven-swapbug's call counts are those of
// its normal run, but for the arguments it parses.)
func TestDiffBase(t *testing.T) {
	for _, tc := range []struct {
		normal, faulty string
		changed        []string
		same           []string
	}{
		{"stencil-normal", "stencil-skipbug",
			[]string{"3.0 main;driver::Simulation::run;driver::Simulation::step;driver::Simulation::exchange;halo::Exchanger::exchange"},
			[]string{"3.0 main;MPI_Init", "0.0 main;mesh::Grid::Grid;MPI_Comm_size"}},
		{"oddeven-normal", "oddeven-dlbug",
			[]string{"5.0 main;oddEvenSort;MPI_Send", "5.0 main;oddEvenSort;MPI_Recv"},
			[]string{"5.0 main;MPI_Init"}},
	} {
		t.Run(tc.faulty, func(t *testing.T) {
			tab := trace.NewTable()
			base := profileOf(t, open(t, tc.normal, tab), nil)
			faulty := profileOf(t, open(t, tc.faulty, tab), nil)
			before, after := countsOf(t, base), countsOf(t, faulty)
			base.Scale(-1)
			diff, err := profile.Merge([]*profile.Profile{faulty, base})
			if err != nil {
				t.Fatal(err)
			}
			d := countsOf(t, diff)
			for _, k := range tc.changed {
				if d[k][0] == 0 || d[k][0] != after[k][0]-before[k][0] {
					t.Errorf("%s: diff %d calls; %d before, %d after", k, d[k][0], before[k][0], after[k][0])
				}
			}
			for _, k := range tc.same {
				if before[k][0] == 0 || before[k][0] != after[k][0] || d[k][0] != 0 {
					t.Errorf("%s: diff %d calls; %d before, %d after", k, d[k][0], before[k][0], after[k][0])
				}
			}
		})
	}
}
