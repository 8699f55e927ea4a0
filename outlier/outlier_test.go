package outlier

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

// analyze runs the default grid over one committed run.
func analyze(t *testing.T, dir string) *Report {
	t.Helper()
	c, err := compare.Open([]string{dir}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := rank.DefaultFilters("")
	if err != nil {
		t.Fatal(err)
	}
	g := rank.Grid{Filters: fs, Ks: rank.DefaultKs, Modes: fcaModes(), Linkages: rank.DefaultLinkages, Prune: true}
	rep, err := Analyze(c, g)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func run(dir, name string) string { return filepath.Join("..", "testdata", dir, name) }

// TestPlanted checks every faulty run of the repository alone: the
// planted trace leads the suspects (or comes second), and the first
// difference from its class-mate names the change.
func TestPlanted(t *testing.T) {
	cases := []struct {
		dir, name, trace string
		says             []string
	}{
		{"runs", "oddeven-swapbug", "5", []string{"another order", "MPI_Recv, MPI_Send in 3, MPI_Send, MPI_Recv in 5"}},
		{"runs", "oddeven-dlbug", "5", []string{"ran 7 times instead of 9"}},
		{"runs", "stencil-skipbug", "3", []string{"halo::Exchanger::exchange missing"}},
		{"runs", "ilcs-critbug", "6.4", []string{"GOMP_critical_start missing"}},
		{"runs", "ilcs-dlbug", "2.0", []string{"goes on with MPI_Bcast"}},
		{"runs", "tpool-shortloop", "0.1", []string{"ran 4 times instead of 5"}},
		{"outliers", "rod-skipsmooth", "3", []string{"smooth", "missing"}},
		{"outliers", "rod-shortsweep", "5", []string{"sweep", "ran 3 times instead of 4"}},
		{"outliers", "depot-skipcheck", "3", []string{"depot::Checker::check missing"}},
		{"outliers", "depot-redo", "2", []string{"depot::Solver::solve added"}},
		{"outliers", "bar-short", "2", []string{"bar_ops::sweep ran twice instead of 3 times"}},
		{"outliers", "bar-skipnorm", "4", []string{"bar_ops::local_norm missing"}},
		{"outliers", "crew-skipcrit", "", []string{"GOMP_critical_start missing"}},
		{"outliers", "crew-short", "", []string{"ran 7 times instead of 8"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep := analyze(t, run(tc.dir, tc.name))
			if len(rep.Suspects) == 0 {
				t.Fatalf("no suspect: %s", rep.NoSuspect)
			}
			// crew's threads are traced in creation order, not by
			// OpenMP's numbers: the planted one is whichever worker the
			// sentence shows lacking what the others do.
			top := rep.Suspects[:min(2, len(rep.Suspects))]
			i := slices.IndexFunc(top, func(s Suspect) bool { return tc.trace == "" || s.ID.String() == tc.trace })
			if i < 0 {
				t.Fatalf("suspects %v: want %s first or second", ids(rep.Suspects), tc.trace)
			}
			s := top[i]
			for _, w := range tc.says {
				if !strings.Contains(s.Difference, w) {
					t.Errorf("%s against %s: %q does not say %q", s.ID, s.Peer, s.Difference, w)
				}
			}
			if s.Peer == s.ID || !strings.Contains(s.Command, "--against "+s.Peer.String()) {
				t.Errorf("command %q: want a diff against the class-mate %s", s.Command, s.Peer)
			}
			if tc.trace == "" && s.ID.Thread == 0 {
				t.Errorf("%s: the main thread has no peers and is never a suspect", s.ID)
			}
		})
	}
}

func ids(ss []Suspect) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.ID.String())
	}
	return out
}

// TestNormalRunsHaveRoles checks the normal runs alone: no trace is a
// suspect, and the roles are classes named by their position.
func TestNormalRunsHaveRoles(t *testing.T) {
	cases := []struct {
		dir, name string
		role      string // a class's text must say it
	}{
		{"runs", "oddeven-normal", "rank 0, the first: MPI_Recv 8 times instead of 16 times; MPI_Send 8 times instead of 16 times (one neighbour fewer)"},
		{"runs", "stencil-normal", "[4] — more work than its peers, from the first iteration on"},
		{"runs", "ilcs-normal", "class of 8: [0-7] — main threads"},
		{"runs", "tpool-normal", "the main thread"},
		{"runs", "oddeven4-normal", "class of 2"},
		{"outliers", "rod-normal", "class of 2: [0,7] — the first and the last rank: MPI_Sendrecv 12 times instead of 24 times (one neighbour fewer)"},
		{"outliers", "depot-normal", "class of 1: [0] — rank 0, the first"},
		{"outliers", "bar-normal", "the first and the last rank: mpi_sendrecv 10 times instead of 20 times (one neighbour fewer)"},
		{"outliers", "crew-normal", "class of 1: [0] — the main thread"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep := analyze(t, run(tc.dir, tc.name))
			if len(rep.Suspects) > 0 {
				t.Errorf("suspects %v in a normal run", ids(rep.Suspects))
			}
			if rep.NoSuspect == "" {
				t.Error("no word on why there is no suspect")
			}
			var texts []string
			for _, cl := range rep.Classes {
				texts = append(texts, cl.Text())
				if cl.Lone {
					t.Errorf("%s: alone among its peers in a normal run", cl.Text())
				}
			}
			if !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, tc.role) }) {
				t.Errorf("classes:\n%s\nwant one saying %q", strings.Join(texts, "\n"), tc.role)
			}
			if rep.Progress != nil && len(rep.Progress.Lags) > 0 {
				t.Errorf("lags in a normal run: %v", rep.Progress.Lags)
			}
		})
	}
}

