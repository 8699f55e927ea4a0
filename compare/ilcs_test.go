package compare

import (
	"testing"

	"github.com/difftrace/difftrace/filters"
)

// TestCritBugTrace checks that the recorded critBug is where the example
// meant it: under omp.crit, worker 4 of process 6 lost its critical sections
// and no other trace changed.
func TestCritBugTrace(t *testing.T) {
	c := openRuns(t, Options{}, "ilcs-normal", "ilcs-critbug")
	if len(c.IDs) != 40 || len(c.OnlyIn(Normal))+len(c.OnlyIn(Faulty)) != 0 {
		t.Fatalf("%d traces (%d, %d in one run only), want the same 40 in both", len(c.IDs), len(c.OnlyIn(Normal)), len(c.OnlyIn(Faulty)))
	}
	ns, err := c.Recognize([]*filters.Filter{filters.MustParse("omp.crit")}, []int{10})
	if err != nil {
		t.Fatal(err)
	}
	n := ns[0]
	for i, id := range c.IDs {
		same := n.Recorded(Normal, i).Equal(n.Recorded(Faulty, i))
		if id == tid(6, 4) {
			if same || len(n.Recorded(Faulty, i)) != 0 || len(n.Recorded(Normal, i)) == 0 {
				t.Errorf("6.4: normal %s, faulty %s; want critical sections in the normal run only",
					n.Recorded(Normal, i).Format(n.Names()), n.Recorded(Faulty, i).Format(n.Names()))
			}
		} else if !same {
			t.Errorf("%v changed under omp.crit: %s → %s", id, n.Recorded(Normal, i).Format(n.Names()), n.Recorded(Faulty, i).Format(n.Names()))
		}
	}
}
