package compare

import (
	"strings"
	"testing"

	"github.com/difftrace/difftrace/filters"
)

// TestSwapBugNLR checks the NLRs of seeds/002 Fig. 3.5b on the captured
// 16-rank runs: with the filter mpi, trace 5 is L1^16 in the normal run and
// L1^7, L0^9 in the faulty one (rank 5 swaps Send and Recv from phase 7 on);
// every other trace is the same in both runs.
func TestSwapBugNLR(t *testing.T) {
	c := openRuns(t, Options{}, "oddeven-normal", "oddeven-swapbug")
	ns, err := c.Recognize([]*filters.Filter{filters.MustParse("mpi")}, []int{10})
	if err != nil {
		t.Fatal(err)
	}
	n := ns[0]
	if got, want := strings.Join(n.Table.Legend(n.Names()), "; "), "L0 = [MPI_Send, MPI_Recv]; L1 = [MPI_Recv, MPI_Send]"; got != want {
		t.Errorf("loops %q, want %q", got, want)
	}
	head, tail := "MPI_Init, MPI_Comm_rank, MPI_Comm_size, ", ", MPI_Finalize"
	for i, id := range c.IDs {
		want := "L1^16"
		switch {
		case id.Proc == 0:
			want = "L0^8"
		case id.Proc == 15:
			want = "L1^8"
		case id.Proc%2 == 0:
			want = "L0^16"
		}
		if got := n.Recorded(Normal, i).Format(n.Names()); got != head+want+tail {
			t.Errorf("normal T%v = %s, want %s", id, got, head+want+tail)
		}
		if id.Proc == 5 {
			want = "L1^7, L0^9"
		}
		if got := n.Recorded(Faulty, i).Format(n.Names()); got != head+want+tail {
			t.Errorf("faulty T%v = %s, want %s", id, got, head+want+tail)
		}
	}
}

// TestDeadlockBugTraces pins the facts the ranking of the dlBug rests on
// (see TestDeadlockBugRanking): where each rank stopped, under the filter
// mpi.
func TestDeadlockBugTraces(t *testing.T) {
	c := openRuns(t, Options{}, "oddeven-normal", "oddeven-dlbug")
	ns, err := c.Recognize([]*filters.Filter{filters.MustParse("mpi")}, []int{10})
	if err != nil {
		t.Fatal(err)
	}
	n := ns[0]
	head := "MPI_Init, MPI_Comm_rank, MPI_Comm_size, "
	for i, want := range map[int]string{
		5:  "L1^7, MPI_Recv", // blocked in phase 7 on the wrong tag
		6:  "L0^8",           // sent in phase 7, blocked in its MPI_Recv
		4:  "L0^9",
		7:  "L1^8, MPI_Recv",
		15: "L1^8, MPI_Finalize", // finished its phases, hung in MPI_Finalize
	} {
		if got := n.Recorded(Faulty, i).Format(n.Names()); got != head+want {
			t.Errorf("faulty T%d = %s, want %s", i, got, head+want)
		}
	}
	prog := n.ProgressChange(Threads)
	for i, p := range prog {
		if i != 5 && p >= prog[5] {
			t.Errorf("T%d changed progress by %v, as much as T5's %v", i, p, prog[5])
		}
	}
}
