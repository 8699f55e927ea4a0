package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/cluster"
	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/hang"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

// MaxProgress is how many traces the hang section lists, least progressed
// first.
const MaxProgress = 100

// MaxSuspects is how many suspects a row of the page lists per level.
const MaxSuspects = 5

// FromRanking fills the grid, the rows and the consensus of rpt from a
// ranking. Rows are not precomputed yet (Combination -1).
func FromRanking(rpt *Report, rk *rank.Ranking) {
	g := &rpt.Grid
	g.Filters, g.Ks, g.Attrs, g.Linkages = rk.Filters, rk.Ks, rk.Attrs, rk.Links
	g.NoiseRuns = len(rk.AlsoNormal)
	var none []string
	same := map[string][]string{}
	var sameOrder []string
	for _, d := range rk.Dropped {
		if d.SameAs == "" {
			none = append(none, d.Filter)
			continue
		}
		if same[d.SameAs] == nil {
			sameOrder = append(sameOrder, d.SameAs)
		}
		same[d.SameAs] = append(same[d.SameAs], d.Filter)
	}
	if len(none) > 0 {
		g.LeftOut = append(g.LeftOut, "no call kept in these runs: "+strings.Join(none, ", "))
	}
	for _, s := range sameOrder {
		g.LeftOut = append(g.LeftOut, "the same calls as "+s+": "+strings.Join(same[s], ", "))
	}
	for _, rw := range rk.RunWide {
		w := RunWide{Filter: rw.Filter, K: rw.K}
		for _, ch := range rw.Changes {
			w.Changes = append(w.Changes, trace.Printable(ch))
		}
		g.RunWide = append(g.RunWide, w)
	}
	for _, n := range rk.Notes {
		rpt.Notes = append(rpt.Notes, trace.Printable(n))
	}
	if len(rk.OnlyNormal) > 0 {
		rpt.Notes = append(rpt.Notes, "only in the normal run: "+strings.Join(rk.OnlyNormal, ", ")+" (compared as traces with no calls in the faulty run)")
	}
	if len(rk.OnlyFaulty) > 0 {
		rpt.Notes = append(rpt.Notes, "only in the faulty run: "+strings.Join(rk.OnlyFaulty, ", ")+" (compared as traces with no calls in the normal run)")
	}
	rpt.Rows = make([]Row, len(rk.Rows))
	for i, r := range rk.Rows {
		rpt.Rows[i] = Row{
			Filter: r.Filter, K: r.K, Attrs: r.Attrs, Linkage: r.Linkage,
			BScore: r.BScore, Clusters: r.Clusters, ProcessBScore: r.ProcessBScore,
			Threads: suspects(r.Threads), Processes: suspects(r.Processes),
			MoreThreads:   max(len(r.Threads)-MaxSuspects, 0),
			MoreProcesses: max(len(r.Processes)-MaxSuspects, 0),
			Combination:   -1,
		}
	}
	c := &rpt.Consensus
	c.Rows = len(rk.Rows)
	c.Threads, c.ThreadLine = votes(rk.ThreadVotes, len(rk.Rows))
	c.Processes, c.ProcessLine = votes(rk.ProcessVotes, len(rk.Rows))
}

// suspects are the first MaxSuspects of ss, never nil (an empty list in
// JSON).
func suspects(ss []rank.Suspect) []rank.Suspect {
	return append([]rank.Suspect{}, ss[:min(len(ss), MaxSuspects)]...)
}

// votes returns the consensus, never nil (an empty list in JSON), and
// says it as rank does.
func votes(vs []rank.Vote, rows int) ([]rank.Vote, string) {
	out := append([]rank.Vote{}, vs...)
	if len(vs) == 0 || vs[0].First == 0 {
		return out, "no combination found a suspect (the runs look alike under every parameter)"
	}
	top := rank.Top(vs)
	var ids []string
	for _, v := range top {
		ids = append(ids, v.ID.String())
	}
	if len(top) == 1 {
		return out, fmt.Sprintf("%s was the most suspicious in %d of %d combinations", ids[0], top[0].First, rows)
	}
	return out, fmt.Sprintf("%s tie: each was the most suspicious in %d of %d combinations", strings.Join(ids, ", "), top[0].First, rows)
}

