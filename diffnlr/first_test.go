package diffnlr

import (
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// firstOf recognises the loops of a normal and a faulty trace (flat
// calls, or with nested set raw events folded by call structure) and
// returns where they first part, with the table's names.
func firstOf(t *testing.T, tab *trace.Table, normal, faulty []trace.Symbol, nested bool) (First, bool, func(trace.Symbol) string) {
	t.Helper()
	var keep func(trace.Symbol) bool
	if nested {
		keep = func(trace.Symbol) bool { return true }
	}
	seqs, table, err := nlr.Recognize([]nlr.Input{
		{Run: 0, Symbols: normal, Keep: keep}, {Run: 1, Symbols: faulty, Keep: keep},
	}, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	f, ok := FirstDifference(table, seqs[0], seqs[1])
	return f, ok, func(s trace.Symbol) string { return tab.Name(s).Func }
}

func syms(tab *trace.Table, names ...string) []trace.Symbol {
	var out []trace.Symbol
	for _, n := range names {
		if n == ")" {
			out = append(out, trace.Return)
			continue
		}
		out = append(out, tab.Intern(trace.Name{Func: n}))
	}
	return out
}

func rep(s []trace.Symbol, n int) []trace.Symbol {
	var out []trace.Symbol
	for range n {
		out = append(out, s...)
	}
	return out
}

// swapBug: from the eighth phase on, send before receive. A minimal diff
// would call that one receive missing; First names the swap.
func TestFirstDifferenceSwap(t *testing.T) {
	tab := trace.NewTable()
	init, fin := syms(tab, "MPI_Init"), syms(tab, "MPI_Finalize")
	rs, sr := syms(tab, "MPI_Recv", "MPI_Send"), syms(tab, "MPI_Send", "MPI_Recv")
	normal := slices.Concat(init, rep(rs, 16), fin)
	faulty := slices.Concat(init, rep(rs, 7), rep(sr, 9), fin)
	f, ok, name := firstOf(t, tab, normal, faulty, false)
	if !ok || f.Common != 15 || len(f.Loops) != 1 || f.Loops[0].Iteration != 8 || f.Loops[0].Count != 16 || !f.Reordered {
		t.Fatalf("First = %+v, %v", f, ok)
	}
	want := "first difference: iteration 8 of 16 of L0, in main > oddEvenSort: the same calls in another order: MPI_Recv, MPI_Send in the normal run, MPI_Send, MPI_Recv in the faulty run"
	if got := f.Text(name, []string{"main", "oddEvenSort"}); got != want {
		t.Errorf("Text:\n%s\nwant\n%s", got, want)
	}
}

// A time step of a dozen calls, twelve steps; in step 6 the faulty run
// skips the exchange and what it calls. Folded by call structure, the point
// is iteration 6 of the step loop, and the exchange is missing.
func TestFirstDifferenceSkippedCall(t *testing.T) {
	tab := trace.NewTable()
	ex := syms(tab, "exchange", "pack", ")", "send", ")", "recv", ")", ")")
	rest := syms(tab, "compute", ")", "relax", "sweep", ")", "sweep", ")", ")", "reduce", ")")
	step := func(skip bool) []trace.Symbol {
		s := syms(tab, "step")
		if !skip {
			s = append(s, ex...)
		}
		return append(append(s, rest...), trace.Return)
	}
	main := syms(tab, "main")
	normal := slices.Concat(main, rep(step(false), 12), syms(tab, ")"))
	faulty := slices.Concat(main, rep(step(false), 5), step(true), rep(step(false), 6), syms(tab, ")"))
	f, ok, name := firstOf(t, tab, normal, faulty, true)
	if !ok || len(f.Loops) != 1 || f.Loops[0].Iteration != 6 || f.Loops[0].Count != 12 || f.Reordered {
		t.Fatalf("First = %+v, %v", f, ok)
	}
	got := f.Text(name, nil)
	if !strings.HasPrefix(got, "first difference: iteration 6 of 12 of L") || !strings.HasSuffix(got, ": exchange and 3 more calls missing") {
		t.Errorf("Text: %s", got)
	}
	if f.Common != 1+5*10+1 {
		t.Errorf("Common = %d, want %d (main, five steps, the sixth step's call)", f.Common, 1+5*10+1)
	}
}

// A hang: the faulty trace stops in the middle of a loop; identical traces
// do not part; a long common loop is skipped whole.
func TestFirstDifferenceEnds(t *testing.T) {
	tab := trace.NewTable()
	body := syms(tab, "a", "b", "c")
	normal := slices.Concat(rep(body, 1000), syms(tab, "fin"))
	faulty := slices.Concat(rep(body, 1000))
	f, ok, name := firstOf(t, tab, normal, faulty, false)
	if !ok || !f.FaultyEnded || f.NormalEnded || f.Common != 3000 {
		t.Fatalf("First = %+v, %v", f, ok)
	}
	if got := f.Text(name, nil); got != "first difference: after 3,000 calls: the faulty trace ends here; the normal run goes on with fin" {
		t.Errorf("Text: %s", got)
	}
	// With a call stack and no loop around the place, the count stays:
	// it says which of many alike places it is.
	if got := f.Text(name, []string{"main", "worker"}); got != "first difference: after 3,000 calls, in main > worker: the faulty trace ends here; the normal run goes on with fin" {
		t.Errorf("Text with a stack: %s", got)
	}
	if _, ok, _ := firstOf(t, tab, normal, normal, false); ok {
		t.Error("identical traces part")
	}
	f, ok, name = firstOf(t, tab, faulty[:6], normal, false)
	if !ok || !f.NormalEnded || f.Common != 6 || !strings.Contains(f.Text(name, nil), "the normal trace ends here; the faulty run goes on with a and 2,994 more calls") {
		t.Errorf("First = %+v: %s", f, f.Text(name, nil))
	}
}

// Two receives whose order the program does not fix (from any source): a
// faulty run that takes them the other way round, compared with a normal
// run that does too, says so; a reordering of other calls does not.
func TestFirstDifferenceOrderVaries(t *testing.T) {
	tab := trace.NewTable()
	ab, ba := syms(tab, "recv_from_a", "recv_from_b", "work"), syms(tab, "recv_from_b", "recv_from_a", "work")
	normal := slices.Concat(rep(ab, 4), rep(ab, 4))
	faulty := slices.Concat(rep(ab, 4), rep(ba, 4))
	other := slices.Concat(rep(ab, 2), rep(ba, 6)) // a second normal run
	f, ok, name := firstOf(t, tab, normal, faulty, false)
	g, ok2, _ := firstOf(t, tab, normal, other, false)
	if !ok || !ok2 || !f.Reordered || !g.Reordered || !f.SameCalls(g) {
		t.Fatalf("First = %+v, %+v", f, g)
	}
	f.OrderVaries = true
	if got := f.Text(name, nil); !strings.HasSuffix(got, "in the faulty run (the normal runs order these calls differently too: an order the program does not fix, such as that of receives from any source)") {
		t.Errorf("Text: %s", got)
	}
	swap := syms(tab, "work", "recv_from_a", "recv_from_b")
	h, ok, _ := firstOf(t, tab, slices.Concat(rep(ab, 8)), slices.Concat(rep(ab, 3), rep(swap, 5)), false)
	if ok && h.Reordered && h.SameCalls(First{Reordered: true, NormalOrder: syms(tab, "unrelated"), FaultyOrder: syms(tab, "other")}) {
		t.Errorf("unrelated reorderings taken for the same calls")
	}
}

// A step that makes one copy less: the copies of later steps must not be
// matched to the rest of the short step, which would put the difference
// in the last step.
func TestFirstDifferenceShortIteration(t *testing.T) {
	tab := trace.NewTable()
	step := func(copies int) []trace.Symbol {
		return append(syms(tab, "step"), rep(syms(tab, "memcpy"), copies)...)
	}
	normal := rep(step(4), 12)
	faulty := slices.Concat(rep(step(4), 6), step(3), rep(step(4), 5))
	f, ok, name := firstOf(t, tab, normal, faulty, false)
	if !ok || len(f.Loops) != 2 || f.Loops[0].Iteration != 7 || f.Loops[0].Count != 12 || f.Loops[1].Iteration != 4 {
		t.Fatalf("First = %+v, %v", f, ok)
	}
	if got := f.Text(name, nil); !strings.HasPrefix(got, "first difference: iteration 7 of 12 of L") || !strings.HasSuffix(got, ": memcpy missing") {
		t.Errorf("Text: %s", got)
	}
	if f.Common != 6*5+1+3 {
		t.Errorf("Common = %d, want %d", f.Common, 6*5+1+3)
	}
}
