package rank

import (
	"errors"
	"fmt"
	"github.com/difftrace/difftrace/internal/param"
	"math"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/cluster"
	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/hang"
	"github.com/difftrace/difftrace/internal/parallel"
	"github.com/difftrace/difftrace/trace"
)

// Grid is the parameter sweep of a ranking (seeds/002 §3.2.6: "alter the
// linkage, the attributes, the NLR constant and the filters"): every
// combination filter × K × attribute mode × linkage is one row.
type Grid struct {
	Filters  []*filters.Filter
	Ks       []int
	Modes    []fca.Mode
	Linkages []cluster.Method
	// Prune drops, before the analysis, the filters that keep no call in
	// either run and those that keep exactly the calls of an earlier filter
	// of the grid (they would repeat its rows). A default grid is pruned;
	// filters a user names are kept as they are.
	Prune bool
	// SuspectShare is the cut of each row's suspects: an object is one when
	// its score is at least this share of the row's highest (see
	// Suspects). 0 means the default, SuspectShare (half); a share must be
	// above 0 and at most 1.
	SuspectShare float64
}

// Check reports a grid with no combination: one of its filters, K,
// attribute modes or linkages is missing.
func (g Grid) Check() error {
	switch {
	case len(g.Filters) == 0:
		return errors.New("the grid has no filter")
	case len(g.Ks) == 0:
		return errors.New("the grid has no K")
	case len(g.Modes) == 0:
		return errors.New("the grid has no attribute mode")
	case len(g.Linkages) == 0:
		return errors.New("the grid has no linkage")
	}
	return nil
}

// DefaultKs, DefaultLinkages: the default grid's K and linkages. K = 10 is
// what seeds/002 used throughout; ward was the linkage of all its reported
// rows, and average, complete and single are the other common choices.
var (
	DefaultKs       = []int{10}
	DefaultLinkages = []cluster.Method{cluster.Ward, cluster.Average, cluster.Complete, cluster.Single}
)