// FromHang converts a hang analysis; nil when the run did not hang.
func FromHang(rep *hang.Report) *Hang {
	if rep == nil || !rep.Hung {
		return nil
	}
	h := &Hang{Ended: trace.Printable(rep.Ended), Filter: rep.Filter, Classes: classOf(rep.Classes)}
	if rep.WaitFor != nil {
		for _, l := range rep.WaitFor.Lines() {
			h.Waits = append(h.Waits, trace.Printable(l))
		}
	}
	for _, s := range rep.Suspects {
		h.Suspects = append(h.Suspects, HangSuspect{Trace: s.Trace.String(), Reason: trace.Printable(s.Reason)})
	}
	for i, p := range rep.Progress {
		if i == MaxProgress {
			h.ProgressMore = len(rep.Progress) - i
			break
		}
		stopped := ""
		if len(p.End) > 0 {
			stopped = p.End[len(p.End)-1]
		}
		h.Progress = append(h.Progress, HangProgress{Trace: p.Trace.String(), Where: trace.Printable(p.Where), StoppedIn: trace.Printable(stopped)})
	}
	ids := make([]string, 0, len(rep.Loops))
	for id := range rep.Loops {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
	for _, id := range ids {
		h.Loops = append(h.Loops, trace.Printable(id+" = "+rep.Loops[id]))
	}
	for _, n := range rep.Notes {
		h.Notes = append(h.Notes, trace.Printable(n))
	}
	return h
}

func classOf(n *hang.Node) *Class {
	if n == nil {
		return nil
	}
	c := &Class{Frames: trace.Printable(strings.Join(n.Frames, " > ")), Traces: n.List, Count: n.Count, Ended: n.Ended}
	for _, ch := range n.Children {
		c.Children = append(c.Children, classOf(ch))
	}
	return c
}

// Precompute adds the views and combinations of the rows at the given
// indexes of rpt.Rows, in that order: for each distinct filter, K and
// attribute mode the heatmaps and lattices (NewView), and for each row its
// dendrograms. nlr finds the NLR of a filter and K. The suspects marked on
// the heatmaps are the row's.
func Precompute(rpt *Report, rows []int, nlr func(filter string, k int) (*compare.NLR, error)) error {
	for _, i := range rows {
		if rpt.Rows[i].Combination >= 0 {
			continue
		}
		r := rpt.Rows[i]
		m, err := fca.ParseMode(r.Attrs)
		if err != nil {
			return err
		}
		link, err := cluster.ParseMethod(r.Linkage)
		if err != nil {
			return err
		}
		n, err := nlr(r.Filter, r.K)
		if err != nil {
			return err
		}
		s, err := similarity(n, m)
		if err != nil {
			return err
		}
		v := slices.IndexFunc(rpt.Views, func(v View) bool { return v.Filter == r.Filter && v.K == r.K && v.Attrs == r.Attrs })
		if v < 0 {
			view, err := NewView(r, s)
			if err != nil {
				return err
			}
			rpt.Views = append(rpt.Views, view)
			v = len(rpt.Views) - 1
		}
		cb := Combination{Row: i, View: v}
		for run, name := range []string{"normal", "faulty"} {
			title := fmt.Sprintf("%s run, %s linkage", name, r.Linkage)
			if cb.Dendrograms[run], err = NewDendrogram(title, s.Ctx[run], s.JSM[run], link, r.Clusters); err != nil {
				return err
			}
		}
		rpt.Combinations = append(rpt.Combinations, cb)
		rpt.Rows[i].Combination = len(rpt.Combinations) - 1
	}
	return nil
}

// similarity builds both runs' thread-level contexts and JSMs under m,
// from bitsets as the sweep does (stored up to compare.MaxClasses classes).
func similarity(n *compare.NLR, m fca.Mode) (*compare.Similarity, error) {
	c := n.Comparison()
	s := &compare.Similarity{Level: compare.Threads, IDs: c.Objects(compare.Threads)}
	for r := range 2 {
		ctx, err := n.Context(r, m, compare.Threads)
		if err != nil {
			return nil, err
		}
		j := fca.BitsetJSM
		if ctx.NumClasses() > compare.MaxClasses {
			j = fca.LazyJSM
		}
		s.Ctx = append(s.Ctx, ctx)
		s.JSM = append(s.JSM, j(ctx))
	}
	return s, nil
}

// NewView returns the heatmaps and the lattices of s, the similarity of
// row r's filter, K and attribute mode; the heatmaps mark r's suspects.
func NewView(r Row, s *compare.Similarity) (View, error) {
	v := View{Filter: r.Filter, K: r.K, Attrs: r.Attrs}
	var sus []trace.ID
	for _, x := range r.Threads {
		sus = append(sus, x.ID)
	}
	v.Heatmaps = NewHeatmaps(s.IDs, s.JSM[compare.Normal], s.JSM[compare.Faulty], sus)
	for run, name := range []string{"normal", "faulty"} {
		ctx := s.Ctx[run]
		title := fmt.Sprintf("%s run: %d traces in %d classes, %d attributes", name, ctx.Len(), ctx.NumClasses(), ctx.NumAttrs())
		lat, note, err := NewLattice(title, ctx)
		if err != nil {
			return v, err
		}
		v.Lattices[run], v.LatticeNotes[run] = lat, note
	}
	return v, nil
}
