package record

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/rundir"
)

// The example runs committed under testdata/runs (make examples) are the
// project's reference data: these tests check that each really shows what
// its name promises.

const runsDir = "../../testdata/runs"

func loadRun(t *testing.T, name string, ranks, threads int) (*rundir.Manifest, []map[int][]string) {
	t.Helper()
	dir := filepath.Join(runsDir, name)
	m, err := rundir.ReadManifest(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatalf("%v (regenerate the example runs with make examples)", err)
	}
	if len(m.Ranks) != ranks {
		t.Fatalf("%s: %d ranks, want %d", name, len(m.Ranks), ranks)
	}
	var tr []map[int][]string
	for r := 0; r < ranks; r++ {
		th := readRank(t, dir, r)
		if len(th) != threads || len(m.Ranks[r].Threads) != threads {
			t.Fatalf("%s: rank %d has %d trace files and %d manifest threads, want %d", name, r, len(th), len(m.Ranks[r].Threads), threads)
		}
		for i, mt := range m.Ranks[r].Threads {
			if mt.Events != uint64(len(th[i])) {
				t.Errorf("%s: trace %d.%d holds %d events, the manifest says %d", name, r, i, len(th[i]), mt.Events)
			}
		}
		tr = append(tr, th)
	}
	return m, tr
}

// mpiOnly keeps the MPI calls of a trace (the mpi filter of seeds/002
// Table 3.1).
func mpiOnly(seq []string) []string {
	var out []string
	for _, s := range seq {
		if strings.HasPrefix(s, "MPI_") {
			out = append(out, s)
		}
	}
	return out
}

// exchanges returns rank r's expected Send/Recv sequence for np ranks,
// swapping the order from phase swapAt on (-1: never).
func exchanges(r, np, swapAt int) []string {
	out := []string{"MPI_Init", "MPI_Comm_rank", "MPI_Comm_size"}
	for i := 0; i < np; i++ {
		ptr := r - 1
		if (i%2 == 0) == (r%2 == 0) {
			ptr = r + 1
		}
		if ptr < 0 || ptr >= np {
			continue
		}
		sendFirst := r%2 == 0
		if swapAt >= 0 && i >= swapAt {
			sendFirst = !sendFirst
		}
		if sendFirst {
			out = append(out, "MPI_Send", "MPI_Recv")
		} else {
			out = append(out, "MPI_Recv", "MPI_Send")
		}
	}
	return append(out, "MPI_Finalize")
}

func TestRunOddevenNormal(t *testing.T) {
	for _, c := range []struct {
		name string
		np   int
	}{{"oddeven4-normal", 4}, {"oddeven-normal", 16}} {
		m, tr := loadRun(t, c.name, c.np, 1)
		for r := 0; r < c.np; r++ {
			if !m.Ranks[r].Exited || m.Ranks[r].ExitStatus != 0 {
				t.Errorf("%s: rank %d did not end normally: %+v", c.name, r, m.Ranks[r])
			}
			if got, want := mpiOnly(tr[r][0]), exchanges(r, c.np, -1); !slices.Equal(got, want) {
				t.Errorf("%s: rank %d MPI calls\n got %v\nwant %v", c.name, r, got, want)
			}
		}
	}
}

// TestRunOddevenSwapBug: rank 5 swaps Send and Recv from phase 7 on
// (seeds/002 Fig. 3.5b: L1^7 then L0^9); everyone else is unchanged.
func TestRunOddevenSwapBug(t *testing.T) {
	_, tr := loadRun(t, "oddeven-swapbug", 16, 1)
	for r := 0; r < 16; r++ {
		swap := -1
		if r == 5 {
			swap = 7
		}
		if got, want := mpiOnly(tr[r][0]), exchanges(r, 16, swap); !slices.Equal(got, want) {
			t.Errorf("rank %d MPI calls\n got %v\nwant %v", r, got, want)
		}
	}
}

