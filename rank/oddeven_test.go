package rank

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/trace"
)

// TestWorkedExampleCaptured is the worked example of seeds/002 §3.2.4–3.2.5
// on a real 4-rank run of examples/oddeven recorded by capture
// (testdata/runs/oddeven4-normal), not on the reference ParLOT files the nlr
// and fca tests use: with the filter mpi and K = 10 the NLRs are Table 3.3,
// the formal context is Table 3.4 and the lattice has the shape of Fig. 3.3.
func TestWorkedExampleCaptured(t *testing.T) {
	c := openRuns(t, compare.Options{}, "oddeven4-normal")
	if got := fmt.Sprint(c.IDs); got != "[0.0 1.0 2.0 3.0]" {
		t.Fatalf("traces %s, want the four ranks 0.0 … 3.0", got)
	}
	ns, err := c.Recognize([]*filters.Filter{filters.MustParse("mpi")}, []int{10})
	if err != nil {
		t.Fatal(err)
	}
	n := ns[0]

	// Table 3.3: the middle ranks loop four times, the edge ranks twice;
	// even ranks send first (L0), odd ranks receive first (L1).
	head, tail := "MPI_Init, MPI_Comm_rank, MPI_Comm_size, ", ", MPI_Finalize"
	for i, want := range []string{"L0^2", "L1^4", "L0^4", "L1^2"} {
		if got := n.Recorded(compare.Normal, i).Format(n.Names()); got != head+want+tail {
			t.Errorf("T%d = %s, want %s", i, got, head+want+tail)
		}
	}
	if got, want := strings.Join(n.Table.Legend(n.Names()), "; "), "L0 = [MPI_Send, MPI_Recv]; L1 = [MPI_Recv, MPI_Send]"; got != want {
		t.Errorf("loops %q, want %q", got, want)
	}
	for i, want := range []uint64{8, 12, 12, 8} {
		if n.Kept[compare.Normal][i] != want {
			t.Errorf("T%d: the filter kept %d calls, want %d", i, n.Kept[compare.Normal][i], want)
		}
	}

	// Table 3.4: every trace has the four calls; L0 marks the even ranks,
	// L1 the odd ones.
	ctx, err := n.Context(compare.Normal, fca.Mode{}, compare.Threads)
	if err != nil {
		t.Fatal(err)
	}
	shared := []string{"MPI_Comm_rank", "MPI_Comm_size", "MPI_Finalize", "MPI_Init"}
	for o := range ctx.Len() {
		var got []string
		for _, a := range ctx.Attrs(o) {
			got = append(got, ctx.AttrName(a))
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(append([]string{[]string{"L0", "L1"}[o%2]}, shared...)))
		if !slices.Equal(got, want) {
			t.Errorf("trace %v: attributes %v, want %v (Table 3.4)", ctx.ID(o), got, want)
		}
	}
	var table strings.Builder
	if err := ctx.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	const table34 = `trace  MPI_Init  MPI_Comm_rank  MPI_Comm_size  L0  MPI_Finalize  L1
0.0       ×            ×              ×        ×        ×
1.0       ×            ×              ×                 ×        ×
2.0       ×            ×              ×        ×        ×
3.0       ×            ×              ×                 ×        ×
`
	if table.String() != table34 {
		t.Errorf("formal context:\n%s\nwant:\n%s", table.String(), table34)
	}

	// Fig. 3.3: a top with the four shared calls and every trace, {0, 2}
	// (L0) and {1, 3} (L1) below it, and an empty bottom with every
	// attribute.
	sim, err := n.Similarity(fca.Mode{}, compare.Threads)
	if err != nil {
		t.Fatal(err)
	}
	l := sim.Lattice[compare.Normal]
	if l == nil {
		t.Fatal("no lattice: the JSM was computed from bitsets")
	}
	if l.Len() != 4 {
		t.Fatalf("%d concepts, want the 4 of Fig. 3.3", l.Len())
	}
	objects := func(classes []int) string {
		var ids []string
		for _, k := range classes {
			for _, o := range ctx.Members(k) {
				ids = append(ids, ctx.ID(o).String())
			}
		}
		slices.Sort(ids)
		return strings.Join(ids, " ")
	}
	attrs := func(as []int) string {
		var s []string
		for _, a := range as {
			s = append(s, ctx.AttrName(a))
		}
		slices.Sort(s)
		return strings.Join(s, " ")
	}
	top, bottom := l.Top(), l.Bottom()
	if got := objects(l.Extent(top)); got != "0.0 1.0 2.0 3.0" {
		t.Errorf("top holds %q, want every trace", got)
	}
	if got := attrs(l.Intent(top)); got != strings.Join(shared, " ") {
		t.Errorf("top's attributes %q, want the four shared calls", got)
	}
	if got := objects(l.Extent(bottom)); got != "" {
		t.Errorf("bottom holds %q, want no trace", got)
	}
	if got := attrs(l.Intent(bottom)); got != "L0 L1 "+strings.Join(shared, " ") {
		t.Errorf("bottom's attributes %q, want all six", got)
	}
	middle := map[string]string{}
	for _, m := range l.Children(top) {
		if !slices.Equal(l.Children(m), []int{bottom}) {
			t.Errorf("concept %d lies above %v, want the bottom alone", m, l.Children(m))
		}
		middle[objects(l.Extent(m))] = attrs(l.ReducedIntent(m))
	}
	if fmt.Sprint(middle) != "map[0.0 2.0:L0 1.0 3.0:L1]" {
		t.Errorf("below the top: %v, want {0.0, 2.0} with L0 and {1.0, 3.0} with L1", middle)
	}

	// Fig. 3.4: the JSM of Table 3.4 (4 of 6 attributes shared between an
	// even and an odd rank).
	for a := range 4 {
		for b := range 4 {
			want := 1.0
			if a%2 != b%2 {
				want = 4.0 / 6
			}
			if got := sim.JSM[compare.Normal].At(a, b); got != want {
				t.Errorf("JSM[%d][%d] = %v, want %v", a, b, got, want)
			}
		}
	}
}

