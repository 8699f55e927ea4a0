package rank

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

// TestSuspectShare: Grid.SuspectShare moves the cut of each row's
// suspects; 0 is the default cut, SuspectShare, and a share outside
// [0, 1] is refused.
func TestSuspectShare(t *testing.T) {
	c := openRuns(t, Options{}, "oddeven-normal", "oddeven-dlbug")
	sweep := func(share float64) *Ranking {
		t.Helper()
		g := namedGrid("mpi", "mpi.sr")
		g.SuspectShare = share
		rk, err := c.Sweep(g)
		if err != nil {
			t.Fatal(err)
		}
		return rk
	}
	def, half, all, narrow := sweep(0), sweep(SuspectShare), sweep(0.01), sweep(1)
	a, _ := json.Marshal(def)
	b, _ := json.Marshal(half)
	if string(a) != string(b) {
		t.Error("share 0 and the default share rank differently")
	}
	wider, fewer := false, false
	for i, r := range def.Rows {
		wide, one := all.Rows[i], narrow.Rows[i]
		if rowName(wide) != rowName(r) || rowName(one) != rowName(r) {
			t.Fatalf("row %d: %s, %s and %s: the rows' order moved with the cut", i, rowName(r), rowName(wide), rowName(one))
		}
		if len(wide.Threads) < len(r.Threads) || len(one.Threads) > len(r.Threads) {
			t.Errorf("%s: %d suspects at 0.01, %d at 0.5, %d at 1", rowName(r), len(wide.Threads), len(r.Threads), len(one.Threads))
		}
		wider = wider || len(wide.Threads) > len(r.Threads)
		fewer = fewer || len(one.Threads) < len(r.Threads)
		for _, s := range one.Threads {
			if s.Score != one.Threads[0].Score {
				t.Errorf("%s at share 1: suspect %v scores %v, below the top %v", rowName(r), s.ID, s.Score, one.Threads[0].Score)
			}
		}
	}
	if !wider || !fewer {
		t.Errorf("the cut changed no row: more suspects at 0.01 %v, fewer at 1 %v", wider, fewer)
	}
	for _, share := range []float64{-0.1, 1.5} {
		g := namedGrid("mpi")
		g.SuspectShare = share
		if _, err := c.Sweep(g); err == nil || !strings.Contains(err.Error(), "suspect share") {
			t.Errorf("share %v: error %v", share, err)
		}
	}
	ids := []trace.ID{tid(0, 0), tid(1, 0), tid(2, 0)}
	if got := suspects(ids, []float64{0.3, 1, 0.1}, nil, 0.25); len(got) != 2 || got[0].ID != tid(1, 0) || got[1].ID != tid(0, 0) {
		t.Errorf("cut at 0.25: %v", got)
	}
}