// TestLaggingRank checks progress: the rank that skipped a halo exchange
// before the run hung, and the thread whose loop ran once fewer, lag
// behind their peers; a rank that only swapped two calls does not.
func TestLaggingRank(t *testing.T) {
	for _, tc := range []struct {
		dir, name string
		lag       string
		iters     uint64
		usual     uint64
	}{
		{"runs", "stencil-skipbug", "3", 5, 6},
		{"outliers", "crew-short", "", 7, 8},
		{"runs", "oddeven-swapbug", "-", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := analyze(t, run(tc.dir, tc.name))
			lags := rep.Progress.Lags
			if tc.lag == "-" {
				if len(lags) > 0 {
					t.Fatalf("lags %v: a reordering loses no iteration", lags)
				}
				return
			}
			if len(lags) != 1 {
				t.Fatalf("lags %v: want one", lags)
			}
			l := lags[0]
			if tc.lag != "" && l.Trace.String() != tc.lag || l.Iterations != tc.iters || l.Usual != tc.usual {
				t.Errorf("lag %+v: want %s at %d of %d", l, tc.lag, tc.iters, tc.usual)
			}
			if tc.lag == "" && l.Trace != rep.Suspects[0].ID {
				t.Errorf("lag %s, suspect %s: want the same thread", l.Trace, rep.Suspects[0].ID)
			}
			if !strings.Contains(l.Text(), "peers") {
				t.Errorf("lag text %q", l.Text())
			}
		})
	}
}

// TestMissingCall checks the table of a run whose rank 3 skipped a call in
// one step: it stands apart in every row that finds anything, its nearest
// class-mate is a peer of its class, and the roles are counted, not
// listed.
func TestMissingCall(t *testing.T) {
	rep := analyze(t, run("outliers", "rod-skipsmooth"))
	with := 0
	for _, r := range rep.Rows {
		if len(r.Suspects) == 0 {
			continue
		}
		with++
		if len(r.Suspects) != 1 || r.Suspects[0].ID.Proc != 3 {
			t.Errorf("row %s %s %s: suspects %+v, want 3 alone", r.Filter, r.Attrs, r.Linkage, r.Suspects)
		}
		if p := r.Suspects[0].Peer.Proc; p == 0 || p == 7 || p == 3 {
			t.Errorf("row %s %s: class-mate %d: want an inner rank", r.Filter, r.Attrs, p)
		}
		if r.Roles != 0 && r.Roles != 2 && r.Roles != 1 {
			t.Errorf("row %s %s: %d roles", r.Filter, r.Attrs, r.Roles)
		}
	}
	if with == 0 || rep.Votes[0].ID.Proc != 3 || rep.Votes[0].First != with {
		t.Errorf("consensus %+v over %d rows: want 3 first in all", rep.Votes, with)
	}
	if !slices.ContainsFunc(rep.Classes, func(cl Class) bool { return cl.Lone && cl.Traces[0].Proc == 3 }) {
		t.Errorf("classes %+v: want 3 alone among its peers", rep.Classes)
	}
}

// TestPeerDiff checks the diff of two traces of one run and its errors.
func TestPeerDiff(t *testing.T) {
	c, err := compare.Open([]string{run("outliers", "rod-skipsmooth")}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ns, err := c.Recognize([]*filters.Filter{filters.MustParse("all")}, []int{10})
	if err != nil {
		t.Fatal(err)
	}
	d, err := PeerDiff(ns[0], trace.ID{Proc: 3, Thread: trace.AllThreads}, trace.ID{Proc: 2}, diffnlr.Abridge{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Partings) != 1 || !strings.Contains(d.Partings[0].Text, "smooth missing") {
		t.Errorf("partings %+v", d.Partings)
	}
	if d.Picture.Normal != "2" || d.Picture.Faulty != "3" {
		t.Errorf("sides %q, %q", d.Picture.Normal, d.Picture.Faulty)
	}
	if _, err := PeerDiff(ns[0], trace.ID{Proc: 3}, trace.ID{Proc: 3}, diffnlr.Abridge{}); err == nil || !strings.Contains(err.Error(), "against itself") {
		t.Errorf("a trace against itself: %v", err)
	}
	if _, err := PeerDiff(ns[0], trace.ID{Proc: 3}, trace.ID{Proc: 99}, diffnlr.Abridge{}); err == nil || !strings.Contains(err.Error(), "trace 99.0: not in") {
		t.Errorf("an unknown trace: %v", err)
	}
	two, err := compare.Open([]string{run("outliers", "rod-normal"), run("outliers", "rod-skipsmooth")}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Analyze(two, rank.Grid{}); err == nil || !strings.Contains(err.Error(), "one run") {
		t.Errorf("two runs: %v", err)
	}
}

// TestPositions checks the positions and their names.
func TestPositions(t *testing.T) {
	ids := []trace.ID{{Proc: 0}, {Proc: 0, Thread: 1}, {Proc: 1}, {Proc: 2}, {Proc: 2, Thread: 1}}
	ps := positions(ids)
	want := []string{"first process, main thread", "first process, worker thread", "inner process", "last process, main thread", "last process, worker thread"}
	for i, p := range ps {
		if p.String() != want[i] {
			t.Errorf("%s: %q, want %q", ids[i], p, want[i])
		}
	}
	if got := positionName([]trace.ID{{Proc: 0}, {Proc: 2}}, []Position{ps[0], ps[3]}); got != "the first and the last rank, main thread" {
		t.Errorf("positionName: %q", got)
	}
}

func fcaModes() []fca.Mode { return fca.Modes() }
