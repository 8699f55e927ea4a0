package rank

import (
	"path/filepath"
	"testing"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/internal/synth"
	"github.com/difftrace/difftrace/trace"
)

// Runs of the synthetic solver with different seeds differ the way a
// nondeterministic program's runs do: each worker evaluates candidates a
// different number of times. Three such normal runs, and a faulty one
// (another seed) whose worker 5.2 also drops its critical sections: two
// normal runs against a third name no suspect while one alone does; the
// faulty worker leads with two normal runs and with three, when noise
// floors are measured too.
func TestNoiseGenerated(t *testing.T) {
	dir := t.TempDir()
	run := func(name string, seed uint64, bugs ...synth.Bug) string {
		t.Helper()
		p := filepath.Join(dir, name)
		spec := synth.Spec{Procs: 16, Threads: 3, Events: 4000, Seed: seed, Faulty: len(bugs) > 0, Bugs: bugs}
		if _, err := synth.Write(p, spec); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b, c := run("a", 1), run("b", 2), run("c", 3)
	faulty := run("faulty", 4, synth.Bug{Kind: synth.Race, Proc: 5, Thread: 2})
	rank := func(dirs ...string) *Ranking {
		t.Helper()
		cmp, err := compare.Open(dirs, compare.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rk, err := sweep(cmp, defaultGrid(t, ""), nil)
		if err != nil {
			t.Fatal(err)
		}
		return rk
	}
	first := func(rk *Ranking) trace.ID {
		if len(rk.ThreadVotes) == 0 || rk.ThreadVotes[0].First == 0 {
			return trace.ID{Proc: -1}
		}
		return rk.ThreadVotes[0].ID
	}
	none := trace.ID{Proc: -1}
	if got := first(rank(a, c)); got == none {
		t.Errorf("one normal run against another: no suspect; the workers' varying counts should show")
	}
	if got := first(rank(a, c, b)); got != none {
		t.Errorf("two normal runs against a third: %v leads", got)
	}
	want := trace.ID{Proc: 5, Thread: 2}
	if got := first(rank(a, faulty, b)); got != want {
		t.Errorf("two normal runs: %v leads, want %v", got, want)
	}
	rk := rank(a, faulty, b, c)
	if got := first(rk); got != want {
		t.Errorf("three normal runs: %v leads, want %v", got, want)
	}
	if len(rk.AlsoNormal) != 2 {
		t.Errorf("also_normal %v", rk.AlsoNormal)
	}
}
