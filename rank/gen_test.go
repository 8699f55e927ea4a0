package rank

import (
	"path/filepath"
	"testing"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/internal/synth"
	"github.com/difftrace/difftrace/trace"
)

// genSpec is the synthetic run the scale test and benchmark rank (package
// internal/synth, also go run ./cmd/genrun): procs × threads traces of at
// least events values, and, in the faulty run, two planted bugs: the
// master of process rows runs one more kernel per step from mid-run on,
// and worker crit (process, thread) drops its critical sections from
// mid-run on.
func genSpec(procs, threads, events, rows int, crit [2]int) synth.Spec {
	return synth.Spec{Procs: procs, Threads: threads, Events: events, Rows: 16, Seed: 1,
		Bugs: []synth.Bug{{Kind: synth.ExtraKernel, Proc: rows}, {Kind: synth.Race, Proc: crit[0], Thread: crit[1]}}}
}

// TestGeneratedRuns checks the generator on a small spec: the runs decode
// with every trace at least spec.Events long, and the ranking finds the two
// planted bugs, as BenchmarkRankGenerated requires at full size.
func TestGeneratedRuns(t *testing.T) {
	dir := t.TempDir()
	spec := genSpec(16, 4, 5000, 6, [2]int{9, 3})
	normal, faulty := filepath.Join(dir, "normal"), filepath.Join(dir, "faulty")
	n, err := synth.Write(normal, spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.Faulty = true
	if _, err := synth.Write(faulty, spec); err != nil {
		t.Fatal(err)
	}
	if n < 64*5000 || n > 64*5100 {
		t.Errorf("%d events in the normal run, want about 64 × 5,000", n)
	}
	c, err := compare.Open([]string{normal, faulty}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.IDs) != 64 || len(c.Runs[compare.Faulty].Notes) != 0 {
		t.Fatalf("%d traces, notes %v", len(c.IDs), c.Runs[compare.Faulty].Notes)
	}
	for _, p := range c.Runs[compare.Normal].Procs {
		for _, th := range p.Rank.Threads {
			if th.Events < 5000 {
				t.Errorf("trace %d.%d: %d events", p.Rank.Rank, th.Thread, th.Events)
			}
		}
	}
	rk, err := sweep(c, defaultGrid(t, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkPlanted(t, rk, spec)
}

// What genrun plants by default — a race in a worker, a skipped halo
// exchange and a hang in two masters, where the seed says — leads the
// consensus: the race and the skipped exchange are in its first three
// places, and the hung master in its first five (in a hang its neighbours,
// stopped one step later in the same call, change nearly as much; the hang
// analysis, not the consensus, tells them apart).
func TestGeneratedDefaultBugs(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		dir := t.TempDir()
		spec := synth.Spec{Procs: 36, Threads: 4, Events: 6000, Seed: seed}
		normal, faulty := filepath.Join(dir, "normal"), filepath.Join(dir, "faulty")
		if _, err := synth.Write(normal, spec); err != nil {
			t.Fatal(err)
		}
		spec.Faulty = true
		spec.Bugs = synth.Plant(spec, synth.Race, synth.SkipPhase, synth.Hang)
		if _, err := synth.Write(faulty, spec); err != nil {
			t.Fatal(err)
		}
		c, err := compare.Open([]string{normal, faulty}, compare.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rk, err := sweep(c, defaultGrid(t, ""), nil)
		if err != nil {
			t.Fatal(err)
		}
		place := map[trace.ID]int{}
		for i, v := range rk.ThreadVotes {
			if v.First > 0 {
				place[v.ID] = i + 1
			}
		}
		for _, b := range spec.Bugs {
			top := 3
			if b.Kind == synth.Hang {
				top = 5
			}
			if p := place[b.Trace()]; p == 0 || p > top {
				t.Errorf("seed %d: %s in %v is not among the first %d of the consensus %v", seed, b.Kind, b.Trace(), top, rk.ThreadVotes[:min(6, len(rk.ThreadVotes))])
			}
		}
	}
}
