package rank

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/cluster"
	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/trace"
)

// TestSweepDeterministic: the ranking (rows, suspects, scores, votes,
// notes) is the same byte for byte on one goroutine, on one CPU and on
// several workers.
func TestSweepDeterministic(t *testing.T) {
	for _, pair := range [][2]string{{"ilcs-normal", "ilcs-critbug"}, {"oddeven-normal", "oddeven-dlbug"}} {
		var want []byte
		for _, setup := range []struct {
			name    string
			procs   int // GOMAXPROCS, 0: as it is
			workers int
		}{{"1 worker", 0, 1}, {"GOMAXPROCS 1", 1, 0}, {"7 workers", 0, 7}, {"one worker per CPU", 0, 0}} {
			old := runtime.GOMAXPROCS(0)
			if setup.procs > 0 {
				runtime.GOMAXPROCS(setup.procs)
			}
			rk, err := sweep(openRuns(t, compare.Options{Workers: setup.workers}, pair[0], pair[1]), defaultGrid(t, ""), nil)
			runtime.GOMAXPROCS(old)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(rk)
			if err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want = got
				if len(rk.Rows) == 0 || len(rk.ThreadVotes) == 0 {
					t.Fatalf("%v: an empty ranking", pair)
				}
				continue
			}
			if string(got) != string(want) {
				t.Errorf("%v with %s: the ranking differs from the one of 1 worker", pair, setup.name)
			}
		}
	}
}

// TestSuspectsOrder: the suspects do not depend on the order the objects
// come in, and equal scores are ordered by progress change, then by ID.
func TestSuspectsOrder(t *testing.T) {
	ids := []trace.ID{tid(0, 0), tid(1, 0), tid(2, 0), tid(3, 0), tid(4, 0), tid(5, 0), tid(6, 0)}
	scores := []float64{0.1, 0.6, 0.6, 0.29, 0.3, 0.6, 0}
	progress := []float64{0, 0.2, 0.5, 0, 0, 0.2, 0.9}
	want := "[2.0/0.6/0.5 1.0/0.6/0.2 5.0/0.6/0.2 4.0/0.3/0]"
	show := func(sus []Suspect) string {
		var s []string
		for _, x := range sus {
			s = append(s, fmt.Sprintf("%v/%v/%v", x.ID, x.Score, x.Progress))
		}
		return "[" + strings.Join(s, " ") + "]"
	}
	if got := show(Suspects(ids, scores, progress)); got != want {
		t.Fatalf("suspects %s, want %s (score ≥ half the top, then progress, then ID)", got, want)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		perm := r.Perm(len(ids))
		pi, ps, pp := make([]trace.ID, len(ids)), make([]float64, len(ids)), make([]float64, len(ids))
		for i, j := range perm {
			pi[i], ps[i], pp[i] = ids[j], scores[j], progress[j]
		}
		if got := show(Suspects(pi, ps, pp)); got != want {
			t.Fatalf("permuted %v: suspects %s, want %s", perm, got, want)
		}
	}
	if Suspects(ids, make([]float64, len(ids)), nil) != nil {
		t.Error("suspects where nothing changed")
	}
}

// TestConsensusOrder: the consensus counts ties at the top as first for
// each tied object, skips rows without suspects, and does not depend on the
// order of the rows.
func TestConsensusOrder(t *testing.T) {
	rows := []Row{
		{Threads: []Suspect{{ID: tid(5, 0), Score: 0.5}, {ID: tid(4, 0), Score: 0.3}}},
		{Threads: []Suspect{{ID: tid(4, 0), Score: 0.5, Progress: 0.5}, {ID: tid(5, 0), Score: 0.5, Progress: 0.2}}},
		{Threads: []Suspect{{ID: tid(6, 0), Score: 0.4}, {ID: tid(5, 0), Score: 0.4}}}, // a tie: both first
		{},
		{Threads: []Suspect{{ID: tid(5, 0), Score: 0.2}}},
	}
	want := "[{5.0 3 4} {4.0 1 2} {6.0 1 1}]"
	if got := fmt.Sprint(Consensus(rows, compare.Threads)); got != want {
		t.Fatalf("consensus %s, want %s", got, want)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		shuffled := slices.Clone(rows)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if got := fmt.Sprint(Consensus(shuffled, compare.Threads)); got != want {
			t.Fatalf("shuffled rows: consensus %s, want %s", got, want)
		}
	}
	if top := Top(Consensus(rows[2:3], compare.Threads)); len(top) != 2 {
		t.Errorf("Top of a tie: %v, want both", top)
	}
	if len(Consensus(rows[3:4], compare.Threads)) != 0 {
		t.Error("a row without suspects voted")
	}
}

