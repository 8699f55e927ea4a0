// Package hang tells who is to blame when a run hangs: where each trace
// ended (classes of traces by their end stack, as a call-prefix tree, the
// way STAT shows a hung job), how far each got (its progress, in the loops
// of its folded calls and, given a normal run, against that run), and the
// traces to look at first (suspects), each with its reason.
//
// In a hang every rank stops, and the ranks left waiting for the culprit
// stop in the most telling places (the one stuck in MPI_Waitall for a send
// that never came); the culprit itself may wait in a collective like
// everyone else. Where capture's MPI wrapper noted whom each blocked rank
// waited for (run.json), the point-to-point waits lead from rank to rank to
// the culprit: a rank that went on without what its peer waits for, or
// ranks that wait for each other (WaitFor). Given the normal run, the
// culprit is also the trace that did something its normal counterpart did
// not (it parted from it), where the others only stopped. Without either,
// the least-progressed traces and those that ended where no peer did are
// the suspects.
package hang

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/internal/plural"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// DefaultFilter is the calls progress and first differences are measured
// on: communication and synchronisation.
const DefaultFilter = "mpi+omp+omp.crit+omp.mutex"

// Options configure Analyze.
type Options struct {
	Filter *filters.Filter // nil: DefaultFilter
	K      int             // NLR window (0: 10)
}

// Report is the hang analysis of a run.
type Report struct {
	Run    string `json:"run"`
	Normal string `json:"normal,omitempty"`
	// Hung is false when every rank exited with status 0: then Ended says
	// so and nothing else is filled in.
	Hung  bool   `json:"hung"`
	Ended string `json:"ended"`
	// Filter is the calls Progress counts.
	Filter   string     `json:"filter"`
	Classes  *Node      `json:"classes"`
	Progress []Progress `json:"progress"`
	Suspects []Suspect  `json:"suspects"`
	// WaitFor is who waited for whom, when capture's MPI wrapper was in
	// the program (nil otherwise).
	WaitFor *WaitFor `json:"wait_for"`
	// Loops defines the loops Progress and Suspects name ("L0" → its
	// body's first calls).
	Loops map[string]string `json:"loops"`
	Notes []string          `json:"notes"`
}

// Progress is how far one trace got.
type Progress struct {
	Trace trace.ID `json:"trace"`
	// Calls counts its calls under the filter; Loops are the loops its
	// end is in, outermost first (in its own folded calls).
	Calls uint64          `json:"calls"`
	Loops []diffnlr.Place `json:"loops"`
	// With a normal run: NormalCalls counts the normal trace's calls, and
	// Reached how many of them the trace made before it parted from it or
	// stopped (Fraction = Reached / NormalCalls).
	NormalCalls uint64  `json:"normal_calls,omitempty"`
	Reached     uint64  `json:"reached,omitempty"`
	Fraction    float64 `json:"fraction,omitempty"`
	// End is the call stack the trace ended in, innermost last.
	End []string `json:"end"`
	// Where says it in words: "iteration 7 of L0, 42% of the normal run".
	Where string `json:"where"`
}

// Suspect is a trace to look at first, and why.
type Suspect struct {
	Trace  trace.ID `json:"trace"`
	Reason string   `json:"reason"`
}

// Runs are the run directories of the comparison that analyses the hung
// run: the normal run first, when given, then the hung one.
func Runs(hung string, normal ...string) []string {
	return append(slices.Clip(normal), hung)
}

