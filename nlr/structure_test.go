package nlr

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

// events builds a trace's raw events from a nest written as
// "main(step(a b c) step(a b c))": a name is a call, parentheses hold what
// it calls before it returns.
type events struct {
	tab *trace.Table
}

func (e events) parse(s string) []trace.Symbol {
	var out []trace.Symbol
	s = strings.NewReplacer("(", " ( ", ")", " ) ").Replace(s)
	toks := strings.Fields(s)
	for i, tok := range toks {
		switch tok {
		case "(":
		case ")":
			out = append(out, trace.Return)
		default:
			out = append(out, e.tab.Intern(trace.Name{Func: tok}))
			if i+1 == len(toks) || toks[i+1] != "(" {
				out = append(out, trace.Return) // a leaf call
			}
		}
	}
	return out
}

// kept returns the calls keep keeps, in order: the flat filtered trace.
func kept(ev []trace.Symbol, keep func(trace.Symbol) bool) []trace.Symbol {
	var out []trace.Symbol
	for _, s := range ev {
		if s != trace.Return && keep(s) {
			out = append(out, s)
		}
	}
	return out
}

func (e events) names(s Sequence, t *Table) (string, []string) {
	name := func(s trace.Symbol) string { return e.tab.Name(s).Func }
	return s.Format(name), t.Legend(name, s)
}

// step writes a time step of n distinct leaf calls a1 … an.
func step(n int) string {
	var b strings.Builder
	b.WriteString("step(")
	for i := range n {
		fmt.Fprintf(&b, "a%d ", i)
	}
	b.WriteString(")")
	return b.String()
}

func repeat(s string, n int) string { return strings.TrimSpace(strings.Repeat(s+" ", n)) }

