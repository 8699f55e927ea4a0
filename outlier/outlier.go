package outlier

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/cluster"
	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/hang"
	"github.com/difftrace/difftrace/internal/parallel"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

// Report is the analysis of one run's traces against one another.
type Report struct {
	Run       string   `json:"run"`
	Traces    int      `json:"traces"`
	Processes int      `json:"processes"`
	Filters   []string `json:"filters"`
	Ks        []int    `json:"k"`
	Attrs     []string `json:"attrs"`
	Links     []string `json:"linkages"`
	// Rows are the combinations of the grid, those with suspects first
	// (see compareRows).
	Rows []Row `json:"rows"`
	// Votes is the consensus over the rows: how often each trace was a
	// row's first suspect and how often it was listed.
	Votes []rank.Vote `json:"consensus"`
	// Classes are the run's behaviour classes under one view (ClassView),
	// the largest first, each named by its position when it is a role.
	ClassView View    `json:"class_view"`
	Classes   []Class `json:"classes"`
	// Suspects are the leading traces of the consensus that stand apart
	// from their peers, each with the peer it is diffed against.
	Suspects []Suspect `json:"suspects"`
	// NoSuspect, when set, says why no trace is a suspect.
	NoSuspect string `json:"no_suspect,omitempty"`
	// Progress is how far each trace got in the run's main loop.
	Progress *Progress `json:"progress,omitempty"`
	// Hang is the hang analysis, when the run did not end normally.
	Hang  *hang.Report `json:"hang,omitempty"`
	Notes []string     `json:"notes,omitempty"`
}

// View is one filter, K and attribute mode.
type View struct {
	Filter string `json:"filter"`
	K      int    `json:"k"`
	Attrs  string `json:"attrs,omitempty"`
}

// Row is one combination of the grid and the traces it finds apart from
// their peers.
type Row struct {
	Filter  string `json:"filter"`
	K       int    `json:"k"`
	Attrs   string `json:"attrs"`
	Linkage string `json:"linkage"`
	// Classes counts the behaviour classes, Roles the traces alone in
	// their class that are roles (no peer at their position, or peers
	// that are mostly alone too).
	Classes int `json:"classes"`
	Roles   int `json:"roles"`
	// Suspects are the traces alone in their class among peers that
	// share theirs, farthest first: Score is the height at which the
	// trace joins the rest in the row's dendrogram.
	Suspects []RowSuspect `json:"suspects"`

	order int
}

// RowSuspect is a suspect of one row and the class-mate nearest to it.
type RowSuspect struct {
	ID    trace.ID `json:"id"`
	Score float64  `json:"score"`
	Peer  trace.ID `json:"peer"`
	// Similarity is the Jaccard similarity of its attributes to Peer's.
	Similarity float64 `json:"similarity"`
}

