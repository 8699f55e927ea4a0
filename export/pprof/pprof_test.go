package pprof_test

import (
	"bytes"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/export/pprof"
	"github.com/difftrace/difftrace/internal/exporttest"
	"github.com/difftrace/difftrace/trace"
)

// A hand-made trace's call paths, each counted once per entry, with the
// events it is the innermost call for, every call shown or some.
func TestTrace(t *testing.T) { exporttest.Pprof.TestKnownTrace(t, nil) }

// A failing io.Writer's error comes back wrapped; a second Close fails; a
// trace the run lacks is an error; a profile of no traces is valid.
func TestBadInput(t *testing.T) { exporttest.Pprof.TestBadInput(t) }

// The profiles of committed runs, read back by the pprof library, count
// what the decoded events hold, path by path, trace by trace.
func TestAddRun(t *testing.T) {
	exporttest.Pprof.TestRuns(t, exporttest.Cases, exporttest.Pprof.Library())
}

// profileOf writes the profile of a whole run and reads it back.
func profileOf(t *testing.T, run *decode.Run) (*profile.Profile, map[string]exporttest.Count) {
	t.Helper()
	var b bytes.Buffer
	if err := pprof.WriteRun(&b, run, run.Traces(), pprof.Options{}); err != nil {
		t.Fatal(err)
	}
	f, err := exporttest.Pprof.Read(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return f.Pprof.Profile, f.Paths
}

// pathsOf reads the call paths of a profile the harness's way.
func pathsOf(t *testing.T, p *profile.Profile) map[string]exporttest.Count {
	t.Helper()
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	f, err := exporttest.Pprof.Read(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return f.Paths
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
			base, before := profileOf(t, exporttest.Open(t, tc.normal, tab))
			faulty, after := profileOf(t, exporttest.Open(t, tc.faulty, tab))
			base.Scale(-1)
			diff, err := profile.Merge([]*profile.Profile{faulty, base})
			if err != nil {
				t.Fatal(err)
			}
			d := pathsOf(t, diff)
			for _, k := range tc.changed {
				if d[k].Calls == 0 || d[k].Calls != after[k].Calls-before[k].Calls {
					t.Errorf("%s: diff %d calls; %d before, %d after", k, d[k].Calls, before[k].Calls, after[k].Calls)
				}
			}
			for _, k := range tc.same {
				if before[k].Calls == 0 || before[k].Calls != after[k].Calls || d[k].Calls != 0 {
					t.Errorf("%s: diff %d calls; %d before, %d after", k, d[k].Calls, before[k].Calls, after[k].Calls)
				}
			}
		})
	}
}