// Analyze analyses the faulty run of c (c holds it alone, or a normal run
// and it, and perhaps further normal runs).
func Analyze(c *compare.Comparison, opt Options) (*Report, error) {
	if opt.Filter == nil || opt.Filter.Name() == DefaultFilter {
		// Of the default, what the runs recorded (capture --only).
		opt.Filter = filters.MustParse(DefaultFilter)
		if spec := c.Narrow(DefaultFilter); spec != "" {
			opt.Filter = filters.MustParse(spec)
		}
	}
	if opt.K == 0 {
		opt.K = 10
	}
	r := min(len(c.Runs)-1, compare.Faulty)
	run := c.Runs[r]
	rep := &Report{Run: run.Dir, Filter: opt.Filter.Name(), Progress: []Progress{}, Suspects: []Suspect{}, Loops: map[string]string{}, Notes: []string{}}
	if r > 0 {
		rep.Normal = c.Runs[0].Dir
	}
	hung, ended := howEnded(run.Manifest)
	rep.Hung, rep.Ended = hung, ended
	if !hung {
		return rep, nil
	}

	// Where each trace ended.
	var ids []trace.ID
	var idx []int
	for i, id := range c.IDs {
		if c.Has(r, i) {
			ids = append(ids, id)
			idx = append(idx, i)
		}
	}
	stacks := make([][]string, len(ids))
	for j, id := range ids {
		st, err := endStack(c, r, id)
		if err != nil {
			return nil, err
		}
		stacks[j] = st
	}
	rep.Classes = buildTree(ids, stacks)

	// How far each got.
	nls, err := c.Recognize([]*filters.Filter{opt.Filter}, []int{opt.K})
	if err != nil {
		return nil, err
	}
	n := nls[0]
	// The first differences of the traces that parted from their normal
	// run (a trace that only stops short of it did not); only they are
	// kept, for a million-trace run has as many.
	firsts := map[trace.ID]diffnlr.First{}
	used := map[int32]bool{} // the loops the words name
	for j, id := range ids {
		i := idx[j]
		seq := n.Seq(r, i)
		p := Progress{Trace: id, Calls: n.Table.Calls(seq), Loops: endPlaces(n.Table, seq), End: stacks[j]}
		if p.Loops == nil {
			p.Loops = []diffnlr.Place{}
		}
		if r > 0 && c.Has(0, i) {
			ns := n.Seq(0, i)
			p.NormalCalls = n.Table.Calls(ns)
			p.Reached = min(p.Calls, p.NormalCalls)
			if f, ok := diffnlr.FirstDifference(n.Table, ns, seq); ok {
				p.Reached = f.Common
				for _, l := range f.Loops {
					used[l.Loop] = true
				}
				if !(f.FaultyEnded && len(f.Faulty) == 0) {
					firsts[id] = f
				}
			}
			if p.NormalCalls > 0 {
				p.Fraction = float64(p.Reached) / float64(p.NormalCalls)
			}
		}
		p.Where = where(p, r > 0)
		rep.Progress = append(rep.Progress, p)
	}
	slices.SortStableFunc(rep.Progress, func(a, b Progress) int {
		if r > 0 && a.Fraction != b.Fraction {
			if a.Fraction < b.Fraction {
				return -1
			}
			return 1
		}
		if a.Calls != b.Calls {
			if a.Calls < b.Calls {
				return -1
			}
			return 1
		}
		return a.Trace.Compare(b.Trace)
	})

	// Who to look at first.
	name := func(s trace.Symbol) string { return c.Symbols.Label(s) }
	if r > 0 {
		var parted []Progress
		for _, p := range rep.Progress {
			if _, ok := firsts[p.Trace]; ok {
				parted = append(parted, p)
			}
		}
		for _, p := range parted {
			// Said as the diffNLR rank suggests says it (NLR.Explain), so
			// that the two never tell one change two ways.
			text := firsts[p.Trace].Text(name, nil)
			if i, ok := c.Index(p.Trace); ok {
				x, ok, _, err := n.Explain(i)
				if err != nil {
					return nil, err
				}
				if ok {
					text = x.Text
				}
			}
			rep.Suspects = append(rep.Suspects, Suspect{p.Trace, "parted from its normal run before it stopped: " + strings.TrimPrefix(text, "first difference: ") + " (" + p.Where + ")"})
		}
	}
	// Who waited for whom, where the run says: a rank that went on
	// without what another waits for is the best evidence there is; those
	// that parted from their normal run follow.
	fromWaits := false
	if rep.WaitFor = waitFor(run.Manifest); rep.WaitFor != nil {
		var keptUp func(int) bool
		if r > 0 {
			// A rank made every call its normal run makes before it
			// stopped when its trace only stops short of the normal one.
			keptUp = func(rank int) bool {
				for _, id := range ids {
					if id.Proc != rank {
						continue
					}
					i, ok := c.Index(id)
					if !ok || !c.Has(0, i) {
						return false
					}
					if _, ok := firsts[id]; ok {
						return false
					}
				}
				return true
			}
		}
		ws := rep.WaitFor.suspects(keptUp)
		fromWaits = len(ws) > 0
		// A rank both accounts name comes first (of two ends of a
		// deadlock, the one that did something its normal run did not),
		// with both reasons.
		both := map[int]bool{}
		for _, s := range rep.Suspects {
			i := slices.IndexFunc(ws, func(x Suspect) bool { return x.Trace.Proc == s.Trace.Proc })
			if i < 0 {
				ws = append(ws, s)
				continue
			}
			both[s.Trace.Proc] = true
			ws[i].Reason += "; and it " + s.Reason
		}
		slices.SortStableFunc(ws, func(a, b Suspect) int {
			switch {
			case both[a.Trace.Proc] == both[b.Trace.Proc]:
				return 0
			case both[a.Trace.Proc]:
				return -1
			}
			return 1
		})
		rep.Suspects = ws
	}
	if len(rep.Suspects) == 0 {
		rep.Suspects = fallbackSuspects(rep, r > 0)
		if r > 0 {
			newCallsFirst(c, r, rep.Suspects)
		}
	}
	// Define the loops the words name.
	for _, p := range rep.Progress {
		for _, l := range p.Loops {
			used[l.Loop] = true
		}
	}
	for id := range used {
		rep.Loops[fmt.Sprintf("L%d", id)] = body(n.Table, id, name)
	}
	if rep.WaitFor == nil {
		rep.Notes = append(rep.Notes, "who waits for whom is not known (capture records it for MPI programs, with its MPI wrapper; this run has none): the suspects come from where the traces stopped and how far they got")
	}
	if r > 0 && !fromWaits && len(rep.Suspects) > 0 && !strings.HasPrefix(rep.Suspects[0].Reason, "parted") {
		rep.Notes = append(rep.Notes, "no trace did anything its normal run did not before it stopped (under "+rep.Filter+"): the suspects are those that got least far, or ended where no peer did")
	}
	return rep, nil
}