// TestUnionOfRuns: runs with different trace sets (4 ranks against 16) are
// compared over the union of their traces; a trace missing from a run has
// no calls there, and the ranking says which traces exist in one run only.
func TestUnionOfRuns(t *testing.T) {
	c := openRuns(t, compare.Options{}, "oddeven4-normal", "oddeven-normal")
	if len(c.IDs) != 16 {
		t.Fatalf("%d traces, want the union of 4 and 16 ranks", len(c.IDs))
	}
	if got := fmt.Sprint(c.OnlyIn(compare.Faulty)); got != "[4.0 5.0 6.0 7.0 8.0 9.0 10.0 11.0 12.0 13.0 14.0 15.0]" {
		t.Errorf("only in the faulty run: %s", got)
	}
	if len(c.OnlyIn(compare.Normal)) != 0 {
		t.Errorf("only in the normal run: %v, want none", c.OnlyIn(compare.Normal))
	}
	for i := range c.IDs {
		if c.Has(compare.Normal, i) != (i < 4) || !c.Has(compare.Faulty, i) {
			t.Errorf("trace %v: in normal %v, in faulty %v", c.IDs[i], c.Has(compare.Normal, i), c.Has(compare.Faulty, i))
		}
	}
	ns, err := c.Recognize([]*filters.Filter{filters.MustParse("mpi")}, []int{10})
	if err != nil {
		t.Fatal(err)
	}
	n := ns[0]
	for i := range c.IDs {
		if empty := len(n.Recorded(compare.Normal, i)) == 0 && n.Kept[compare.Normal][i] == 0; empty != (i >= 4) {
			t.Errorf("trace %v in the normal run: %s (%d calls)", c.IDs[i], n.Recorded(compare.Normal, i).Format(n.Names()), n.Kept[compare.Normal][i])
		}
	}
	s, err := n.Similarity(fca.Mode{}, compare.Threads)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.IDs) != 16 {
		t.Fatalf("%d objects, want 16", len(s.IDs))
	}
	// Two missing traces are alike (both empty); a missing trace shares
	// nothing with a present one.
	if s.JSM[compare.Normal].At(4, 5) != 1 || s.JSM[compare.Normal].At(0, 5) != 0 || s.JSM[compare.Faulty].At(4, 6) != 1 {
		t.Errorf("JSM_normal[4][5] = %v, [0][5] = %v, JSM_faulty[4][6] = %v; want 1, 0, 1",
			s.JSM[compare.Normal].At(4, 5), s.JSM[compare.Normal].At(0, 5), s.JSM[compare.Faulty].At(4, 6))
	}

	rk, err := sweep(c, defaultGrid(t, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rk.OnlyFaulty, " "); got != "4.0 5.0 6.0 7.0 8.0 9.0 10.0 11.0 12.0 13.0 14.0 15.0" || rk.OnlyNormal != nil {
		t.Errorf("ranking: only faulty %q, only normal %v", got, rk.OnlyNormal)
	}
	for _, note := range rk.Notes {
		if strings.Contains(note, "only in") {
			t.Errorf("the ranking's notes repeat what OnlyFaulty says: %q", note)
		}
	}
	if len(rk.Rows) == 0 || len(rk.ThreadVotes) == 0 {
		t.Fatal("an empty ranking")
	}
	listed := map[trace.ID]bool{}
	for _, v := range rk.ThreadVotes {
		listed[v.ID] = true
	}
	if !listed[tid(15, 0)] || !listed[tid(3, 0)] {
		t.Errorf("the consensus %v lacks 3.0 or 15.0", rk.ThreadVotes)
	}

	// The other way round: the traces are only in the normal run.
	rk, err = sweep(openRuns(t, compare.Options{}, "oddeven-normal", "oddeven4-normal"), namedGrid("mpi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rk.OnlyNormal) != 12 || rk.OnlyFaulty != nil {
		t.Errorf("reversed: only normal %v, only faulty %v", rk.OnlyNormal, rk.OnlyFaulty)
	}
}

// TestSweepErrors: what a sweep refuses, with a message that says what to
// do.
func TestSweepErrors(t *testing.T) {
	if _, err := compare.Open(nil, compare.Options{}); err == nil || !strings.Contains(err.Error(), "give one run") {
		t.Errorf("compare.Open of no run: %v", err)
	}
	if _, err := compare.Open([]string{runsDir + "/no-such-run"}, compare.Options{}); err == nil || !strings.Contains(err.Error(), "no-such-run") {
		t.Errorf("compare.Open of a missing run: %v", err)
	}
	one := openRuns(t, compare.Options{}, "oddeven4-normal")
	if _, err := sweep(one, namedGrid("mpi"), nil); err == nil || !strings.Contains(err.Error(), "two runs") {
		t.Errorf("Sweep of one run: %v", err)
	}
	two := openRuns(t, compare.Options{}, "oddeven4-normal", "oddeven4-normal")
	for _, tc := range []struct {
		g    Grid
		want string
	}{
		{Grid{Ks: DefaultKs, Modes: fca.Modes(), Linkages: DefaultLinkages}, "no filter"},
		{Grid{Filters: namedGrid("mpi").Filters, Modes: fca.Modes(), Linkages: DefaultLinkages}, "no K"},
		{Grid{Filters: namedGrid("mpi").Filters, Ks: DefaultKs, Linkages: DefaultLinkages}, "no attribute mode"},
		{Grid{Filters: namedGrid("mpi").Filters, Ks: DefaultKs, Modes: fca.Modes()}, "no linkage"},
		{Grid{Filters: namedGrid("omp").Filters, Ks: DefaultKs, Modes: fca.Modes(), Linkages: []cluster.Method{cluster.Ward}, Prune: true}, "keeps any call"},
		{Grid{Filters: namedGrid("mpi").Filters, Ks: []int{0}, Modes: fca.Modes(), Linkages: DefaultLinkages}, "K"},
	} {
		if _, err := sweep(two, tc.g, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("grid %+v: error %v, want one about %q", tc.g, err, tc.want)
		}
	}
	// Two identical runs: nothing changed, nobody is suspect, every
	// B-score is 1.
	rk, err := sweep(two, namedGrid("mpi", "all"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rk.Rows {
		if len(r.Threads)+len(r.Processes) != 0 || r.BScore != 1 {
			t.Errorf("%s on identical runs: suspects %v, B-score %v", rowName(r), r.Threads, r.BScore)
		}
	}
	if len(rk.ThreadVotes) != 0 {
		t.Errorf("identical runs: consensus %v", rk.ThreadVotes)
	}
}
