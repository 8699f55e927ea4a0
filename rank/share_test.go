package rank

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/compare"
)

// Grid.SuspectShare moves the cut of each row's suspects: 0 is the
// default, half the highest score; 1 keeps only the objects with the
// highest score; a lower share keeps more. A share outside (0, 1] is an
// error.
func TestGridSuspectShare(t *testing.T) {
	c := openRuns(t, compare.Options{}, "oddeven-normal", "oddeven-dlbug")
	rankAt := func(share float64) *Ranking {
		t.Helper()
		g := namedGrid("mpi", "all")
		g.SuspectShare = share
		rk, err := sweep(c, g, nil)
		if err != nil {
			t.Fatal(err)
		}
		return rk
	}
	js := func(rk *Ranking) string {
		b, err := json.Marshal(rk)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	def, half, all, low := rankAt(0), rankAt(SuspectShare), rankAt(1), rankAt(0.05)
	if js(def) != js(half) {
		t.Error("SuspectShare 0 ranks otherwise than the default share")
	}
	more := false
	for i, r := range all.Rows {
		for _, level := range [][]Suspect{r.Threads, r.Processes} {
			for _, s := range level {
				if s.Score != level[0].Score {
					t.Errorf("share 1, row %d: suspect %s scores %v below the top %v", i, s.ID, s.Score, level[0].Score)
				}
			}
		}
		if len(r.Threads) > len(def.Rows[i].Threads) {
			t.Errorf("row %d: share 1 lists more suspects than share 0.5", i)
		}
	}
	for i, r := range low.Rows {
		if len(r.Threads) < len(def.Rows[i].Threads) {
			t.Errorf("row %d: share 0.05 lists fewer suspects than share 0.5", i)
		}
		more = more || len(r.Threads) > len(def.Rows[i].Threads)
	}
	if !more {
		t.Error("share 0.05 lists no more suspects than share 0.5 in any row")
	}
	for _, bad := range []float64{-0.5, 1.5} {
		g := namedGrid("mpi")
		g.SuspectShare = bad
		if _, err := sweep(c, g, nil); err == nil || !strings.Contains(err.Error(), "suspect share") {
			t.Errorf("share %v: %v", bad, err)
		}
	}
}