// fallbackSuspects are, without a trace that parted from its normal run,
// the traces that got least far among their peers, and those that ended
// where no peer did. Peers are the traces whose end is in the same loop
// (the same body: in an SPMD program the ranks of one role, the odd ranks
// of an odd/even sort, say): iterations of different loops, or calls of
// ranks with different roles, do not compare.
func fallbackSuspects(rep *Report, withNormal bool) []Suspect {
	out := []Suspect{}
	if len(rep.Progress) == 0 {
		return out
	}
	key := func(p Progress) int32 {
		if len(p.Loops) == 0 {
			return -1
		}
		return p.Loops[0].Loop
	}
	behind := func(a, b Progress) bool { // a got less far than b
		if withNormal && a.Fraction != b.Fraction {
			return a.Fraction < b.Fraction
		}
		if len(a.Loops) > 0 && len(b.Loops) > 0 && a.Loops[0].Iteration != b.Loops[0].Iteration {
			return a.Loops[0].Iteration < b.Loops[0].Iteration
		}
		return a.Calls < b.Calls
	}
	groups := map[int32][]Progress{}
	var keys []int32
	for _, p := range rep.Progress {
		if withNormal && (idle(p) || p.NormalCalls > 0 && p.Fraction >= 1) {
			continue // nothing under the filter in either run, or it made every call of its normal run
		}
		k := key(p)
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], p)
	}
	seen := map[trace.ID]bool{}
	progress := map[trace.ID]Progress{}
	rankOf := map[trace.ID]int{}
	for i, p := range rep.Progress {
		progress[p.Trace] = p
		rankOf[p.Trace] = i
	}
	// Whether some trace did not make every call of its normal run.
	behindAny := false
	for _, p := range rep.Progress {
		behindAny = behindAny || withNormal && !idle(p) && p.NormalCalls > 0 && p.Fraction < 1
	}
	// A trace that ended where no peer did, first: where it stopped says
	// more than how far it got.
	leaves := rep.Classes.Leaves()
	if len(rep.Progress) >= 3 && len(leaves) > 1 {
		for _, l := range leaves {
			id := l.Traces[0]
			if l.Ended != 1 || len(l.Traces) != 1 || seen[id] {
				continue
			}
			// A trace that made every call of its normal run and then
			// stopped inside one (MPI_Finalize) waits for the others, as
			// any that finishes its work in a hang does; unless no other
			// trace is behind: then it is the one that did not return.
			if p := progress[id]; withNormal && (idle(p) || p.NormalCalls > 0 && p.Fraction >= 1 && (len(p.End) == 0 || behindAny)) {
				continue
			}
			seen[id] = true
			out = append(out, Suspect{id, "the only trace that ended in " + endPath(progress[id].End) + " (" + progress[id].Where + ")"})
		}
	}
	for _, k := range keys {
		g := groups[k]
		least, most := g[0], g[0]
		for _, p := range g[1:] {
			if behind(p, least) {
				least = p
			}
			if behind(most, p) {
				most = p
			}
		}
		if len(g) < 2 || !behind(least, most) {
			continue
		}
		peers := "its " + strconv.Itoa(len(g)-1) + plural.Word(len(g)-1, " peer", " peers")
		if k >= 0 {
			peers += fmt.Sprintf(" in L%d", k)
		}
		for _, p := range g {
			if !behind(p, least) && !behind(least, p) && !seen[p.Trace] {
				seen[p.Trace] = true
				out = append(out, Suspect{p.Trace, "got least far of " + peers + ": " + p.Where + " (the furthest: " + most.Where + "), stopped in " + last(p.End)})
			}
		}
	}
	// Least progressed first; given the normal run, a trace that ended
	// where no peer did (and had not finished) before those: a rank that
	// went ahead of its peers, past a collective it skipped, say, looks
	// more progressed than the ones it left waiting.
	lone := func(x Suspect) int {
		if withNormal && strings.HasPrefix(x.Reason, "the only trace") {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(out, func(a, b Suspect) int {
		if la, lb := lone(a), lone(b); la != lb {
			return la - lb
		}
		return rankOf[a.Trace] - rankOf[b.Trace]
	})
	if len(out) == 0 {
		// Every group at one point: the least-progressed trace overall
		// that did something under the filter.
		for _, p := range rep.Progress {
			if !withNormal || !idle(p) {
				out = append(out, Suspect{p.Trace, "got least far: " + p.Where + ", stopped in " + last(p.End)})
				break
			}
		}
	}
	return out
}

// newCallsFirst puts first, among the suspects that ended where no peer
// did, those that ended inside a call their normal run never makes (the
// thread of a lock-order deadlock that took the locks the other way), and
// says so: two threads each alone in its lock wait, the one on a path the
// program does not take is the one that changed, however far each got.
// Only the first few such suspects are looked at (each reads its normal
// trace).
func newCallsFirst(c *compare.Comparison, r int, sus []Suspect) {
	const most = 8
	isNew := map[trace.ID]bool{}
	looked := 0
	for k := range sus {
		if !strings.HasPrefix(sus[k].Reason, "the only trace") || looked == most {
			continue
		}
		looked++
		if call := newCall(c, r, sus[k].Trace); call != "" {
			sus[k].Reason += ", inside " + call + ", which its normal run never calls"
			isNew[sus[k].Trace] = true
		}
	}
	if len(isNew) == 0 {
		return
	}
	slices.SortStableFunc(sus, func(a, b Suspect) int {
		switch {
		case isNew[a.Trace] == isNew[b.Trace]:
			return 0
		case isNew[a.Trace]:
			return -1
		}
		return 1
	})
}

// newCall returns the innermost call of the stack trace id of run r
// ended in that its normal run never makes, named; "" when there is none
// or the normal trace is not at hand.
func newCall(c *compare.Comparison, r int, id trace.ID) string {
	i, ok := c.Index(id)
	if !ok || !c.Has(compare.Normal, i) {
		return ""
	}
	st, err := c.EndStack(r, id)
	if err != nil || len(st) == 0 {
		return ""
	}
	events, err := c.Events(compare.Normal, id)
	if err != nil {
		return ""
	}
	made := map[trace.Symbol]bool{}
	for _, s := range events {
		made[s] = true
	}
	for k := len(st) - 1; k >= 0; k-- {
		if !made[st[k]] {
			n := c.Runs[r].Symbols.Name(st[k])
			return n.Qualify(n.Brief())
		}
	}
	return ""
}

// idle says a trace made no call under the filter in either run: nothing
// says it stopped early (the main thread of a program whose threads do the
// work, waiting in pthread_join).
func idle(p Progress) bool { return p.Calls == 0 && p.NormalCalls == 0 }

// endPath names where a trace ended by its innermost two calls: enough to
// tell "update_ba > pthread_mutex_lock" from "update_ab >
// pthread_mutex_lock".
func endPath(st []string) string {
	if len(st) < 2 {
		return last(st)
	}
	return st[len(st)-2] + " > " + st[len(st)-1]
}

func last(st []string) string {
	if len(st) == 0 {
		return "no call (it had returned from all)"
	}
	return st[len(st)-1]
}

// where words a trace's progress.
func where(p Progress, withNormal bool) string {
	var parts []string
	for _, l := range p.Loops {
		parts = append(parts, fmt.Sprintf("iteration %d of L%d", l.Iteration, l.Loop))
	}
	s := fmt.Sprintf("%d %s", p.Calls, plural.Word(int(min(p.Calls, 2)), "call", "calls"))
	if len(parts) > 0 {
		s = strings.Join(parts, " > ") + ", " + s
	}
	if withNormal && p.NormalCalls > 0 {
		s += fmt.Sprintf(", %.0f%% of the normal run", 100*p.Fraction)
	}
	return s
}

// howEnded reads the manifest: hung is false when every rank exited with
// status 0.
func howEnded(m *decode.Manifest) (hung bool, ended string) {
	if m == nil || len(m.Ranks) == 0 {
		return true, "the run does not say how its ranks ended (no run.json): analysed as a hang"
	}
	byStatus := map[string][]int{}
	var order []string
	for _, r := range m.Ranks {
		st := r.Ended()
		if byStatus[st] == nil {
			order = append(order, st)
		}
		byStatus[st] = append(byStatus[st], r.Rank)
	}
	if len(order) == 1 && order[0] == "exited 0" {
		return false, "no hang: every rank exited normally"
	}
	var parts []string
	for _, st := range order {
		rs := byStatus[st]
		slices.Sort(rs)
		parts = append(parts, fmt.Sprintf("%s [%s]", st, trace.Ranges(rs)))
	}
	return true, strings.Join(parts, "; ")
}

// endStack is the call stack trace id of run r ended in, outermost first,
// each frame by its short name.
func endStack(c *compare.Comparison, r int, id trace.ID) ([]string, error) {
	st, err := c.EndStack(r, id)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(st))
	for i, s := range st {
		n := c.Runs[r].Symbols.Name(s)
		out[i] = n.Qualify(n.Brief())
	}
	return out, nil
}