// TestSwapBugRanking: the swapBug changes rank 5 alone, and every
// combination that sees a difference names trace 5 (thread 5.0, process 5)
// alone as the most suspicious. The rows without suspects are those of the
// filter str, which keeps only the strcmp calls of argument parsing: every
// rank of the faulty run parses "--swap-bug 5 7" alike, so their
// similarities do not change.
func TestSwapBugRanking(t *testing.T) {
	rk := sweepRuns(t, "oddeven-normal", "oddeven-swapbug", defaultGrid(t, ""))
	if got := strings.Join(rk.Filters, " "); got != "mpi mpi.sr str all" {
		t.Errorf("filters %q after pruning, want mpi mpi.sr str all", got)
	}
	if len(rk.Rows) != 4*6*4 {
		t.Fatalf("%d rows, want 96", len(rk.Rows))
	}
	found := 0
	for _, r := range rk.Rows {
		if len(r.Threads) == 0 {
			if r.Filter != "str" {
				t.Errorf("%s: no suspect", rowName(r))
			}
			continue
		}
		found++
		if id, sole := soleFirst(r.Threads); id != tid(5, 0) || !sole {
			t.Errorf("%s: top threads %v, want 5.0 alone first", rowName(r), r.Threads)
		}
		if id, sole := soleFirst(r.Processes); id != pid(5) || !sole {
			t.Errorf("%s: top processes %v, want 5 alone first", rowName(r), r.Processes)
		}
		if r.BScore > 1 || r.BScore <= 0 {
			t.Errorf("%s: B-score %v out of (0, 1]", rowName(r), r.BScore)
		}
	}
	if found != 72 {
		t.Errorf("%d rows with suspects, want 72 (all but the 24 of str)", found)
	}
	for _, votes := range [][]Vote{rk.ThreadVotes, rk.ProcessVotes} {
		if len(votes) < 1 || votes[0].First != 72 || votes[0].Listed != 72 || len(votes) > 1 && votes[1].First != 0 {
			t.Errorf("consensus %v, want trace 5 first in all 72 rows, nobody else ever first", votes)
		}
	}
	if rk.ThreadVotes[0].ID != tid(5, 0) || rk.ProcessVotes[0].ID != pid(5) {
		t.Errorf("consensus top %v / %v, want 5.0 / 5", rk.ThreadVotes[0].ID, rk.ProcessVotes[0].ID)
	}
	// The rows are sorted by B-score, the lowest (most changed clustering)
	// first.
	for i := 1; i < len(rk.Rows); i++ {
		if rk.Rows[i].BScore < rk.Rows[i-1].BScore {
			t.Fatalf("row %d has B-score %v after %v", i, rk.Rows[i].BScore, rk.Rows[i-1].BScore)
		}
	}
}

