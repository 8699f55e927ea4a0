package rank

import (
	"slices"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/trace"
)

// View is where to look at how one trace changed: the filter and K of its
// diffNLR.
type View struct {
	Trace  trace.ID `json:"trace"`
	Filter string   `json:"filter"`
	K      int      `json:"k"`
	// Changes counts the elements that only one run has in the trace's
	// diffNLR under this view, run-wide changes set aside: a suggested view
	// never has 0, but for Why "stopped".
	Changes int `json:"changes"`
	// Why says which rows the view comes from: "first" (the trace was
	// their top suspect), "listed" (it was a suspect) or "changed" (its
	// calls changed under this filter, though no row made it a suspect);
	// or "stopped": the trace is the hang analysis's culprit, made every
	// call its normal run makes and stopped inside one, and the view is
	// the broadest (Changes is 0, the one suggestion where it is).
	Why string `json:"why"`
	// Parted is set when the faulty run hung or crashed and the view is
	// not of the consensus leader but of the leading trace that parted from
	// its normal run before it stopped (see partedFirst).
	Parted bool `json:"parted,omitempty"`
	// Culprit, when the trace is the first suspect of a hang analysis
	// (hang.Analyze, see Sweep), says why it is suspected.
	Culprit string `json:"culprit,omitempty"`
	// CountsOnly is set when, under this view, the trace's calls differ
	// from its normal run only in how many times loops iterate: what a
	// program's own nondeterminism (dynamic schedules, receives from any
	// source) changes too. Set only when one normal run was given.
	CountsOnly bool `json:"counts_only,omitempty"`
}

// Fold recognises the loops of every trace under each filter (named by its
// spec) and each K, filter-major, as Comparison.Recognize does.
type Fold func(filters []string, ks []int) ([]*compare.NLR, error)

// Suggest picks the view under which the diffNLR of id (a thread, or a
// process: its threads together) shows its change most briefly. The
// candidates are the filters and K of the rows where id was the top
// suspect; failing those, of the rows where it was a suspect; failing
// those, every filter and K of the rows. Among the first candidates whose
// diff is not empty, a view that shows the change beats one that does not
// (see showsChange: its first difference, read on the whole traces,
// is the one the broadest filter's view finds, and its filter keeps calls
// of it: a filter that keeps only the OpenMP runtime's calls may part
// first at an unrelated parallel region); then a view where the traces
// part while both go on beats one where they part only because one of
// them ends (a hang seen through a filter that keeps none of the calls
// after it), then the one with the fewest changed elements wins; a tie
// goes to the better-ranked row. broadest names the grid's broadest filter
// ("all"; "" for none). ok is false when no filter of the rows shows id
// changed. fold is called once per group of candidates tried, and once
// more for the broadest filter.
func Suggest(rows []Row, id trace.ID, broadest string, fold Fold) (v View, ok bool, err error) {
	type pair struct {
		filter string
		k      int
	}
	var groups [3][]pair
	for _, r := range rows {
		sus := r.Threads
		if id.IsProcess() {
			sus = r.Processes
		}
		p := pair{r.Filter, r.K}
		g := 2
		if i := slices.IndexFunc(sus, func(s Suspect) bool { return s.ID == id }); i >= 0 {
			g = 1
			if sus[i].Score == sus[0].Score && sus[i].Progress == sus[0].Progress {
				g = 0
			}
		}
		if !slices.Contains(groups[g], p) {
			groups[g] = append(groups[g], p)
		}
	}
	tried := map[pair]bool{}
	for g, why := range []string{"first", "listed", "changed"} {
		var fs []string
		var ks []int
		var cand []pair
		for _, p := range groups[g] {
			if tried[p] {
				continue
			}
			tried[p] = true
			cand = append(cand, p)
			if !slices.Contains(fs, p.filter) {
				fs = append(fs, p.filter)
			}
			if !slices.Contains(ks, p.k) {
				ks = append(ks, p.k)
			}
		}
		if len(cand) == 0 {
			continue
		}
		nlrs, err := fold(fs, ks)
		if err != nil {
			return v, false, err
		}
		type candidate struct {
			n       *compare.NLR
			p       pair
			changes int
			ends    bool
		}
		var shown []candidate
		for _, p := range cand {
			n := nlrs[slices.Index(fs, p.filter)*len(ks)+slices.Index(ks, p.k)]
			changes, err := n.Changes(id)
			if err != nil {
				return v, false, err
			}
			if changes > 0 {
				shown = append(shown, candidate{n, p, changes, partsAtAnEnd(n, id)})
			}
		}
		// Today's order (a view parting while both go on, then the fewest
		// changes, then the better row), then the first that shows the
		// change: each view judged only until one does, each trace's
		// events read once.
		slices.SortStableFunc(shown, func(a, b candidate) int {
			if a.ends != b.ends {
				if b.ends {
					return -1
				}
				return 1
			}
			return a.changes - b.changes
		})
		if len(shown) > 0 {
			best := shown[0]
			if len(shown) > 1 {
				done := best.n.Comparison().KeepEvents()
				var refs []*compare.NLR
				if broadest != "" {
					if refs, err = fold([]string{broadest}, ks); err != nil {
						done()
						return v, false, err
					}
				}
				memo := refExplanations{}
				for _, cd := range shown {
					var ref *compare.NLR
					if refs != nil {
						ref = refs[slices.Index(ks, cd.p.k)]
					}
					shows, err := showsChange(cd.n, id, ref, memo)
					if err != nil {
						done()
						return v, false, err
					}
					if shows {
						best = cd
						break
					}
				}
				done()
			}
			v, ok = View{Trace: id, Filter: best.p.filter, K: best.p.k, Changes: best.changes, Why: why}, true
		}
		if ok {
			return v, true, nil
		}
	}
	return v, false, nil
}