// DefaultFilters returns one filter per preset of seeds/002 Table 3.1 (mpi,
// mpi.col, …, str, and all last, the broadest), each with "+cust=custom"
// added when custom is not empty. Run with Grid.Prune, only those that keep
// calls in the runs remain.
func DefaultFilters(custom string) ([]*filters.Filter, error) {
	var names []string
	for _, p := range filters.Presets() {
		switch p[0] {
		case "plt", "ret", "cust=REGEXP", "all":
		default:
			names = append(names, p[0])
		}
	}
	var out []*filters.Filter
	for _, name := range append(names, "all") {
		f, err := filters.Parse(WithCustom(name, custom))
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// WithCustom returns spec with "+cust=custom" added, or spec itself when
// custom is empty.
func WithCustom(spec, custom string) string {
	if custom == "" {
		return spec
	}
	return spec + "+cust=" + custom
}

// Row is one combination of the ranking table (a row of seeds/002 Tables
// 3.6–3.9): its parameters, its B-score, and the processes and threads whose
// JSM_D rows changed most.
type Row struct {
	Filter  string `json:"filter"`
	K       int    `json:"k"`
	Attrs   string `json:"attrs"`
	Linkage string `json:"linkage"`
	// BScore is the Fowlkes–Mallows index B_k of the normal and faulty
	// thread-level dendrograms cut into Clusters clusters: 1 when the bug
	// left the clustering as it was, lower the more it changed it. Rows are
	// sorted by it.
	BScore   float64 `json:"bscore"`
	Clusters int     `json:"clusters"`
	// ProcessBScore and ProcessClusters are the same at process level.
	ProcessBScore   float64 `json:"process_bscore"`
	ProcessClusters int     `json:"process_clusters"`
	// Threads and Processes are the suspects (see Suspects), most changed
	// first. They do not depend on the linkage.
	Threads   []Suspect `json:"top_threads"`
	Processes []Suspect `json:"top_processes"`

	order int // position in the grid, to break B-score ties
}

// Ranking is the result of a sweep: the rows sorted by ascending B-score,
// and the consensus over all of them.
type Ranking struct {
	Normal string `json:"normal"`
	Faulty string `json:"faulty"`
	// AlsoNormal lists the further normal runs, which set the noise
	// floors.
	AlsoNormal []string `json:"also_normal,omitempty"`
	Filters    []string `json:"filters"` // the filters analysed (after pruning)
	Ks         []int    `json:"k"`
	Attrs      []string `json:"attrs"`
	Links      []string `json:"linkages"`
	// Dropped lists the filters of the grid that were pruned.
	Dropped []Dropped `json:"dropped,omitempty"`
	Rows    []Row     `json:"rows"`
	// Consensus at thread and at process level.
	ThreadVotes  []Vote `json:"consensus_threads"`
	ProcessVotes []Vote `json:"consensus_processes"`
	// Traces that exist in one run only (they are compared as traces with
	// no calls in the other run).
	OnlyNormal []string `json:"only_normal,omitempty"`
	OnlyFaulty []string `json:"only_faulty,omitempty"`
	// Notes are what the decoder and the analysis report about the runs.
	Notes []string `json:"notes,omitempty"`
	// RunWide lists, per filter and K, the changes every process of the
	// faulty run shows alike (NLR.RunWide): they point at no trace, so no
	// row counts them.
	RunWide []RunWide `json:"run_wide,omitempty"`
	// Suggestion is where to look at how the consensus top changed (see
	// Suggest): the thread that leads the thread consensus, or its process
	// when every process has one thread. It is nil when no row found a
	// suspect, or when the consensus is weak (NoClearSuspect).
	Suggestion *View `json:"suggestion,omitempty"`
	// NoClearSuspect, when set, says why no view is suggested though a
	// row found a suspect: the consensus is too weak to point at a trace
	// (see weak), as between two normal runs of a program that varies by
	// itself.
	NoClearSuspect string `json:"no_clear_suspect,omitempty"`
}

// RunWide is what one filter and K found changed alike in every process.
type RunWide struct {
	Filter  string   `json:"filter"`
	K       int      `json:"k"`
	Changes []string `json:"changes"` // each as Change.Format writes it
}

// Dropped is a filter left out of a pruned grid: it keeps no call in the
// runs (SameAs is empty), or exactly the calls of the filter SameAs.
type Dropped struct {
	Filter string `json:"filter"`
	SameAs string `json:"same_as,omitempty"`
}

// Best returns the best-ranked row (the lowest B-score), if any.
func (rk *Ranking) Best() (Row, bool) {
	if len(rk.Rows) == 0 {
		return Row{}, false
	}
	return rk.Rows[0], true
}

// Sweep analyses every combination of the grid and ranks them, with the
// hang analysis (hang.Analyze) when the faulty run did not end normally:
// the hang analysis's first suspect is then the trace whose diffNLR the
// ranking suggests, and why it is suspected (View.Culprit); when it names
// none, the sweep chooses (partedFirst). hung is the hang analysis (nil
// when the faulty run did not hang). The comparison must hold a normal and
// a faulty run. Combinations run in parallel on Options.Workers goroutines;
// the result does not depend on their number.
func Sweep(c *compare.Comparison, g Grid) (rk *Ranking, hung *hang.Report, err error) {
	var hangErr error
	culprit := func() (trace.ID, string, bool) {
		rep, err := hang.Analyze(c, hang.Options{})
		if err != nil {
			hangErr = err
			return trace.ID{}, "", false
		}
		if !rep.Hung {
			return trace.ID{}, "", false
		}
		hung = rep
		if len(rep.Suspects) == 0 {
			return trace.ID{}, "", false
		}
		return rep.Suspects[0].Trace, rep.Suspects[0].Reason, true
	}
	if rk, err = sweep(c, g, culprit); err != nil {
		return nil, nil, err
	}
	if hangErr != nil {
		return nil, nil, hangErr
	}
	if hung == nil && len(c.Runs) == 2 {
		// No suggestion asked for the culprit (no row found a suspect):
		// the hang analysis all the same.
		rep, err := hang.Analyze(c, hang.Options{})
		if err != nil {
			return nil, nil, err
		}
		if rep.Hung {
			hung = rep
		}
	}
	return rk, hung, nil
}

// sweep is Sweep, asking hangCulprit, if set, for the trace to suggest
// when the faulty run did not end normally; without it, the ranking
// alone chooses (partedFirst).
func sweep(c *compare.Comparison, g Grid, hangCulprit func() (trace.ID, string, bool)) (*Ranking, error) {
	if len(c.Runs) < 2 {
		return nil, errors.New("rank: ranking needs two runs, a normal and a faulty one")
	}
	if err := g.Check(); err != nil {
		return nil, fmt.Errorf("rank: %w", err)
	}
	if g.SuspectShare < 0 || g.SuspectShare > 1 || math.IsNaN(g.SuspectShare) {
		return nil, fmt.Errorf("rank: suspect share %v: want a share above 0 and at most 1 (0.5: half the highest score)", g.SuspectShare)
	}
	share := g.SuspectShare
	if share == 0 {
		share = SuspectShare
	}
	rk := &Ranking{
		Normal: c.Runs[compare.Normal].Dir, Faulty: c.Runs[compare.Faulty].Dir, AlsoNormal: c.AlsoNormal(), Ks: g.Ks,
		OnlyNormal: idStrings(c.OnlyIn(compare.Normal)), OnlyFaulty: idStrings(c.OnlyIn(compare.Faulty)),
	}
	fs := g.Filters
	var notRecorded string
	if g.Prune {
		// The filters the runs can serve: a selective recording (capture
		// --only) has only the calls of some.
		if fs, notRecorded = servedFilters(c, fs); len(fs) == 0 {
			return nil, param.Advise("rank: %s; {name the grid's filters}", notRecorded)
		}
		fs, rk.Dropped = sameMasks(c, fs)
	}
	nlrs, err := c.Recognize(fs, g.Ks)
	if err != nil {
		return nil, err
	}
	rk.Notes = append(c.RunNotes(), c.PairNotes()...) // after reading the traces
	if notRecorded != "" {
		rk.Notes = append(rk.Notes, "filters "+notRecorded)
	}
	if g.Prune {
		var dropped []Dropped
		nlrs, dropped = pruneNLRs(nlrs, len(g.Ks))
		rk.Dropped = append(rk.Dropped, dropped...)
		if len(nlrs) == 0 {
			return nil, param.Advise("rank: no filter of the grid keeps any call in these runs; {name the grid's filters, or a custom regexp}")
		}
	}
	for i := 0; i < len(nlrs); i += len(g.Ks) {
		rk.Filters = append(rk.Filters, nlrs[i].Filter.Name())
	}
	for _, n := range nlrs {
		if len(n.RunWide) == 0 {
			continue
		}
		rw := RunWide{Filter: n.Filter.Name(), K: n.K}
		for _, ch := range n.RunWide {
			rw.Changes = append(rw.Changes, ch.Format(n.Table, n.Names()))
		}
		rk.RunWide = append(rk.RunWide, rw)
	}
	for _, m := range g.Modes {
		rk.Attrs = append(rk.Attrs, m.String())
	}
	for _, l := range g.Linkages {
		rk.Links = append(rk.Links, l.String())
	}

	jobs := len(nlrs) * len(g.Modes)
	results := make([]analysis, jobs)
	progress := c.Options().Progress
	if progress != nil {
		progress.Begin("analysing combinations", jobs)
	}
	err = parallel.For(jobs, c.Options().Workers, func(j int) error {
		var err error
		results[j], err = analyze(c, nlrs[j/len(g.Modes)], g.Modes[j%len(g.Modes)], g.Linkages, share)
		if progress != nil {
			progress.Step()
		}
		return err
	})
	if progress != nil {
		progress.End()
	}
	if err != nil {
		return nil, err
	}

	represented := map[string]int{} // filter → most classes clustered on representatives
	var representedOrder []string
	for j, a := range results {
		n, m := nlrs[j/len(g.Modes)], g.Modes[j%len(g.Modes)]
		if k := max(a.level[compare.Threads].represented, a.level[compare.Processes].represented); k > 0 {
			if _, ok := represented[n.Filter.Name()]; !ok {
				representedOrder = append(representedOrder, n.Filter.Name())
			}
			represented[n.Filter.Name()] = max(represented[n.Filter.Name()], k)
		}
		for l, link := range g.Linkages {
			rk.Rows = append(rk.Rows, Row{
				Filter: n.Filter.Name(), K: n.K, Attrs: m.String(), Linkage: link.String(),
				BScore: a.level[compare.Threads].bscores[l], Clusters: a.level[compare.Threads].clusters,
				ProcessBScore: a.level[compare.Processes].bscores[l], ProcessClusters: a.level[compare.Processes].clusters,
				Threads: a.level[compare.Threads].suspects, Processes: a.level[compare.Processes].suspects,
				order: len(rk.Rows),
			})
		}
	}
	if len(representedOrder) > 0 {
		var parts []string
		for _, f := range representedOrder {
			parts = append(parts, fmt.Sprintf("%s (up to %d)", f, represented[f]))
		}
		rk.Notes = append(rk.Notes, fmt.Sprintf("more than %d distinct attribute sets in a run under filters %s: those rows cluster %d of the sets, "+
			"chosen farthest first, each standing for the sets nearest to it, and score each trace against at most %d kinds of trace",
			compare.MaxClasses, strings.Join(parts, ", "), compare.MaxClasses, compare.MaxScoreJoints))
	}
	slices.SortStableFunc(rk.Rows, compareRows)
	rk.ThreadVotes = Consensus(rk.Rows, compare.Threads)
	rk.ProcessVotes = Consensus(rk.Rows, compare.Processes)
	if len(rk.ThreadVotes) > 0 && rk.ThreadVotes[0].First > 0 {
		id := rk.ThreadVotes[0].ID
		if singleThreaded(c) {
			id = id.Process()
		}
		fold := func(fs []string, ks []int) ([]*compare.NLR, error) {
			out := make([]*compare.NLR, 0, len(fs)*len(ks))
			for _, f := range fs {
				for _, k := range ks {
					i := slices.IndexFunc(nlrs, func(n *compare.NLR) bool { return n.Filter.Name() == f && n.K == k })
					if i < 0 {
						return nil, fmt.Errorf("rank: no NLR for filter %s, K = %d", f, k)
					}
					out = append(out, nlrs[i])
				}
			}
			return out, nil
		}
		parted, culprit := false, ""
		if p, why, ok := askCulprit(c, hangCulprit); ok {
			if singleThreaded(c) {
				p = p.Process()
			}
			parted, culprit = p != id, why
			id = p
		} else if p, ok := partedFirst(c, nlrs[len(nlrs)-len(g.Ks)], rk.ThreadVotes); ok {
			parted = p != id
			id = p
		}
		v, ok, err := Suggest(rk.Rows, id, rk.Filters[len(rk.Filters)-1], fold)
		if err != nil {
			return nil, err
		}
		if ok {
			v.Parted = parted
			v.Culprit = culprit
			rk.Suggestion = &v
			if nl, err := fold([]string{v.Filter}, []int{v.K}); err == nil {
				rk.Notes = append(rk.Notes, nl[0].UnfoldedNotes(v.Trace)...)
				rk.Suggestion.CountsOnly = len(c.Runs) == 2 && nl[0].CountsOnly(v.Trace)
			}
			if why, ok := weak(rk.ThreadVotes, rk.ProcessVotes, len(c.Processes()) < 2, len(rk.Rows), *rk.Suggestion); ok {
				rk.Suggestion, rk.NoClearSuspect = nil, why
			}
		}
	}
	if rk.Suggestion == nil && rk.NoClearSuspect == "" && len(rk.Filters) > 0 && len(g.Ks) > 0 {
		// A hang whose culprit made every call its normal run makes and
		// then stopped inside one (MPI_Finalize, say): no view shows a
		// change in its calls, and its diffNLR shows where it stopped.
		if p, why, ok := askCulprit(c, hangCulprit); ok {
			if singleThreaded(c) {
				p = p.Process()
			}
			rk.Suggestion = &View{Trace: p, Filter: rk.Filters[len(rk.Filters)-1], K: g.Ks[0], Why: "stopped", Culprit: why}
		}
	}
	return rk, nil
}

// askCulprit asks culprit, if set, when the faulty run did not end
// normally.
func askCulprit(c *compare.Comparison, culprit func() (trace.ID, string, bool)) (trace.ID, string, bool) {
	if culprit == nil || len(c.Runs) < 2 {
		return trace.ID{}, "", false
	}
	if bad, _ := compare.BadEnding(c.Runs[compare.Faulty]); bad == "" {
		return trace.ID{}, "", false
	}
	return culprit()
}

// partedFirst finds, when the faulty run did not end normally (some rank
// was killed, hung or crashed), the trace to look at first: in a hang
// every rank changes, and the ranks left waiting for the culprit change as
// much as the culprit. So among the three traces that lead the consensus,
// in its order, it takes the first whose calls part from its normal run's
// before its
// trace ends (diffnlr.FirstDifference under n, the grid's broadest filter)
// and where both runs go on for a while (minRunOn calls): the others only
// stopped early, some a call or two after a call the recorder could not
// write, or kept on (a worker spinning while its master hangs) where the
// normal run was about to end. ok is false when the run ended normally or no trace parted so.
func partedFirst(c *compare.Comparison, n *compare.NLR, votes []Vote) (trace.ID, bool) {
	const minRunOn = 16
	if bad, _ := compare.BadEnding(c.Runs[compare.Faulty]); bad == "" {
		return trace.ID{}, false
	}
	for _, v := range votes[:min(len(votes), 3)] {
		i, ok := c.Index(v.ID)
		if !ok || v.First == 0 {
			continue
		}
		f, ok := diffnlr.FirstDifference(n.Table, n.Seq(compare.Normal, i), n.Seq(compare.Faulty, i))
		if ok && f.NormalLeft >= minRunOn && f.FaultyLeft-len(f.Faulty) >= minRunOn {
			if singleThreaded(c) {
				return v.ID.Process(), true
			}
			return v.ID, true
		}
	}
	return trace.ID{}, false
}

// compareRows orders the ranking table: by ascending B-score; among equal
// B-scores, the row whose top thread changed most first (its suspect stands
// out most clearly, and its filter and K make the clearest diffNLR); then
// in grid order.
func compareRows(a, b Row) int {
	switch {
	case a.BScore != b.BScore:
		if a.BScore < b.BScore {
			return -1
		}
		return 1
	case topScore(a) != topScore(b):
		return cmpDesc(topScore(a), topScore(b))
	}
	return a.order - b.order
}

func topScore(r Row) float64 {
	if len(r.Threads) == 0 {
		return 0
	}
	return r.Threads[0].Score
}

// analysis is what one (filter, K, mode) gives at each level.
type analysis struct {
	level [2]levelResult
}

type levelResult struct {
	suspects []Suspect
	clusters int
	bscores  []float64 // per linkage of the grid
	// represented is the number of classes a run had when it was clustered
	// on MaxClasses representatives of them, 0 when it was not.
	represented int
}

// analyze compares both runs under one (filter, K, mode) at thread and at
// process level: JSMs, JSM_D, suspects, and per linkage both dendrograms
// and their B-score. (The JSMs come from bitsets, so there is no lattice
// notice to report.)
func analyze(c *compare.Comparison, n *compare.NLR, m fca.Mode, links []cluster.Method, share float64) (analysis, error) {
	var a analysis
	fail := func(l compare.Level, err error) (analysis, error) {
		return a, fmt.Errorf("filter %s, K = %d, %s, %s level: %w", n.Filter.Name(), n.K, m, l, err)
	}
	ts, err := n.BitsetSimilarity(m, compare.Threads)
	if err != nil {
		return fail(compare.Threads, err)
	}
	if a.level[compare.Threads], err = result(n, ts, m, links, share); err != nil {
		return a, err
	}
	if singleThreaded(c) {
		// One thread per process in both runs: the process level has the
		// same attribute sets, so the same results.
		t := a.level[compare.Threads]
		p := levelResult{clusters: t.clusters, bscores: t.bscores}
		for _, s := range t.suspects {
			p.suspects = append(p.suspects, Suspect{ID: s.ID.Process(), Score: s.Score, Progress: s.Progress, Floor: s.Floor})
		}
		a.level[compare.Processes] = p
		return a, nil
	}
	// The process contexts merge the thread contexts just built.
	ps, err := n.ProcessSimilarity(ts)
	if err != nil {
		return fail(compare.Processes, err)
	}
	a.level[compare.Processes], err = result(n, ps, m, links, share)
	return a, err
}

// result scores the objects of s, keeps as suspects those at least share
// of the highest score, and, per linkage, clusters both runs and computes
// their B-score.
func result(n *compare.NLR, s *compare.Similarity, m fca.Mode, links []cluster.Method, share float64) (levelResult, error) {
	// A trace whose NLR is the same in both runs is not where the bug
	// acted, however far its similarity to the others moved (in a
	// deadlock, the one rank that finished all its phases stands out
	// because everybody else changed): it cannot be a suspect.
	//
	// When the normal runs differ among themselves, a trace is a suspect
	// only where it did something no normal run did (an attribute no
	// trace has in any normal run), or, with three normal runs or more
	// and no trace doing anything new, where its score clearly exceeds its
	// noise floor: otherwise it changed no more than the program does by
	// itself. Something new outweighs any amount of change in counts, and
	// under attributes with frequencies nothing else counts: a count one
	// bucket up from every normal run's is what a program that varies by
	// itself does now and then.
	changed := n.Changed(s.Level)
	scores := s.ScoresOf(changed)
	floors, err := n.Floors(m, s.Level)
	if err != nil {
		return levelResult{}, err
	}
	var novel []bool
	if n.NormalsVary() {
		novel = s.Novel(n.Comparison().Normals())
	}
	anyNovel := slices.Contains(novel, true)
	for i, changed := range changed {
		quiet := novel != nil && !novel[i] && (anyNovel || m.Freq != fca.NoFreq || floors[i] == 0 || scores[i] < NoiseFactor*floors[i])
		if !changed || quiet {
			scores[i] = 0
		}
	}
	res := levelResult{suspects: suspects(s.IDs, scores, n.ProgressChange(s.Level), floors, share), clusters: Clusters(s)}
	// The objects of one equivalence class (the same attribute set) are at
	// distance 0 from one another and merge first whatever the linkage:
	// the classes are clustered, weighted by their sizes, and the cuts
	// given back to the objects (cluster.LinkageWeighted), so that
	// thousands of traces in a few classes cluster in the time of a few.
	dn, wn, cn, repsN := classDistances(s, compare.Normal)
	df, wf, cf, repsF := classDistances(s, compare.Faulty)
	res.represented = max(repsN, repsF)
	for _, link := range links {
		zn, err := cluster.LinkageWeighted(dn, wn, link)
		if err != nil {
			return res, err
		}
		zf, err := cluster.LinkageWeighted(df, wf, link)
		if err != nil {
			return res, err
		}
		b, err := cluster.BScoreClasses(zn, zf, cn, cf, res.clusters)
		if err != nil {
			return res, err
		}
		res.bscores = append(res.bscores, b)
	}
	return res, nil
}

// Clusters returns the k of the B-score B_k for s: the number of distinct
// attribute sets in the normal run — the equivalence classes the run
// naturally falls into — clipped to [2, n−1] so that the cut neither lumps
// everything together nor splits every object apart (either makes B_k
// meaningless). With fewer than three objects it is n.
func Clusters(s *compare.Similarity) int {
	n := len(s.IDs)
	if n < 3 {
		return max(n, 1)
	}
	return min(max(s.Ctx[compare.Normal].NumClasses(), 2), n-1)
}

// singleThreaded reports whether every process has exactly one thread in
// every run.
func singleThreaded(c *compare.Comparison) bool {
	for i, id := range c.IDs {
		if id.Thread != 0 || (i > 0 && c.IDs[i-1].Proc == id.Proc) {
			return false
		}
	}
	return true
}

// sameMasks drops the filters whose masks keep no function named in the
// runs, and those that keep exactly the functions of an earlier filter's
// mask, over every name of both runs: they would give the same rows.
func sameMasks(c *compare.Comparison, fs []*filters.Filter) ([]*filters.Filter, []Dropped) {
	masks := make([]*filters.Mask, len(fs))
	for i, f := range fs {
		masks[i] = f.Compile(c.Symbols)
	}
	var out []*filters.Filter
	var kept []*filters.Mask
	var dropped []Dropped
	for i, m := range masks {
		if m.Kept() == 0 {
			dropped = append(dropped, Dropped{Filter: fs[i].Name()})
			continue
		}
		if j := slices.IndexFunc(kept, func(o *filters.Mask) bool { return sameMask(o, m) }); j >= 0 {
			dropped = append(dropped, Dropped{Filter: fs[i].Name(), SameAs: out[j].Name()})
			continue
		}
		out = append(out, fs[i])
		kept = append(kept, m)
	}
	return out, dropped
}

func sameMask(a, b *filters.Mask) bool {
	if a.Len() != b.Len() {
		return false
	}
	for s := range a.Len() {
		if a.Keep(trace.Symbol(s)) != b.Keep(trace.Symbol(s)) {
			return false
		}
	}
	return true
}

// pruneNLRs drops the filters (groups of nk results) that kept no call in
// either run, and those whose NLRs equal an earlier filter's in every trace
// of both runs.
func pruneNLRs(nlrs []*compare.NLR, nk int) ([]*compare.NLR, []Dropped) {
	var out []*compare.NLR
	var dropped []Dropped
	for i := 0; i < len(nlrs); i += nk {
		group := nlrs[i : i+nk]
		f := group[0].Filter.Name()
		if group[0].Total() == 0 {
			dropped = append(dropped, Dropped{Filter: f})
			continue
		}
		same := ""
		for j := 0; j < len(out) && same == ""; j += nk {
			if out[j].Same(group[0]) {
				same = out[j].Filter.Name()
			}
		}
		if same != "" {
			dropped = append(dropped, Dropped{Filter: f, SameAs: same})
			continue
		}
		out = append(out, group...)
	}
	return out, dropped
}

func idStrings(ids []trace.ID) []string {
	var out []string
	for _, id := range ids {
		out = append(out, id.String())
	}
	return out
}

// classDistances returns the condensed distance matrix 1 − JSM of run r's
// equivalence classes (objects with the same attribute set), the number of
// objects in each class, and each object's class. With more than
// compare.MaxClasses classes, the classes are as many representatives, each
// standing for the classes nearest to it (fca.JSM.Leaves), and
// reps is the number of classes they stand for (0 otherwise).
func classDistances(s *compare.Similarity, r int) (d []float64, w, class []int, reps int) {
	c := s.Ctx[r]
	l := s.JSM[r].Leaves(compare.MaxClasses, nil)
	class = make([]int, c.Len())
	for o := range class {
		class[o] = l.Of[c.Class(o)]
	}
	if k := c.NumClasses(); k > compare.MaxClasses {
		reps = k
	}
	return l.Dist, l.Weight, class, reps
}