// endPlaces finds the loops the end of a folded trace is in: a trace that
// stopped inside an iteration ends with the first elements of the body of
// the loop before them (L0^7 followed by the start of L0's body is in
// iteration 8 of L0; when that start ends in fewer iterations of an inner
// loop than the body has, the inner loop's iteration follows).
func endPlaces(t *nlr.Table, s nlr.Sequence) []diffnlr.Place {
	j := -1
	for k := len(s) - 1; k >= 0; k-- {
		if s[k].IsLoop() {
			j = k
			break
		}
	}
	if j < 0 {
		return nil
	}
	lp, tail := s[j], s[j+1:]
	body := t.Body(lp.Loop)
	if len(tail) == 0 {
		// It stopped right after an iteration (or inside one whose start
		// folded into the loop): the last one.
		return []diffnlr.Place{{Loop: lp.Loop, Iteration: lp.Count, Count: lp.Count}}
	}
	if len(tail) >= len(body) || !slices.Equal(tail[:len(tail)-1], body[:len(tail)-1]) {
		return nil
	}
	lastT, lastB := tail[len(tail)-1], body[len(tail)-1]
	next := diffnlr.Place{Loop: lp.Loop, Iteration: lp.Count + 1, Count: lp.Count + 1}
	switch {
	case lastT == lastB:
		return []diffnlr.Place{next}
	case lastT.IsLoop() && lastT.Loop == lastB.Loop && lastT.Count < lastB.Count:
		return []diffnlr.Place{next, {Loop: lastT.Loop, Iteration: lastT.Count + 1, Count: lastB.Count}}
	}
	return nil
}

// body words a loop's body: its first calls, "[MPI_Irecv, MPI_Isend, L2^4, …]".
func body(t *nlr.Table, id int32, name func(trace.Symbol) string) string {
	const most = 6
	var parts []string
	for i, e := range t.Body(id) {
		if i == most {
			parts = append(parts, "…")
			break
		}
		if e.IsLoop() {
			parts = append(parts, fmt.Sprintf("L%d^%d", e.Loop, e.Count))
		} else {
			parts = append(parts, name(e.Sym))
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