// partsAtAnEnd reports whether, in every thread of id that changed, the
// runs part only where one of the traces ends.
func partsAtAnEnd(n *compare.NLR, id trace.ID) bool {
	for _, i := range n.Comparison().IndexesOf(id) {
		f, ok := diffnlr.FirstDifference(n.Table, n.Seq(compare.Normal, i), n.Seq(compare.Faulty, i))
		if ok && !f.NormalEnded && !f.FaultyEnded {
			return false
		}
	}
	return true
}

// showsChange reports whether n's view shows the change of id: for the
// first thread of id whose calls differ under the view, its explanation
// (read on the whole traces, Explain) names calls of which the view's
// filter keeps some, and, when ref (the broadest filter's view) explains
// that thread too, the same calls at the same place (callers and loop
// iterations). Where the explanation cannot be read on the whole traces
// (the events are elsewhere, or further normal runs name a new pair of
// calls instead), the view is taken to show it.
func showsChange(n *compare.NLR, id trace.ID, ref *compare.NLR, memo refExplanations) (bool, error) {
	for _, i := range n.Comparison().IndexesOf(id) {
		if n.Seq(compare.Normal, i).Equal(n.Seq(compare.Faulty, i)) {
			continue
		}
		p, ok, noStacks, err := n.Explain(i)
		if err != nil {
			return false, err
		}
		x := p.Explanation
		if !ok || noStacks != nil || p.NewPair != nil || !x.Whole {
			return true, nil
		}
		if x.NormalKept+x.FaultyKept == 0 {
			return false, nil
		}
		if ref == nil || ref == n {
			return true, nil
		}
		q, ok, noStacks, err := memo.explain(ref, i)
		if err != nil {
			return false, err
		}
		y := q.Explanation
		if !ok || noStacks != nil || q.NewPair != nil || !y.Whole {
			return true, nil
		}
		return sameChange(x, y), nil
	}
	return true, nil
}

// refExplanations keeps the broadest views' explanations while the
// candidate views are judged against them: several candidates of one K
// share the broadest view of that K, whose whole-trace explanation costs
// as much as theirs.
type refExplanations map[refKey]refExplained

type refKey struct {
	n *compare.NLR
	i int
}

type refExplained struct {
	p        compare.Parting
	ok       bool
	noStacks error
}

// explain returns ref.Explain(i), explained once.
func (m refExplanations) explain(ref *compare.NLR, i int) (compare.Parting, bool, error, error) {
	k := refKey{ref, i}
	if e, ok := m[k]; ok {
		return e.p, e.ok, e.noStacks, nil
	}
	p, ok, noStacks, err := ref.Explain(i)
	if err != nil {
		return p, ok, noStacks, err
	}
	m[k] = refExplained{p, ok, noStacks}
	return p, ok, noStacks, nil
}

// sameChange reports whether two explanations name the same change: the
// same kind, calls, callers and loop iterations.
func sameChange(x, y diffnlr.Explanation) bool {
	if x.Kind != y.Kind || !slices.Equal(x.Normal, y.Normal) || !slices.Equal(x.Faulty, y.Faulty) || !slices.Equal(x.Stack, y.Stack) || len(x.Loops) != len(y.Loops) {
		return false
	}
	for j := range x.Loops {
		if x.Loops[j].Body != y.Loops[j].Body || x.Loops[j].Iteration != y.Loops[j].Iteration {
			return false
		}
	}
	return true
}
