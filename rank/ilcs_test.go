package rank

import (
	"strings"
	"testing"
)

// The ilcs runs (examples/ilcs.c, seeds/002 §3.4) have 8 processes of 5
// threads: thread 0 is the master, the only one that calls MPI, and threads
// 1 … 4 are the workers, numbered as OpenMP numbers them.

// TestCritBugRanking: thread 6.4 updates its champion without the critical
// section. Over the filters that keep memory or OpenMP critical calls,
// every combination that finds a suspect names 6.4 first (and process 6 at
// process level), alone; the combinations that find nothing are these:
//
//   - mem: the bug drops the critical section around memcpy, not the copy:
//     6.4 calls memcpy exactly as often in both runs, so mem alone sees no
//     difference in any trace, and its rows have no suspect.
//   - omp.crit and mem+omp.crit with double attributes: under these filters
//     a worker's whole compare.NLR is one loop, L0^n (L0 = [GOMP_critical_start,
//     GOMP_critical_end], with memcpy in between under mem+omp.crit), and a
//     sequence of one entry has no pair of consecutive entries (fca): the
//     double attribute sets of the workers are empty in both runs, 6.4's
//     change (L0^3 → nothing, or → [memcpy]^3) included. With CPU_Exec kept
//     as well (--custom CPU_Exec, the filter of seeds/002 Table 3.6) the
//     workers' NLRs have several entries and the double modes find 6.4
//     (TestCritBugPaperFilter).
func TestCritBugRanking(t *testing.T) {
	rk := sweepRuns(t, "ilcs-normal", "ilcs-critbug", namedGrid("mem", "omp.crit", "mem+omp.crit", "omp", "all"))
	if len(rk.Rows) != 5*6*4 {
		t.Fatalf("%d rows, want 120", len(rk.Rows))
	}
	found := 0
	for _, r := range rk.Rows {
		double := strings.HasPrefix(r.Attrs, "doub.")
		switch {
		case r.Filter == "mem" || double && (r.Filter == "omp.crit" || r.Filter == "mem+omp.crit"):
			if len(r.Threads)+len(r.Processes) != 0 || r.BScore != 1 {
				t.Errorf("%s: suspects %v / %v, B-score %v; want none and 1", rowName(r), r.Threads, r.Processes, r.BScore)
			}
			continue
		default:
			found++
			if id, sole := soleFirst(r.Threads); id != tid(6, 4) || !sole {
				t.Errorf("%s: top threads %v, want 6.4 alone first", rowName(r), r.Threads)
			}
		}
		// At process level 6 comes first whenever anything is listed: under
		// omp.crit and omp without frequencies process 6 keeps L0 through its
		// other workers, so its attribute set does not change.
		if len(r.Processes) > 0 {
			if id, sole := soleFirst(r.Processes); id != pid(6) || !sole {
				t.Errorf("%s: top processes %v, want 6 alone first", rowName(r), r.Processes)
			}
		}
	}
	if found != 72 {
		t.Errorf("%d rows put 6.4 first, want 72 of 120", found)
	}
	if v := rk.ThreadVotes[0]; v.ID != tid(6, 4) || v.First != 72 || len(rk.ThreadVotes) > 1 && rk.ThreadVotes[1].First != 0 {
		t.Errorf("thread consensus %v, want 6.4 first in 72 rows, nobody else first", rk.ThreadVotes[:min(3, len(rk.ThreadVotes))])
	}
	if v := rk.ProcessVotes[0]; v.ID != pid(6) || len(rk.ProcessVotes) > 1 && rk.ProcessVotes[1].First != 0 {
		t.Errorf("process consensus %v, want 6 alone", rk.ProcessVotes)
	}
}

// TestCritBugPaperFilter: with the filter of seeds/002 Table 3.6 (memory
// calls, OpenMP critical sections and CPU_Exec), every attribute mode and
// linkage names 6.4 first, alone.
func TestCritBugPaperFilter(t *testing.T) {
	rk := sweepRuns(t, "ilcs-normal", "ilcs-critbug", namedGrid(WithCustom("mem+omp.crit", "CPU_Exec")))
	if len(rk.Rows) != 24 {
		t.Fatalf("%d rows, want 24", len(rk.Rows))
	}
	for _, r := range rk.Rows {
		if id, sole := soleFirst(r.Threads); id != tid(6, 4) || !sole {
			t.Errorf("%s: top threads %v, want 6.4 alone first", rowName(r), r.Threads)
		}
		if id, sole := soleFirst(r.Processes); id != pid(6) || !sole {
			t.Errorf("%s: top processes %v, want 6 alone first", rowName(r), r.Processes)
		}
	}
}