// TestDeadlockBugRanking: the dlBug makes rank 5 receive with a wrong tag in
// phase 7; its partner 6 has sent and waits for 5, 5 waits for a message
// that never comes, and the hang spreads to every rank, each stopping in
// MPI_Recv at a different phase. Every trace changes, so the JSM_D rows of
// many traces move alike (seeds/002 reports the same of its deadlock,
// Table 3.7): the consensus puts 5.0 first (32 of 96 rows), 6.0 second (24)
// and 0.0 third (16), and this test holds trace 5 to the top three.
//
//   - 5.0 (first under mpi and mpi.sr with double attributes and with
//     sing.noFreq, where the odd ranks 1 … 13 tie, the traces that end in
//     an open MPI_Recv after an L1 loop): it wins them on progress, having
//     lost the most iterations of all (7 of 16 done). Call traces cannot
//     show the wrong tag itself; they show a head-to-head wait of 5 and 6
//     that stopped both in phase 7.
//   - 6.0 (first in 24 rows, sing.actual and sing.log10): 5's partner in
//     the head-to-head Recv || Recv, blocked in the same phase. Under these
//     modes the even ranks tie at the top — an even rank's blocked MPI_Recv
//     closes its last [Send, Recv] iteration, while an odd rank's opens a
//     trailing MPI_Recv that all odd ranks share, which keeps the odd ranks
//     closer to each other — and 6 wins the tie on progress: it stopped
//     first among them.
//   - 0.0 (first in 16 rows, all of them under the filter all, with double
//     attributes and with sing.noFreq): the first rank is an edge rank (its
//     loop body is [MPI_Send, MPI_Recv]) that stopped in phase 6 with a
//     send and a receive open after its loop, a pair no other trace has.
//   - 15.0 is listed nowhere: the last rank finished its eight phases and
//     hung in MPI_Finalize, so its compare.NLR is the same in both runs under every
//     filter once the command line that every rank of the faulty run parses
//     ("--deadlock-bug 5 7": strcmp, atoi) is set aside as run-wide.
func TestDeadlockBugRanking(t *testing.T) {
	rk := sweepRuns(t, "oddeven-normal", "oddeven-dlbug", defaultGrid(t, ""))
	for _, votes := range [][]Vote{rk.ThreadVotes, rk.ProcessVotes} {
		if len(votes) < 3 {
			t.Fatalf("consensus %v, want at least three traces", votes)
		}
		id := votes[0].ID
		if i := place(votes, trace.ID{Proc: 5, Thread: id.Thread}); i < 0 || i > 2 {
			t.Errorf("trace 5 is at place %d of the consensus %v, want in the top three", i+1, votes[:3])
		}
	}
	want := map[trace.ID]int{tid(5, 0): 32, tid(6, 0): 24, tid(0, 0): 16}
	for id, first := range want {
		if v := vote(rk.ThreadVotes, id); v.First != first {
			t.Errorf("%v was first in %d rows, want %d (see the test's comment)", id, v.First, first)
		}
	}
	if rk.ThreadVotes[0].ID != tid(5, 0) || rk.ProcessVotes[0].ID != pid(5) {
		t.Errorf("consensus top %v / %v, want 5.0 / 5", rk.ThreadVotes[0], rk.ProcessVotes[0])
	}
	// 15.0 is no suspect: its compare.NLR is the same in both runs but for the
	// run-wide command line.
	for _, r := range rk.Rows {
		if slices.ContainsFunc(r.Threads, func(s Suspect) bool { return s.ID == tid(15, 0) }) {
			t.Errorf("%s: 15.0 listed", rowName(r))
		}
	}
	// Trace 5 lost the most loop iterations of all: in every row where it
	// is listed, no suspect shows a larger progress change.
	for _, r := range rk.Rows {
		i := slices.IndexFunc(r.Threads, func(s Suspect) bool { return s.ID == tid(5, 0) })
		if i < 0 {
			continue
		}
		for _, s := range r.Threads {
			if s.Progress > r.Threads[i].Progress {
				t.Errorf("%s: %v changed progress by %v, more than 5.0's %v", rowName(r), s.ID, s.Progress, r.Threads[i].Progress)
			}
		}
		if r.Threads[i].Progress != 0.5625 && r.Filter != "all" {
			t.Errorf("%s: 5.0's progress change %v, want 9/16", rowName(r), r.Threads[i].Progress)
		}
	}
}