// A time step of 29 calls, 13 times: flat NLR with K = 10 cannot fold it;
// by call structure it is one loop of 13, whatever its length.
func TestStructureFoldsLongSteps(t *testing.T) {
	e := events{trace.NewTable()}
	all := func(trace.Symbol) bool { return true }
	ev := e.parse("main(init " + repeat(step(29), 13) + " done)")
	seqs, tab, err := Recognize([]Input{{ID: trace.ID{}, Symbols: ev, Keep: all}}, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, legend := e.names(seqs[0], tab)
	if got != "main, init, L0^13, done" {
		t.Errorf("NLR %q, want main, init, L0^13, done", got)
	}
	if len(legend) != 1 || !strings.HasPrefix(legend[0], "L0 = [step, a0, a1, ") || !strings.HasSuffix(legend[0], ", a28]") {
		t.Errorf("legend %q", legend)
	}
	flat, _, err := Recognize([]Input{{ID: trace.ID{}, Symbols: kept(ev, all)}}, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(flat[0]) < 13*30 {
		t.Errorf("flat NLR has %d elements; the test assumes it cannot fold the step", len(flat[0]))
	}
}

// Several hundred calls a step, nested four deep, with loops inside: the
// step folds, and the loops inside it fold as they would alone.
func TestStructureFoldsDeepSteps(t *testing.T) {
	e := events{trace.NewTable()}
	all := func(trace.Symbol) bool { return true }
	phase := func(name string, cells int) string {
		return name + "(" + repeat("row("+repeat("cell(at at at)", cells)+")", 8) + ")"
	}
	body := "step(exchange(pack send recv unpack) " + phase("diffuse", 10) + " " + phase("advect", 12) + " " + phase("relax", 6) + " reduce)"
	ev := e.parse("main(" + repeat(body, 20) + ")")
	if n := len(kept(ev, all)); n < 20*500 {
		t.Fatalf("the test's steps are too short: %d calls", n)
	}
	seqs, tab, err := Recognize([]Input{{ID: trace.ID{}, Symbols: ev, Keep: all}}, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := e.names(seqs[0], tab)
	if !strings.HasPrefix(got, "main, L") || !strings.HasSuffix(got, "^20") || strings.Count(got, ",") != 1 {
		t.Errorf("NLR %q, want main and one loop of 20 steps", got)
	}
	back, err := tab.Expand(nil, seqs[0])
	if err != nil || !slices.Equal(back, kept(ev, all)) {
		t.Errorf("the NLR does not expand to the trace: %v", err)
	}
}

// A filter that drops the step and most of its calls still folds the kept
// ones by the step's nesting: 25 MPI calls a step, beyond K.
func TestStructureDroppedCallsKeepNesting(t *testing.T) {
	e := events{trace.NewTable()}
	var calls []string
	for i := range 25 {
		calls = append(calls, fmt.Sprintf("compute%d(MPI_Op%d)", i, i))
	}
	ev := e.parse("main(MPI_Init " + repeat("step("+strings.Join(calls, " ")+")", 9) + " MPI_Finalize)")
	mpi := func(s trace.Symbol) bool { return strings.HasPrefix(e.tab.Name(s).Func, "MPI_") }
	seqs, tab, err := Recognize([]Input{{ID: trace.ID{}, Symbols: ev, Keep: mpi}}, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, legend := e.names(seqs[0], tab)
	if got != "MPI_Init, L0^9, MPI_Finalize" || len(legend) != 1 || !strings.HasPrefix(legend[0], "L0 = [MPI_Op0, MPI_Op1, ") {
		t.Errorf("NLR %q, legend %q", got, legend)
	}
}

// A trace cut short inside calls (a hang) folds what it has; returns with
// no open call are ignored.
func TestStructureOpenCalls(t *testing.T) {
	e := events{trace.NewTable()}
	all := func(trace.Symbol) bool { return true }
	ev := e.parse("main(" + repeat(step(12), 5) + " step(a0 a1 wait(") // main, step and wait never return
	ev = append([]trace.Symbol{trace.Return}, ev...)
	seqs, tab, err := Recognize([]Input{{ID: trace.ID{}, Symbols: ev, Keep: all}}, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := e.names(seqs[0], tab)
	if got != "main, L0^5, step, a0, a1, wait" {
		t.Errorf("NLR %q", got)
	}
}

// nest returns random raw events: calls of a few names nesting a few
// levels deep, with repeated subtrees, as real programs make.
func nest(rng *rand.Rand, tab *trace.Table, depth int) []trace.Symbol {
	var out []trace.Symbol
	for range 1 + rng.IntN(4) {
		var sub []trace.Symbol
		sub = append(sub, tab.Intern(trace.Name{Func: fmt.Sprintf("f%d", rng.IntN(6))}))
		if depth > 0 && rng.IntN(2) == 0 {
			sub = append(sub, nest(rng, tab, depth-1)...)
		}
		sub = append(sub, trace.Return)
		for range 1 + rng.IntN(5) {
			out = append(out, sub...)
		}
	}
	return out
}

// Whatever the nesting, the filter and K, structural folding is lossless:
// each trace's NLR expands to its filtered calls; and it does not depend on
// how the events are chunked.
func TestStructureLossless(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 300 {
		tab := trace.NewTable()
		var in []Input
		drop := trace.Symbol(1 + rng.IntN(7))
		keep := func(s trace.Symbol) bool { return s != drop }
		for p := range 1 + rng.IntN(4) {
			ev := nest(rng, tab, 1+rng.IntN(4))
			if rng.IntN(4) == 0 {
				ev = ev[:rng.IntN(len(ev)+1)] // cut short
			}
			in = append(in, Input{Run: p % 2, ID: trace.ID{Proc: p}, Symbols: ev, Keep: keep})
		}
		k := 1 + rng.IntN(10)
		seqs, table, err := Recognize(in, k, 2)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range seqs {
			back, err := table.Expand(nil, s)
			if err != nil {
				t.Fatal(err)
			}
			if want := kept(in[i].Symbols, keep); !slices.Equal(back, want) {
				t.Fatalf("trial %d, trace %d, K %d: expands to %v, want %v", trial, i, k, back, want)
			}
		}
		// In chunks of 1 to 3 events: the same NLR.
		d, _ := NewStructuralDiscoverer(k, keep, false)
		for ev := in[0].Symbols; len(ev) > 0; {
			n := min(len(ev), 1+rng.IntN(3))
			d.PushEvents(ev[:n])
			ev = ev[n:]
		}
		chunked, _, err := Fold([]Discovered{{Run: in[0].Run, ID: in[0].ID, D: d}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		alone, _, _ := Recognize(in[:1], k, 1)
		if !chunked[0].Equal(alone[0]) {
			t.Fatalf("trial %d: chunked %v, whole %v", trial, chunked[0], alone[0])
		}
	}
}

// A flat block longer than K, repeated, is found; one that folded, or a
// sequence with no repeats, is not.
func TestUnfolded(t *testing.T) {
	var block Sequence
	for i := range 13 {
		block = append(block, Element{Loop: NoLoop, Sym: trace.Symbol(i + 1)})
	}
	s := Sequence{{Loop: NoLoop, Sym: 99}}
	for range 4 {
		s = append(s, block...)
	}
	if got := Unfolded(s, 10, 100); got != 13 {
		t.Errorf("Unfolded = %d, want 13", got)
	}
	if got := Unfolded(s, 13, 100); got != 0 {
		t.Errorf("with K 13: Unfolded = %d, want 0 (K 13 folds it)", got)
	}
	if got := Unfolded(block, 2, 100); got != 0 {
		t.Errorf("no repeat: Unfolded = %d", got)
	}
}

// quietNLR folds the raw events ev by call structure, keeping the calls
// keep keeps, with polling quieted where poll is set.
func quietNLR(t *testing.T, e events, ev []trace.Symbol, keep, poll func(trace.Symbol) bool) string {
	t.Helper()
	d, err := NewStructuralDiscoverer(10, keep, false)
	if err != nil {
		t.Fatal(err)
	}
	if poll != nil {
		d.QuietPolling(poll)
	}
	d.PushEvents(ev)
	seqs, tab, err := Fold([]Discovered{{ID: trace.ID{}, D: d}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, legend := e.names(seqs[0], tab)
	return got + " " + strings.Join(legend, "; ")
}

// A receive loop that polls with MPI_Test a different number of times each
// iteration folds into one loop once polling is quiet: how long it waited
// is not what it did. A stretch of alternating polling calls reads as each
// once; a kept call that is no polling ends a stretch; a dropped call that
// keeps nothing below it does not.
func TestQuietPolling(t *testing.T) {
	e := events{trace.NewTable()}
	var iters []string
	for i := range 6 {
		iters = append(iters, "wait("+repeat("MPI_Test", i+1)+") MPI_Recv")
	}
	ev := e.parse("main(MPI_Init " + strings.Join(iters, " ") + " MPI_Finalize)")
	mpi := func(s trace.Symbol) bool { return strings.HasPrefix(e.tab.Name(s).Func, "MPI_") }
	poll := func(s trace.Symbol) bool {
		n := e.tab.Name(s).Func
		return n == "MPI_Test" || n == "MPI_Iprobe" || n == "sched_yield"
	}
	if got, want := quietNLR(t, e, ev, mpi, poll), "MPI_Init, L0^6, MPI_Finalize L0 = [MPI_Test, MPI_Recv]"; got != want {
		t.Errorf("quiet: %q, want %q", got, want)
	}
	if got := quietNLR(t, e, ev, mpi, nil); strings.HasPrefix(got, "MPI_Init, L0^6,") {
		t.Errorf("exact polling folded the iterations alike: %q", got)
	}
	all := func(trace.Symbol) bool { return true }
	ev = e.parse("MPI_Iprobe sched_yield MPI_Iprobe sched_yield MPI_Iprobe MPI_Recv MPI_Test compute MPI_Test idle() MPI_Test")
	noIdle := func(s trace.Symbol) bool { return e.tab.Name(s).Func != "idle" }
	if got, want := quietNLR(t, e, ev, noIdle, poll), "MPI_Iprobe, sched_yield, MPI_Recv, MPI_Test, compute, MPI_Test "; got != want {
		t.Errorf("stretches: %q, want %q", got, want)
	}
	if got, want := quietNLR(t, e, ev, all, poll), "MPI_Iprobe, sched_yield, MPI_Recv, MPI_Test, compute, MPI_Test, idle, MPI_Test "; got != want {
		t.Errorf("a kept call between: %q, want %q", got, want)
	}
}

// Seal lets go of the pass-1 machinery and nothing else: Fold gives the
// same NLRs and table for sealed Discoverers, by call structure and flat,
// with K small and large (the indexed reducer).
func TestSealSameFold(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 12))
	for trial := range 200 {
		tab := trace.NewTable()
		keep := func(s trace.Symbol) bool { return s != 3 }
		var evs [][]trace.Symbol
		for range 1 + rng.IntN(4) {
			evs = append(evs, nest(rng, tab, 1+rng.IntN(4)))
		}
		k := 1 + rng.IntN(10)
		if trial%4 == 0 {
			k = 40 + rng.IntN(40)
		}
		structural := trial%2 == 0
		fold := func(seal bool) ([]Sequence, *Table) {
			var ds []*Discoverer
			for _, ev := range evs {
				d := discoverOne(k, ev, keep, structural, false)
				if seal {
					d.Seal()
				}
				ds = append(ds, d)
			}
			return foldAll(t, ds)
		}
		want, wt := fold(false)
		got, gt := fold(true)
		sameFold(t, trial, "sealed", got, gt, want, wt)
	}
}