// TestCritBugDefaultGrid: over the default grid 6.4 leads the thread
// consensus and 6 the process consensus, and nothing else is ever first.
// The faulty run parses "--crit-bug 6 4" with strcmp in every process
// alike: that change is run-wide, reported once, and makes no trace a
// suspect (the str filter, which sees nothing else, finds none).
func TestCritBugDefaultGrid(t *testing.T) {
	rk := sweepRuns(t, "ilcs-normal", "ilcs-critbug", defaultGrid(t, ""))
	if v := rk.ThreadVotes[0]; v.ID != tid(6, 4) || len(rk.ThreadVotes) > 1 && rk.ThreadVotes[1].First != 0 {
		t.Errorf("thread consensus %v, want 6.4 first alone", rk.ThreadVotes[:min(3, len(rk.ThreadVotes))])
	}
	if v := rk.ProcessVotes[0]; v.ID != pid(6) || len(rk.ProcessVotes) > 1 && rk.ProcessVotes[1].First != 0 {
		t.Errorf("process consensus %v, want 6 first alone", rk.ProcessVotes)
	}
	for _, r := range rk.Rows {
		if r.Filter == "str" && len(r.Threads)+len(r.Processes) > 0 {
			t.Errorf("%s: suspects %v / %v; the command line's strcmp calls are run-wide and point at nobody", rowName(r), r.Threads, r.Processes)
		}
	}
	var str []string
	for _, rw := range rk.RunWide {
		if rw.Filter == "str" {
			str = rw.Changes
		}
	}
	if len(str) != 1 || !strings.HasPrefix(str[0], "+ ") || !strings.Contains(str[0], "strcmp") {
		t.Errorf("run-wide changes under str: %q, want one that adds strcmp calls (%+v)", str, rk.RunWide)
	}
}

// TestCountBugRanking records how the ranking sees ilcs --count-bug 2 (the
// wrong collective size of seeds/002 §3.4.3, Table 3.7): process 2 calls the
// first MPI_Allreduce with count 0, so it does not wait there, pairs its
// second MPI_Allreduce with the others' first and hangs in MPI_Bcast while
// they hang in their second MPI_Allreduce. Under the MPI filters thread 2.0
// — the only trace that ends in MPI_Bcast — is first, alone, in every row,
// and process 2 leads the process consensus. The thread consensus puts 0.0
// first and 2.0 second: under the OpenMP and memory filters, the master
// thread of process 0 is the trace the hang changed most, because in the
// normal run it holds the champion and copies it in a critical section
// every round (L0^5 under omp), and in the faulty run it stops in the first
// round. That is a true difference the bug caused, but not where it is;
// the MPI rows point at 2.
func TestCountBugRanking(t *testing.T) {
	rk := sweepRuns(t, "ilcs-normal", "ilcs-dlbug", defaultGrid(t, ""))
	if i := place(rk.ThreadVotes, tid(2, 0)); i < 0 || i > 1 || rk.ThreadVotes[0].ID != tid(2, 0) && rk.ThreadVotes[0].ID != tid(0, 0) {
		t.Errorf("thread consensus %v, want 0.0 and 2.0 at the top", rk.ThreadVotes[:3])
	}
	if v := rk.ProcessVotes[0]; v.ID != pid(2) || v.First <= rk.ProcessVotes[1].First {
		t.Errorf("process consensus %v, want 2 first alone", rk.ProcessVotes[:3])
	}
	for _, r := range rk.Rows {
		if r.Filter != "mpi" && r.Filter != "mpi.col" {
			continue
		}
		if id, sole := soleFirst(r.Threads); id != tid(2, 0) || !sole {
			t.Errorf("%s: top threads %v, want 2.0 alone first", rowName(r), r.Threads)
		}
		if id, sole := soleFirst(r.Processes); id != pid(2) || !sole {
			t.Errorf("%s: top processes %v, want 2 alone first", rowName(r), r.Processes)
		}
	}
}

// TestMaxBugRanking records how the ranking sees ilcs --max-bug 0: process 0
// reduces with MPI_MAX where the others use MPI_MIN. The run completes and
// makes the same calls in the same order; only values differ, and call
// traces do not record values. So no filter finds any suspect. The one
// difference the traces hold is the command line: the faulty run parses
// "--max-bug 0" (strcmp, atoi) in every master thread alike. That change
// is run-wide: it is reported once, under the filters that see it (str and
// all), and points at no trace.
func TestMaxBugRanking(t *testing.T) {
	rk := sweepRuns(t, "ilcs-normal", "ilcs-maxbug", defaultGrid(t, ""))
	for _, r := range rk.Rows {
		if len(r.Threads)+len(r.Processes) != 0 {
			t.Errorf("%s: suspects %v / %v; the bug changes no call", rowName(r), r.Threads, r.Processes)
		}
	}
	if len(rk.ThreadVotes) > 0 && rk.ThreadVotes[0].First > 0 {
		t.Errorf("thread consensus %v, want nobody", rk.ThreadVotes)
	}
	seen := map[string]bool{}
	for _, rw := range rk.RunWide {
		seen[rw.Filter] = true
		if len(rw.Changes) == 0 || !strings.Contains(strings.Join(rw.Changes, " "), "strcmp") {
			t.Errorf("run-wide under %s: %q, want the strcmp calls of the command line", rw.Filter, rw.Changes)
		}
	}
	if !seen["str"] || !seen["all"] {
		t.Errorf("run-wide changes under %v, want str and all", seen)
	}
}
