package hang

import (
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// The tree merges the frames every trace of a node passes through, and
// parts where the stacks do.
func TestBuildTree(t *testing.T) {
	ids := []trace.ID{{Proc: 0}, {Proc: 1}, {Proc: 2}, {Proc: 3}}
	stacks := [][]string{
		{"main", "step", "MPI_Allreduce"},
		{"main", "step", "exchange", "MPI_Waitall"},
		{"main", "step", "MPI_Allreduce"},
		{"main", "step", "MPI_Allreduce"},
	}
	root := buildTree(ids, stacks)
	// The text form is report's (report.HangBrief, pinned by its golden
	// files); here, the shape: all traces, main > step, then its two parts.
	if len(root.Children) != 1 || !slices.Equal(root.Children[0].Frames, []string{"main", "step"}) {
		t.Fatalf("tree: %+v", root)
	}
	kids := root.Children[0].Children
	if len(kids) != 2 || !slices.Equal(kids[0].Frames, []string{"MPI_Allreduce"}) || kids[0].List != "[0,2-3]" ||
		!slices.Equal(kids[1].Frames, []string{"exchange", "MPI_Waitall"}) || kids[1].List != "[1]" {
		t.Errorf("parts of main > step: %+v, %+v", kids[0], kids[1])
	}
	leaves := root.Leaves()
	if len(leaves) != 2 || leaves[0].Ended != 3 || !slices.Equal(leaves[1].Traces, []trace.ID{{Proc: 1}}) {
		t.Errorf("leaves: %+v", leaves)
	}
}

// A trace that stopped inside an iteration ends with the start of the
// loop's body; one that stopped between iterations, with the loop.
func TestEndPlaces(t *testing.T) {
	const a, b, c, d = 1, 2, 3, 4
	steps := func(n int, tail ...trace.Symbol) []trace.Symbol {
		s := []trace.Symbol{d}
		for range n {
			s = append(s, a, b, c)
		}
		return append(s, tail...)
	}
	seqs, tab, err := nlr.Recognize([]nlr.Input{
		{ID: trace.ID{Proc: 0}, Symbols: steps(7, a, b)}, {ID: trace.ID{Proc: 1}, Symbols: steps(7)},
		{ID: trace.ID{Proc: 2}, Symbols: steps(7, b)}, {ID: trace.ID{Proc: 3}, Symbols: []trace.Symbol{a, b}},
	}, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	l0 := seqs[1][1].Loop
	for i, want := range [][]diffnlr.Place{
		{{Loop: l0, Iteration: 8, Count: 8}},
		{{Loop: l0, Iteration: 7, Count: 7}},
		nil,
		nil,
	} {
		if got := endPlaces(tab, seqs[i]); !slices.Equal(got, want) {
			t.Errorf("endPlaces(%v) = %v, want %v", seqs[i], got, want)
		}
	}
	if n := tab.Calls(seqs[0]); n != 24 {
		t.Errorf("size = %d, want 24", n)
	}
}

// Without a trace that parted from its normal run: the one that ended
// where no peer did comes first, and a trace that made no call under the
// filter in either run (a main thread waiting in pthread_join while its
// threads work) is no suspect, however little it did.
func TestFallbackSuspects(t *testing.T) {
	id := func(th int) trace.ID { return trace.ID{Thread: th} }
	stacks := [][]string{
		{"main"},
		{"worker", "update_ab", "pthread_mutex_lock"},
		{"worker", "update_ab", "pthread_mutex_lock"},
		{"worker", "update_ba", "pthread_mutex_lock"},
		{"worker", "update_ab", "pthread_mutex_lock"},
	}
	ids := []trace.ID{id(0), id(1), id(2), id(3), id(4)}
	rep := &Report{Classes: buildTree(ids, stacks)}
	l0 := []diffnlr.Place{{Loop: 0, Iteration: 6, Count: 5}}
	for i, p := range []Progress{
		{Calls: 0, NormalCalls: 0},
		{Calls: 1, NormalCalls: 80, Reached: 1, Fraction: 1.0 / 80},
		{Calls: 2, NormalCalls: 80, Reached: 2, Fraction: 2.0 / 80},
		{Calls: 22, NormalCalls: 80, Reached: 22, Fraction: 22.0 / 80, Loops: l0},
		{Calls: 66, NormalCalls: 80, Reached: 66, Fraction: 66.0 / 80, Loops: []diffnlr.Place{{Loop: 0, Iteration: 17, Count: 16}}},
	} {
		p.Trace, p.End = ids[i], stacks[i]
		p.Where = where(p, true)
		rep.Progress = append(rep.Progress, p)
	}
	got := fallbackSuspects(rep, true)
	var s []string
	for _, x := range got {
		s = append(s, x.Trace.String())
	}
	if want := []string{"0.3", "0.1"}; !slices.Equal(s, want) {
		t.Errorf("suspects %v, want %v: %+v", s, want, got)
	}
	if !strings.HasPrefix(got[0].Reason, "the only trace that ended in update_ba > pthread_mutex_lock") {
		t.Errorf("reason: %q", got[0].Reason)
	}
}

// A rank that made every call of its normal run and then stopped inside
// the last one (MPI_Finalize, waiting for a message nobody sends), where
// every peer returned from all its calls, is the suspect: having made
// every call is no excuse for not returning from it.
func TestFallbackStoppedInLastCall(t *testing.T) {
	ids := []trace.ID{{Proc: 0}, {Proc: 1}, {Proc: 2}, {Proc: 3}}
	stacks := [][]string{nil, nil, {"main", "MPI_Finalize"}, nil}
	rep := &Report{Classes: buildTree(ids, stacks)}
	for i := range ids {
		p := Progress{Trace: ids[i], End: stacks[i], Calls: 36, NormalCalls: 36, Reached: 36, Fraction: 1}
		p.Where = where(p, true)
		rep.Progress = append(rep.Progress, p)
	}
	got := fallbackSuspects(rep, true)
	if len(got) == 0 || got[0].Trace != ids[2] || !strings.HasPrefix(got[0].Reason, "the only trace that ended in main > MPI_Finalize") {
		t.Errorf("suspects %+v, want 2.0, the only trace that ended in MPI_Finalize", got)
	}
}

// In a deadlock, a rank that finished its work waits in MPI_Finalize for
// the others: with traces behind it, it is no suspect.
func TestFallbackFinishedWaitsForOthers(t *testing.T) {
	ids := []trace.ID{{Proc: 0}, {Proc: 1}, {Proc: 2}, {Proc: 3}}
	stacks := [][]string{{"main", "sort", "MPI_Recv"}, {"main", "sort", "MPI_Recv"}, {"main", "sort", "MPI_Recv"}, {"main", "MPI_Finalize"}}
	rep := &Report{Classes: buildTree(ids, stacks)}
	for i, reached := range []uint64{20, 12, 20, 36} {
		p := Progress{Trace: ids[i], End: stacks[i], Calls: reached, NormalCalls: 36, Reached: reached, Fraction: float64(reached) / 36}
		p.Where = where(p, true)
		rep.Progress = append(rep.Progress, p)
	}
	got := fallbackSuspects(rep, true)
	if len(got) == 0 || got[0].Trace != ids[1] || slices.ContainsFunc(got, func(s Suspect) bool { return s.Trace == ids[3] }) {
		t.Errorf("suspects %+v, want 1.0 (got least far) first and not 3.0 (waiting in MPI_Finalize)", got)
	}
}

// Runs puts the normal run first, when given, and leaves its argument as
// it was.
func TestRuns(t *testing.T) {
	if got := Runs("hung"); !slices.Equal(got, []string{"hung"}) {
		t.Errorf("Runs(hung) = %q", got)
	}
	args := []string{"hung", "normal"}
	if got := Runs(args[0], args[1:]...); !slices.Equal(got, []string{"normal", "hung"}) || !slices.Equal(args, []string{"hung", "normal"}) {
		t.Errorf("Runs(hung, normal) = %q, arguments now %q", got, args)
	}
}
