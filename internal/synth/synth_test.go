package synth

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/rundir"
	"github.com/difftrace/difftrace/trace"
)

// sequences decodes every trace of a run into function names.
func sequences(t *testing.T, dir string) map[trace.ID][]string {
	t.Helper()
	tab := trace.NewTable()
	run, err := decode.Open(dir, tab, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[trace.ID][]string{}
	for _, id := range run.Traces() {
		var seq []string
		err := run.Stream(id, func(chunk []trace.Symbol) error {
			for _, s := range chunk {
				if s == trace.Return {
					seq = append(seq, ")")
				} else {
					seq = append(seq, tab.Name(s).Func)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		out[id] = seq
	}
	return out
}

// A normal and a faulty run of one seed differ exactly in the traces the
// bugs were planted in; planted.json lists them; every trace has at least
// the events asked for.
func TestWritePlants(t *testing.T) {
	dir := t.TempDir()
	spec := Spec{Procs: 9, Threads: 3, Events: 2000, Seed: 7}
	normal, faulty := filepath.Join(dir, "normal"), filepath.Join(dir, "faulty")
	if _, err := Write(normal, spec); err != nil {
		t.Fatal(err)
	}
	spec.Faulty = true
	spec.Bugs = Plant(spec, Race, SkipPhase, ExtraKernel)
	if len(spec.Bugs) != 3 {
		t.Fatalf("Plant: %v", spec.Bugs)
	}
	if _, err := Write(faulty, spec); err != nil {
		t.Fatal(err)
	}
	ns, fs := sequences(t, normal), sequences(t, faulty)
	if len(ns) != 27 || len(fs) != 27 {
		t.Fatalf("%d and %d traces, want 27", len(ns), len(fs))
	}
	var changed []string
	for id, s := range ns {
		if len(s) < 2000 {
			t.Errorf("trace %v: %d events", id, len(s))
		}
		if !slices.Equal(s, fs[id]) {
			changed = append(changed, id.String())
		}
	}
	slices.Sort(changed)
	var pl Planted
	b, err := os.ReadFile(filepath.Join(faulty, PlantedName))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &pl); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(changed, pl.Traces) || len(pl.Processes) != 3 || len(pl.Bugs) != 3 {
		t.Errorf("changed traces %v; planted.json %+v", changed, pl)
	}
	if _, err := os.Stat(filepath.Join(normal, PlantedName)); err == nil {
		t.Errorf("a normal run has %s", PlantedName)
	}
	// The same seed writes the same run.
	again := filepath.Join(dir, "again")
	spec.Faulty, spec.Bugs = false, nil
	if _, err := Write(again, spec); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"trace.4.1", "trace.4.info", "run.json"} {
		a, _ := os.ReadFile(filepath.Join(normal, f))
		b, _ := os.ReadFile(filepath.Join(again, f))
		if len(a) == 0 || string(a) != string(b) {
			t.Errorf("%s differs between two writes of one spec", f)
		}
	}
}

// A hang stops every master: the hung one inside MPI_Waitall, its
// neighbours one step later in MPI_Waitall, the others in MPI_Allreduce;
// the run reads as timed out.
func TestWriteHang(t *testing.T) {
	dir := t.TempDir()
	spec := Spec{Procs: 9, Threads: 1, Events: 3000, Faulty: true, Bugs: []Bug{{Kind: Hang, Proc: 4}}}
	if _, err := Write(dir, spec); err != nil {
		t.Fatal(err)
	}
	seqs := sequences(t, dir)
	last := func(p int) string {
		s := seqs[trace.ID{Proc: p}]
		return s[len(s)-1]
	}
	for p, want := range map[int]string{4: "MPI_Waitall", 1: "MPI_Waitall", 3: "MPI_Waitall", 0: "MPI_Allreduce", 8: "MPI_Allreduce"} {
		if got := last(p); got != want {
			t.Errorf("process %d ends in %s, want %s", p, got, want)
		}
	}
	steps := func(p int) int {
		n := 0
		for _, f := range seqs[trace.ID{Proc: p}] {
			if f == "step" {
				n++
			}
		}
		return n
	}
	if steps(4)+1 != steps(1) || steps(1) != steps(0) {
		t.Errorf("steps begun: %d by the hung master, %d and %d by a neighbour and another; want one fewer", steps(4), steps(1), steps(0))
	}
	m, err := rundir.ReadManifest(filepath.Join(dir, rundir.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range m.Ranks {
		if !r.KilledByTimeout || r.Exited {
			t.Errorf("rank %d: timed out %v, exited %v", r.Rank, r.KilledByTimeout, r.Exited)
		}
	}
}

// Bad specs are refused with what to give.
func TestWriteRefuses(t *testing.T) {
	for _, spec := range []Spec{
		{Procs: 0, Threads: 1, Events: 1000},
		{Procs: 4, Threads: 0, Events: 1000},
		{Procs: 4, Threads: 2, Events: 10},
		{Procs: 4, Threads: 2, Events: 1000, Faulty: true, Bugs: []Bug{{Kind: Race, Proc: 1, Thread: 0}}},
		{Procs: 4, Threads: 2, Events: 1000, Faulty: true, Bugs: []Bug{{Kind: Hang, Proc: 9}}},
	} {
		if _, err := Write(t.TempDir(), spec); err == nil {
			t.Errorf("Write(%+v) accepted it", spec)
		}
	}
}
