package rank

import (
	"fmt"
	"slices"

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
	// never has 0.
	Changes int `json:"changes"`
	// Why says which rows the view comes from: "first" (the trace was
	// their top suspect), "listed" (it was a suspect) or "changed" (its
	// calls changed under this filter, though no row made it a suspect).
	Why string `json:"why"`
	// Parted is set when the faulty run hung or crashed and the view is
	// not of the consensus leader but of the leading trace that parted from
	// its normal run before it stopped (see Comparison.partedFirst).
	Parted bool `json:"parted,omitempty"`
	// Culprit, when the trace is the first suspect of a hang analysis
	// (Grid.Culprit), says why it is suspected.
	Culprit string `json:"culprit,omitempty"`
	// CountsOnly is set when, under this view, the trace's calls differ
	// from its normal run only in how many times loops iterate: what a
	// program's own nondeterminism (dynamic schedules, receives from any
	// source) changes too. Set only when one normal run was given.
	CountsOnly bool `json:"counts_only,omitempty"`
}

// Fold recognises the loops of every trace under each filter (named by its
// spec) and each K, filter-major, as Comparison.Recognize does.
type Fold func(filters []string, ks []int) ([]*NLR, error)

// Suggest picks the view under which the diffNLR of id (a thread, or a
// process: its threads together) shows its change most briefly. The
// candidates are the filters and K of the rows where id was the top
// suspect; failing those, of the rows where it was a suspect; failing
// those, every filter and K of the rows. Among the first candidates whose
// diff is not empty, a view where the traces part while both go on beats
// one where they part only because one of them ends (a hang seen through a
// filter that keeps none of the calls after it), then the one with the
// fewest changed elements wins; a tie goes to the better-ranked row. ok is
// false when no filter of the rows shows id changed. fold is called once
// per group of candidates tried.
func Suggest(rows []Row, id trace.ID, fold Fold) (v View, ok bool, err error) {
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
		bestEnds := false
		for _, p := range cand {
			n := nlrs[slices.Index(fs, p.filter)*len(ks)+slices.Index(ks, p.k)]
			changes, err := n.Changes(id)
			if err != nil {
				return v, false, err
			}
			if changes == 0 {
				continue
			}
			ends := n.partsAtAnEnd(id)
			if !ok || (bestEnds && !ends) || (bestEnds == ends && changes < v.Changes) {
				v, ok, bestEnds = View{Trace: id, Filter: p.filter, K: p.k, Changes: changes, Why: why}, true, ends
			}
		}
		if ok {
			return v, true, nil
		}
	}
	return v, false, nil
}

// Changes counts the elements only one run has in the diffNLR of id (a
// thread, or every thread of a process), run-wide changes set aside.
func (n *NLR) Changes(id trace.ID) (int, error) {
	total := 0
	for _, i := range n.c.indexesOf(id) {
		t := n.c.IDs[i]
		ns, fs := n.Seq(Normal, i), n.Seq(Faulty, i)
		if ns.Equal(fs) {
			continue
		}
		blocks, _, err := n.Diff(i)
		if err != nil {
			return 0, fmt.Errorf("diffNLR(%s): %v", t, err)
		}
		for _, b := range blocks {
			if b.Kind != diffnlr.Common {
				total += len(b.Elems)
			}
		}
	}
	return total, nil
}

// partsAtAnEnd reports whether, in every thread of id that changed, the
// runs part only where one of the traces ends.
func (n *NLR) partsAtAnEnd(id trace.ID) bool {
	for _, i := range n.c.indexesOf(id) {
		f, ok := diffnlr.FirstDifference(n.Table, n.Seq(Normal, i), n.Seq(Faulty, i))
		if ok && !f.NormalEnded && !f.FaultyEnded {
			return false
		}
	}
	return true
}