// Analyze ranks the traces of the one run c holds by how they stand apart
// from their peers, over the grid g (its filters, K, attribute modes and
// linkages; with g.Prune, filters that keep no call or the calls of an
// earlier one are dropped). g.SuspectShare is not used.
func Analyze(c *compare.Comparison, g rank.Grid) (*Report, error) {
	if len(c.Runs) != 1 {
		return nil, errors.New("outlier: give one run (to compare two, rank them)")
	}
	if err := g.Check(); err != nil {
		return nil, fmt.Errorf("outlier: %w", err)
	}
	rep := &Report{Run: c.Runs[0].Dir, Traces: len(c.IDs), Processes: len(c.Processes()), Ks: g.Ks}
	nlrs, err := c.Recognize(g.Filters, g.Ks)
	if err != nil {
		return nil, err
	}
	rep.Notes = c.Notes()
	if g.Prune {
		nlrs = prune(nlrs, len(g.Ks))
		if len(nlrs) == 0 {
			return nil, errors.New("outlier: no filter of the grid keeps any call in this run; name filters, or a regular expression of function names")
		}
	}
	for i := 0; i < len(nlrs); i += len(g.Ks) {
		rep.Filters = append(rep.Filters, nlrs[i].Filter.Name())
	}
	for _, m := range g.Modes {
		rep.Attrs = append(rep.Attrs, m.String())
	}
	for _, l := range g.Linkages {
		rep.Links = append(rep.Links, l.String())
	}
	pos := positions(c.IDs)
	atPos := byPosition(pos)
	caches := make([]*countCache, len(nlrs))
	for i := range caches {
		caches[i] = &countCache{m: map[int]map[trace.Symbol]uint64{}}
	}
	jobs := len(nlrs) * len(g.Modes)
	views := make([]*view, jobs)
	rows := make([][]Row, jobs)
	err = parallel.For(jobs, 0, func(j int) error {
		n, m := nlrs[j/len(g.Modes)], g.Modes[j%len(g.Modes)]
		ctx, err := n.Context(0, m, compare.Threads)
		if err != nil {
			return fmt.Errorf("filter %s, K = %d, %s: %w", n.Filter.Name(), n.K, m, err)
		}
		v := &view{ids: c.IDs, pos: pos, atPos: atPos, ctx: ctx, jsm: compare.JSMOf(ctx), n: n, counts: caches[j/len(g.Modes)]}
		views[j] = v
		rows[j], err = v.rows(n.Filter.Name(), n.K, m, g.Linkages)
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, rs := range rows {
		for _, r := range rs {
			r.order = len(rep.Rows)
			rep.Rows = append(rep.Rows, r)
		}
	}
	slices.SortStableFunc(rep.Rows, compareRows)
	rep.Votes = rank.Consensus(asRankRows(rep.Rows), compare.Threads)
	a := &analysis{c: c, rep: rep, views: views, modes: len(g.Modes), nlrs: nlrs, single: singleThreaded(c.IDs)}

	if rep.Progress, err = progressOf(c, nlrs); err != nil {
		return nil, err
	}
	hr, err := hang.Analyze(c, hang.Options{})
	if err != nil {
		return nil, err
	}
	if hr.Hung {
		rep.Hang = hr
	}
	if err := a.suspects(); err != nil {
		return nil, err
	}
	// The classes: under the view of the first suspect's diff, where it
	// stands alone, else under the split most views agree on.
	cv := classView(views)
	if len(rep.Suspects) > 0 {
		for j, v := range views {
			if s := rep.Suspects[0].View; v.n.Filter.Name() == s.Filter && v.n.K == s.K && v.ctx.Mode().String() == s.Attrs {
				cv = j
			}
		}
	}
	v := views[cv]
	rep.ClassView = View{Filter: v.n.Filter.Name(), K: v.n.K, Attrs: v.ctx.Mode().String()}
	rep.Classes = v.classes(v.n)
	a.processIDs()
	return rep, nil
}

// analysis is what Analyze keeps while it picks and explains suspects.
type analysis struct {
	c      *compare.Comparison
	rep    *Report
	views  []*view // per (filter, K) × mode, grid order
	modes  int
	nlrs   []*compare.NLR
	single bool // one thread per process: traces are named by process
}

// viewOf returns the view of row r.
func (a *analysis) viewOf(r Row) *view {
	for _, v := range a.views {
		if v.n.Filter.Name() == r.Filter && v.n.K == r.K && v.ctx.Mode().String() == r.Attrs {
			return v
		}
	}
	return a.views[0]
}

// id names a trace as the report does: by its process when every
// process has one thread.
func (a *analysis) id(t trace.ID) trace.ID {
	if a.single {
		return t.Process()
	}
	return t
}

// processIDs names every trace of the report by its process when every
// process has one thread, as rank does.
func (a *analysis) processIDs() {
	if !a.single {
		return
	}
	rep := a.rep
	for i := range rep.Rows {
		for j := range rep.Rows[i].Suspects {
			s := &rep.Rows[i].Suspects[j]
			s.ID, s.Peer = s.ID.Process(), s.Peer.Process()
		}
	}
	for i := range rep.Votes {
		rep.Votes[i].ID = rep.Votes[i].ID.Process()
	}
	if p := rep.Progress; p != nil {
		for i := range p.Lags {
			p.Lags[i].Trace = p.Lags[i].Trace.Process()
		}
	}
}

// singleThreaded reports whether every process has one thread, thread 0.
func singleThreaded(ids []trace.ID) bool {
	for i, id := range ids {
		if id.Thread != 0 || i > 0 && ids[i-1].Proc == id.Proc {
			return false
		}
	}
	return true
}

// rows finds, per linkage, the traces of v that stand apart from their
// peers.
func (v *view) rows(filter string, k int, m fca.Mode, links []cluster.Method) ([]Row, error) {
	base := Row{Filter: filter, K: k, Attrs: m.String(), Classes: v.ctx.NumClasses()}
	var devs []lone
	v.kinds = map[int]loneKind{}
	for _, l := range v.lones() {
		kind := positional
		switch {
		case l.deviant():
			kind = deviant
			if q, ok := v.nearestPeer(l.o); ok && v.extraWork(l.o, q) {
				kind = extra
			}
		case l.peers >= 2:
			kind = scattered
		}
		v.kinds[l.o] = kind
		if kind == deviant {
			devs = append(devs, l)
		} else {
			base.Roles++
		}
	}
	out := make([]Row, 0, len(links))
	var leaves *fca.Leaves
	if len(devs) > 0 {
		leaves = v.leaves(devs)
	}
	for _, link := range links {
		r := base
		r.Linkage = link.String()
		if len(devs) > 0 {
			dg, err := cluster.LinkageWeighted(leaves.Dist, leaves.Weight, link)
			if err != nil {
				return nil, fmt.Errorf("filter %s, K = %d, %s, %s: %w", filter, k, m, link, err)
			}
			for _, l := range devs {
				peer, ok := v.nearestPeer(l.o)
				if !ok {
					continue
				}
				h := joinHeight(dg, leaves.Of[v.ctx.Class(l.o)])
				r.Suspects = append(r.Suspects, RowSuspect{ID: v.ids[l.o], Score: round(h), Peer: v.ids[peer], Similarity: round(v.sim(l.o, peer))})
			}
			slices.SortStableFunc(r.Suspects, func(a, b RowSuspect) int {
				if a.Score != b.Score {
					if a.Score > b.Score {
						return -1
					}
					return 1
				}
				return a.ID.Compare(b.ID)
			})
		}
		out = append(out, r)
	}
	return out, nil
}

func round(x float64) float64 { return math.Round(x*1e9) / 1e9 }

// compareRows puts first the rows that found one suspect (the clearest),
// then those that found more, each by descending top score; rows without
// suspects last; then grid order.
func compareRows(a, b Row) int {
	ka, kb := rowKind(a), rowKind(b)
	if ka != kb {
		return ka - kb
	}
	if len(a.Suspects) > 0 && len(b.Suspects) > 0 && a.Suspects[0].Score != b.Suspects[0].Score {
		if a.Suspects[0].Score > b.Suspects[0].Score {
			return -1
		}
		return 1
	}
	return a.order - b.order
}

func rowKind(r Row) int {
	switch len(r.Suspects) {
	case 0:
		return 2
	case 1:
		return 0
	}
	return 1
}

// asRankRows gives the rows to rank.Consensus.
func asRankRows(rows []Row) []rank.Row {
	out := make([]rank.Row, len(rows))
	for i, r := range rows {
		out[i] = rank.Row{Filter: r.Filter, K: r.K, Attrs: r.Attrs, Linkage: r.Linkage}
		for _, s := range r.Suspects {
			out[i].Threads = append(out[i].Threads, rank.Suspect{ID: s.ID, Score: s.Score})
		}
	}
	return out
}

// prune drops the filters (groups of nk NLRs) that kept no call, and
// those whose NLRs equal an earlier filter's in every trace.
func prune(nlrs []*compare.NLR, nk int) []*compare.NLR {
	var out []*compare.NLR
	for i := 0; i < len(nlrs); i += nk {
		group := nlrs[i : i+nk]
		if group[0].Total() == 0 {
			continue
		}
		same := false
		for j := 0; j < len(out) && !same; j += nk {
			same = out[j].Same(group[0])
		}
		if !same {
			out = append(out, group...)
		}
	}
	return out
}

// classView picks the view the classes are listed under: the way of
// splitting the run into classes that most views agree on, among the views
// that split it at all and where every trace alone in its class is a role
// or a suspect (none is one of many alone at its position); ties go to the
// finer split, where the roles are told apart, then to the earliest view
// of the grid (the narrowest filter). A split that only noise makes (how
// many tasks each worker took) changes from view to view; the program's
// roles stay.
func classView(views []*view) int {
	keys := make([]string, len(views))
	count := map[string]int{}
	for j, v := range views {
		keys[j] = partition(v.ctx)
		count[keys[j]]++
	}
	best, found := 0, false
	better := func(j int) bool {
		a, b := views[j], views[best]
		switch {
		case count[keys[j]] != count[keys[best]]:
			return count[keys[j]] > count[keys[best]]
		case a.ctx.NumClasses() != b.ctx.NumClasses():
			return a.ctx.NumClasses() > b.ctx.NumClasses()
		}
		return false
	}
	for j, v := range views {
		clean := v.ctx.NumClasses() > 1
		for _, k := range v.kinds {
			clean = clean && k != scattered
		}
		if clean && (!found || better(j)) {
			best, found = j, true
		}
	}
	return best
}

// partition writes how ctx splits its objects, each by the first object
// of its class.
func partition(ctx *fca.Context) string {
	first := map[int]int{}
	var b strings.Builder
	for o := range ctx.Len() {
		k := ctx.Class(o)
		if _, ok := first[k]; !ok {
			first[k] = o
		}
		fmt.Fprintf(&b, "%d,", first[k])
	}
	return b.String()
}
