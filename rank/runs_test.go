package rank

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/trace"
)

// The committed example runs, recorded with "make examples" from
// examples/oddeven.c and examples/ilcs.c.
const runsDir = "../testdata/runs"

// openRuns opens committed runs (normal first) for analysis.
func openRuns(t testing.TB, opts compare.Options, names ...string) *compare.Comparison {
	t.Helper()
	var dirs []string
	for _, n := range names {
		dirs = append(dirs, filepath.Join(runsDir, n))
	}
	c, err := compare.Open(dirs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// defaultGrid is the grid "difftrace rank" sweeps without flags.
func defaultGrid(t testing.TB, custom string) Grid {
	t.Helper()
	fs, err := DefaultFilters(custom)
	if err != nil {
		t.Fatal(err)
	}
	return Grid{Filters: fs, Ks: DefaultKs, Modes: fca.Modes(), Linkages: DefaultLinkages, Prune: true}
}

// namedGrid sweeps the filters named by specs with every attribute mode and
// the default K and linkages, unpruned (as "rank --filters" does).
func namedGrid(specs ...string) Grid {
	g := Grid{Ks: DefaultKs, Modes: fca.Modes(), Linkages: DefaultLinkages}
	for _, s := range specs {
		g.Filters = append(g.Filters, filters.MustParse(s))
	}
	return g
}

// sweepRuns ranks the committed runs normal and faulty over g.
func sweepRuns(t testing.TB, normal, faulty string, g Grid) *Ranking {
	t.Helper()
	rk, err := sweep(openRuns(t, compare.Options{}, normal, faulty), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rk
}

// tid and pid name a thread P.T and a process P.
func tid(p, t int) trace.ID { return trace.ID{Proc: p, Thread: t} }
func pid(p int) trace.ID    { return trace.ID{Proc: p, Thread: trace.AllThreads} }

// place returns id's position (from 0) in votes, or -1.
func place(votes []Vote, id trace.ID) int {
	for i, v := range votes {
		if v.ID == id {
			return i
		}
	}
	return -1
}

// vote returns id's vote, or a zero one.
func vote(votes []Vote, id trace.ID) Vote {
	if i := place(votes, id); i >= 0 {
		return votes[i]
	}
	return Vote{ID: id}
}

// soleFirst reports whether sus has a first suspect with a higher score than
// every other (no tie at the top), and returns it.
func soleFirst(sus []Suspect) (trace.ID, bool) {
	if len(sus) == 0 {
		return trace.ID{}, false
	}
	if len(sus) > 1 && sus[1].Score == sus[0].Score {
		return sus[0].ID, false
	}
	return sus[0].ID, true
}

// rowName names a row in failure messages.
func rowName(r Row) string {
	return r.Filter + " K" + strconv.Itoa(r.K) + " " + r.Attrs + " " + r.Linkage
}
