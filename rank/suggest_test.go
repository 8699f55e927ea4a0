package rank

import (
	"testing"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/trace"
)

// The suggestion for the consensus top of every committed pair is a filter
// and K of a row where that trace is the top suspect, whose diff is not
// empty, and no such row has a shorter one; a bug that changes no call gets
// no suggestion.
func TestSuggestion(t *testing.T) {
	for _, c := range []struct {
		normal, faulty string
		want           trace.ID
		none           bool
	}{
		{"oddeven-normal", "oddeven-swapbug", pid(5), false},
		{"oddeven-normal", "oddeven-dlbug", pid(5), false},
		{"ilcs-normal", "ilcs-critbug", tid(6, 4), false},
		{"ilcs-normal", "ilcs-dlbug", tid(0, 0), false},
		{"ilcs-normal", "ilcs-maxbug", trace.ID{}, true},
		// A hang: the consensus leads with rank 2, a neighbour left waiting
		// for the halo rank 3 never sent; the suggestion goes to 3, the
		// only one of the leading traces that parted while running.
		{"stencil-normal", "stencil-skipbug", pid(3), false},
	} {
		cmp := openRuns(t, compare.Options{}, c.normal, c.faulty)
		rk, err := sweep(cmp, defaultGrid(t, ""), nil)
		if err != nil {
			t.Fatal(err)
		}
		v := rk.Suggestion
		if c.none {
			if v != nil {
				t.Errorf("%s: suggestion %+v, want none (no trace changed its calls)", c.faulty, *v)
			}
			continue
		}
		if v == nil {
			t.Fatalf("%s: no suggestion, want one for %v", c.faulty, c.want)
		}
		if v.Trace != c.want || v.Why != "first" || v.Changes == 0 {
			t.Errorf("%s: suggestion %+v, want %v as the top suspect with a non-empty diff", c.faulty, *v, c.want)
		}
		if parted := c.faulty == "stencil-skipbug"; v.Parted != parted {
			t.Errorf("%s: suggestion parted %v, want %v", c.faulty, v.Parted, parted)
		}
		if v.Parted {
			continue // not the consensus leader's view: not the shortest of its rows
		}
		// Check the choice against every row where the trace is first.
		checked := map[string]bool{}
		for _, r := range rk.Rows {
			sus := r.Threads
			if c.want.IsProcess() {
				sus = r.Processes
			}
			if len(sus) == 0 || sus[0].ID != c.want || checked[r.Filter] {
				continue
			}
			checked[r.Filter] = true
			nlrs, err := cmp.Recognize([]*filters.Filter{filters.MustParse(r.Filter)}, []int{r.K})
			if err != nil {
				t.Fatal(err)
			}
			n, err := nlrs[0].Changes(c.want)
			if err != nil {
				t.Fatal(err)
			}
			if n > 0 && n < v.Changes {
				t.Errorf("%s: row %s shows %d changed elements of %v, fewer than the suggested %d", c.faulty, rowName(r), n, c.want, v.Changes)
			}
		}
	}
}

// The suggested view of every committed pair shows the change the broadest
// filter's view finds (showsChange); a view whose first difference
// names other calls, or another place, does not: rank 3 of the stencil
// skips a halo exchange of point-to-point calls, and the collectives alone
// part elsewhere, so Suggest passes over mpi.col whatever its size.
func TestSuggestShowsChange(t *testing.T) {
	for _, c := range []struct{ normal, faulty, hides string }{
		{"oddeven-normal", "oddeven-swapbug", ""},
		{"ilcs-normal", "ilcs-critbug", ""},
		{"stencil-normal", "stencil-skipbug", "mpi.col"},
	} {
		cmp := openRuns(t, compare.Options{}, c.normal, c.faulty)
		rk, err := sweep(cmp, defaultGrid(t, ""), nil)
		if err != nil {
			t.Fatal(err)
		}
		v := rk.Suggestion
		if v == nil {
			t.Fatalf("%s: no suggestion", c.faulty)
		}
		fs := []*filters.Filter{filters.MustParse(v.Filter), filters.MustParse(rk.Filters[len(rk.Filters)-1])}
		nlrs, err := cmp.Recognize(fs, []int{v.K})
		if err != nil {
			t.Fatal(err)
		}
		shows, err := showsChange(nlrs[0], v.Trace, nlrs[1], refExplanations{})
		if err != nil {
			t.Fatal(err)
		}
		if !shows {
			t.Errorf("%s: the suggested view (filter %s, K %d) does not show the change of %v", c.faulty, v.Filter, v.K, v.Trace)
		}
		// Every view of the suggestion's K that shows a change of the trace.
		seen := map[string]bool{}
		for _, r := range rk.Rows {
			if seen[r.Filter] || r.K != v.K {
				continue
			}
			seen[r.Filter] = true
			ns, err := cmp.Recognize([]*filters.Filter{filters.MustParse(r.Filter)}, []int{r.K})
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := ns[0].Changes(v.Trace); n == 0 {
				continue
			}
			s, err := showsChange(ns[0], v.Trace, nlrs[1], refExplanations{})
			if err != nil {
				t.Fatal(err)
			}
			if s != (r.Filter != c.hides) {
				t.Errorf("%s: %v under %s: shows the change %v, want %v", c.faulty, v.Trace, r.Filter, s, !s)
			}
		}
	}

	x := diffnlr.Explanation{Kind: diffnlr.Missing, Normal: []trace.Symbol{3}, Stack: []trace.Symbol{1, 2},
		Loops: []diffnlr.LoopPlace{{Body: 2, Period: 4, Iteration: 6, Count: 12}}}
	if !sameChange(x, x) {
		t.Error("an explanation names another change than itself")
	}
	for name, y := range map[string]diffnlr.Explanation{
		"another call":      {Kind: diffnlr.Missing, Normal: []trace.Symbol{4}, Stack: x.Stack, Loops: x.Loops},
		"another kind":      {Kind: diffnlr.Added, Faulty: []trace.Symbol{3}, Stack: x.Stack, Loops: x.Loops},
		"another caller":    {Kind: diffnlr.Missing, Normal: x.Normal, Stack: []trace.Symbol{1, 5}, Loops: x.Loops},
		"another iteration": {Kind: diffnlr.Missing, Normal: x.Normal, Stack: x.Stack, Loops: []diffnlr.LoopPlace{{Body: 2, Period: 4, Iteration: 7, Count: 12}}},
	} {
		if sameChange(x, y) {
			t.Errorf("%s: the same change", name)
		}
	}
}