// TestRunOddevenDeadlock: dlBug (seeds/002 Fig. 3.6): rank 5 hangs in
// phase 7 and its trace ends inside the MPI_Recv it never returned from.
func TestRunOddevenDeadlock(t *testing.T) {
	m, tr := loadRun(t, "oddeven-dlbug", 16, 1)
	r5 := m.Ranks[5]
	if r5.Exited || !r5.KilledByTimeout || r5.Signal == "" {
		t.Errorf("rank 5 entry: %+v", r5)
	}
	seq := tr[5][0]
	want := exchanges(5, 16, -1)[:3+7*2]
	want = append(want, "MPI_Recv")
	if got := mpiOnly(seq); !slices.Equal(got, want) {
		t.Errorf("rank 5 MPI calls\n got %v\nwant %v", got, want)
	}
	if seq[len(seq)-1] != "MPI_Recv" {
		t.Errorf("rank 5's trace ends %v: not inside MPI_Recv", seq[len(seq)-4:])
	}
	// No rank gets through MPI_Finalize: a rank that finished its phases
	// before the hang reached it (typically 15, with one partner) waits in
	// it, and its trace ends inside it (Open MPI's MPI_Finalize reaches
	// ompi_mpi_finalize by a tail call, which the snapshot names).
	for r := 0; r < 16; r++ {
		seq := tr[r][0]
		if i := slices.Index(seq, "MPI_Finalize"); i >= 0 && (i != len(seq)-1 || m.Ranks[r].Exited) {
			t.Errorf("rank %d got through MPI_Finalize in a deadlocked run: %v", r, seq[max(0, len(seq)-4):])
		}
	}
}

func critPairs(seq []string) (inside, outside int) {
	in := false
	for _, s := range seq {
		switch s {
		case "GOMP_critical_start":
			in = true
		case "GOMP_critical_end":
			in = false
		case "memcpy":
			if in {
				inside++
			} else {
				outside++
			}
		}
	}
	return
}

// checkILCSWorkers checks that every worker's memcpy is in a critical
// section, except those of trace bug (P.T), which never is.
func checkILCSWorkers(t *testing.T, name string, tr []map[int][]string, bugP, bugT int) {
	t.Helper()
	for p := range tr {
		for w := 1; w <= 4; w++ {
			in, out := critPairs(tr[p][w])
			switch {
			case count(tr[p][w], "CPU_Exec") == 0:
				t.Errorf("%s: worker %d.%d never called CPU_Exec", name, p, w)
			case p == bugP && w == bugT:
				if in != 0 || out == 0 || slices.Contains(tr[p][w], "GOMP_critical_start") {
					t.Errorf("%s: trace %d.%d should update its champion outside any critical section: %d inside, %d outside", name, p, w, in, out)
				}
			case in == 0 || out != 0:
				t.Errorf("%s: trace %d.%d: %d memcpy inside a critical section, %d outside", name, p, w, in, out)
			default:
				// Every library call is caught, the first ones (resolved
				// by the dynamic linker) included.
				s, e := count(tr[p][w], "GOMP_critical_start"), count(tr[p][w], "GOMP_critical_end")
				if s != in || e != in {
					t.Errorf("%s: trace %d.%d: %d memcpy, %d GOMP_critical_start, %d GOMP_critical_end", name, p, w, in, s, e)
				}
			}
		}
	}
}

func TestRunILCS(t *testing.T) {
	for _, name := range []string{"ilcs-normal", "ilcs-critbug", "ilcs-maxbug"} {
		m, tr := loadRun(t, name, 8, 5)
		for p := 0; p < 8; p++ {
			if !m.Ranks[p].Exited || m.Ranks[p].ExitStatus != 0 {
				t.Errorf("%s: process %d did not end normally", name, p)
			}
			mpi := mpiOnly(tr[p][0])
			ar, bc := count(mpi, "MPI_Allreduce"), count(mpi, "MPI_Bcast")
			if bc == 0 || ar != 2*bc || mpi[len(mpi)-1] != "MPI_Finalize" {
				t.Errorf("%s: master of process %d: %d MPI_Allreduce, %d MPI_Bcast, last %s", name, p, ar, bc, mpi[len(mpi)-1])
			}
		}
		bugP, bugT := -1, -1
		if name == "ilcs-critbug" {
			bugP, bugT = 6, 4 // seeds/002 §3.4.2: worker thread 4 of process 6
		}
		checkILCSWorkers(t, name, tr, bugP, bugT)
	}
}

// TestRunILCSDeadlock: process 2 skips the first MPI_Allreduce (count 0):
// it waits in MPI_Bcast while all others wait in the second MPI_Allreduce
// of the first round (seeds/002 §3.4.3).
func TestRunILCSDeadlock(t *testing.T) {
	m, tr := loadRun(t, "ilcs-dlbug", 8, 5)
	for p := 0; p < 8; p++ {
		if !m.Ranks[p].KilledByTimeout && m.Ranks[p].Exited {
			t.Errorf("process %d of a deadlocked run ended normally", p)
		}
		seq := tr[p][0]
		want := "MPI_Allreduce"
		if p == 2 {
			want = "MPI_Bcast"
		}
		if got := seq[len(seq)-1]; got != want {
			t.Errorf("process %d's master trace ends in %s, want inside %s", p, got, want)
		}
		if slices.Contains(seq, "MPI_Finalize") {
			t.Errorf("process %d reached MPI_Finalize", p)
		}
	}
}
