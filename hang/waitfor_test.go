package hang

import (
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/decode"
)

// manifest builds a run's manifest of n ranks from what each rank's main
// thread waited for (nil: in no wrapped call).
func manifest(waits ...*decode.Waiting) *decode.Manifest {
	m := &decode.Manifest{}
	for r, w := range waits {
		m.Ranks = append(m.Ranks, decode.Rank{Rank: r, Threads: []decode.Thread{{Thread: 0, Waiting: w}}})
	}
	return m
}

func p2p(call string, peers ...int) *decode.Waiting {
	return &decode.Waiting{Call: call, Peers: peers}
}

var world = &decode.Waiting{Call: "MPI_Allreduce", Peers: []int{}, Collective: true, World: true}

func suspectRanks(s []Suspect) []int {
	var out []int
	for _, x := range s {
		out = append(out, x.Trace.Proc)
	}
	return out
}

func TestWaitForSuspects(t *testing.T) {
	for _, c := range []struct {
		name   string
		m      *decode.Manifest
		want   []int
		cycles [][]int
		reason string
	}{
		{
			// Rank 2 left out its send to rank 1 and went on to the
			// collective, where everyone else waits for rank 1.
			name: "left-out send", m: manifest(world, p2p("MPI_Waitall", 2), world, world),
			want: []int{2}, cycles: [][]int{{1, 2}},
			reason: "rank 1 waits in MPI_Waitall for it, but it went on to MPI_Allreduce (waiting there for rank 1)",
		},
		{
			// Ranks 2 and 3 receive from each other; the ranks around
			// them wait down a chain that ends there: only the ends
			// are suspects.
			name: "chain into a deadlock", m: manifest(p2p("MPI_Recv", 1), p2p("MPI_Recv", 2), p2p("MPI_Recv", 3), p2p("MPI_Recv", 2), p2p("MPI_Recv", 3), p2p("MPI_Recv", 4)),
			want: []int{2, 3}, cycles: [][]int{{2, 3}},
			reason: "it and rank 3 wait for each other in point-to-point calls (MPI_Recv): a deadlock",
		},
		{
			// Rank 1 is in no MPI call: it computes, or has ended.
			name: "waiting for a rank that computes", m: manifest(p2p("MPI_Recv", 1), nil, world),
			want: []int{1}, cycles: [][]int{},
			reason: "rank 0 waits in MPI_Recv for it, but it is in no MPI call the wrapper knows",
		},
		{
			name: "all in one collective", m: manifest(world, world, world),
			want: nil, cycles: [][]int{},
		},
	} {
		wf := waitFor(c.m)
		s := wf.suspects(nil)
		if got := suspectRanks(s); !slices.Equal(got, c.want) {
			t.Errorf("%s: suspects %v, want %v: %+v", c.name, got, c.want, s)
		}
		if !slices.EqualFunc(wf.Cycles, c.cycles, slices.Equal) {
			t.Errorf("%s: cycles %v, want %v", c.name, wf.Cycles, c.cycles)
		}
		if c.reason != "" && (len(s) == 0 || !strings.HasPrefix(s[0].Reason, c.reason)) {
			t.Errorf("%s: reason %q, want it to start %q", c.name, s[0].Reason, c.reason)
		}
	}
}

// A collective's members that are in the same collective have arrived: a
// rank in it waits only for those that are not. Two collectives on
// different communicators are different collectives.
func TestWaitForCollectives(t *testing.T) {
	sub := &decode.Waiting{Call: "MPI_Barrier", Peers: []int{1, 3}, Collective: true}
	m := manifest(world, p2p("MPI_Wait", 3), world, sub)
	wf := waitFor(m)
	want := map[int][]int{0: {1, 3}, 1: {3}, 2: {1, 3}, 3: {1}}
	for _, w := range wf.Waits {
		if !slices.Equal(w.For, want[w.Trace.Proc]) {
			t.Errorf("rank %d waits for %v, want %v", w.Trace.Proc, w.For, want[w.Trace.Proc])
		}
	}
	lines := strings.Join(wf.lines(), "\n")
	for _, l := range []string{"ranks 0 and 2 in MPI_Allreduce for ranks 1 and 3, not in it", "rank 1 in MPI_Wait for rank 3", "rank 3 in MPI_Barrier for rank 1, not in it", "a cycle of waits: 1, 3 wait for each other"} {
		if !strings.Contains(lines, l) {
			t.Errorf("lines lack %q:\n%s", l, lines)
		}
	}
	if waitFor(manifest(nil, nil)) != nil {
		t.Errorf("a run without waits has a wait-for relation")
	}
}

// A rank that went on having made every call its normal run makes did its
// part: the rank waiting for it is named first, its receive the call that
// never matched, and the rank that went on after it.
func TestWaitForKeptUp(t *testing.T) {
	m := manifest(world, p2p("MPI_Waitall", 0), world, world)
	wf := waitFor(m)
	s := wf.suspects(func(rank int) bool { return true })
	if got := suspectRanks(s); !slices.Equal(got, []int{1, 0}) {
		t.Fatalf("suspects %v, want 1 then 0: %+v", got, s)
	}
	if !strings.HasPrefix(s[0].Reason, "it waits in MPI_Waitall for rank 0, which made every call its normal run makes before it went on to MPI_Allreduce") {
		t.Errorf("reason of 1: %q", s[0].Reason)
	}
	// A rank that left something out stays the one named.
	s = wf.suspects(func(rank int) bool { return rank != 0 })
	if got := suspectRanks(s); !slices.Equal(got, []int{0}) || !strings.Contains(s[0].Reason, "it left out a send or receive rank 1 waits for") {
		t.Errorf("rank 0 left something out: %+v", s)
	}
}
