package diffnlr

import (
	"fmt"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/internal/plural"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// Change is what an Explanation says happened where two traces part.
type Change uint8

// The kinds of change.
const (
	// Unchanged: the traces make the same calls.
	Unchanged Change = iota
	// Missing: calls the normal run makes there are not in the faulty one.
	Missing
	// Added: the faulty run makes calls there that the normal one does not.
	Added
	// Reordered: the same calls, made in another order (a block of calls
	// moved a little later or earlier).
	Reordered
	// CountChanged: a loop ran a different number of times.
	CountChanged
	// EndsHere: the faulty trace ends inside a call the normal run
	// returns from (a hang, a crash).
	EndsHere
	// NormalEnds: the normal trace ends inside a call the faulty run goes
	// on in.
	NormalEnds
	// Replaced: other calls in place of the normal run's.
	Replaced
)

func (c Change) String() string {
	return [...]string{"unchanged", "missing", "added", "reordered", "count changed", "ends here", "normal ends", "replaced"}[c]
}

// LoopPlace is one loop around the place two traces part, found in the
// normal trace's call tree: a repeat among the callees of one call, of
// any body length. Body is the first call of its body and Period the
// calls in the body; Iteration (from 1) is the one the place is in.
type LoopPlace struct {
	Body      trace.Symbol `json:"-"`
	Period    int          `json:"period"`
	Iteration int          `json:"iteration"`
	Count     int          `json:"count"`
	// Between is set where calls were added between two iterations: the
	// place is after iteration Iteration-1 and before Iteration.
	Between bool `json:"between,omitempty"`
	// Told is set when the sentence does not say the loop, because
	// something else says where: the ordinal of the call (StackNth) where
	// the loop repeats a group of calls of the function it counts, such as
	// a time step's steps in groups of four; or a loop around the place
	// that is Between two of its iterations, for the loops inside its body,
	// which the added calls come before.
	Told bool `json:"-"`
}

// Explanation is where and how two runs of a thread first part, read on
// their whole call trees (every call, not only those a view's filter
// keeps): the kind of change, the outermost calls that differ on each
// side, their callers and the loops around them. Text words it.
type Explanation struct {
	// First is the view's own first difference (its NLRs): where the
	// explanation was anchored.
	First First `json:"-"`
	// Whole is false when the traces' events were not at hand (a run read
	// from its summary): the explanation is then First's alone.
	Whole bool   `json:"whole"`
	Kind  Change `json:"-"`
	// Normal and Faulty are the outermost calls only one run makes there,
	// siblings in order (at most maxStretch each; NormalMore and
	// FaultyMore count the rest). For Reordered they are the stretch in
	// each run's order; for EndsHere, Normal holds the call the faulty
	// trace ends in; for CountChanged, the loop body's first call.
	Normal     []trace.Symbol `json:"-"`
	Faulty     []trace.Symbol `json:"-"`
	NormalMore int            `json:"normal_more"`
	FaultyMore int            `json:"faulty_more"`
	// NormalCalls and FaultyCalls count the calls of those subtrees, the
	// listed calls' own included; NormalKept and FaultyKept those of them
	// the view's filter keeps.
	NormalCalls int `json:"normal_calls"`
	FaultyCalls int `json:"faulty_calls"`
	NormalKept  int `json:"normal_kept"`
	FaultyKept  int `json:"faulty_kept"`
	// Stack holds the callers of the calls that differ, outermost first.
	Stack []trace.Symbol `json:"-"`
	// StackNth says, for each caller of Stack, which of the calls of its
	// function among its siblings it is, when it is one of several and no
	// loop there numbers it (a time step whose steps differ every fourth
	// one, for output: the loops there are of groups of steps); zero
	// otherwise. Parallel to Stack.
	StackNth []Nth `json:"-"`
	// Loops are the loops around the place, outermost first, at every
	// level of the call stack.
	Loops []LoopPlace `json:"loops"`
	// Ordinal and Of, when no loop among its siblings holds the call that
	// differs and it is one of several calls of its function there: it
	// is the Ordinal-th (from 1) of Of.
	Ordinal int `json:"ordinal,omitempty"`
	Of      int `json:"of,omitempty"`
	// Loop is, for CountChanged, the loop whose count changed (after
	// Loops): Iteration is the first iteration only one run has, Count
	// that run's count; Counts are its count in the normal and the faulty
	// run.
	Loop   *LoopPlace `json:"loop,omitempty"`
	Counts [2]int     `json:"counts"`
	// OrderVaries and Unordered are set by whoever compared further normal
	// runs (First.OrderVaries, First.Unordered).
	OrderVaries bool              `json:"order_varies,omitempty"`
	Unordered   [2][]trace.Symbol `json:"-"`
	// Filter names the view's filter, for the sentence to say how many of
	// the calls that differ it keeps ("" or "all": not said).
	Filter string `json:"-"`

	// Cut is set, for Added, when the faulty trace ends inside the last
	// of the calls it added (it hung there); Normal then lists the calls
	// the normal run makes there instead, if any.
	Cut bool `json:"cut,omitempty"`
	// Holder identifies the call the change was found in: the subtree
	// hashes of the normal and the faulty call of its function that hold
	// it (zero when the change is among the thread's outermost calls).
	// Two traces whose changes have the same Holder changed alike, all the
	// way down (Whole.Alike).
	Holder [2]uint64 `json:"-"`

	// pending is set while the call an EndsHere names is not yet placed
	// among its siblings (the level above it does that).
	pending bool
}

// Whole is what an explanation reads of the two traces themselves.
type Whole struct {
	// Normal and Faulty are the traces' events (calls and returns); nil
	// when they are not at hand.
	Normal, Faulty []trace.Symbol
	// Keep is the view's filter (nil: every call); Poll, if set, the
	// polling calls the view counts once a stretch (nlr's QuietPolling).
	// Together they find, in each trace, the calls the view counted.
	Keep, Poll func(trace.Symbol) bool
	// Filter names the view's filter.
	Filter string
	// Alike, when set, maps the subtree hash of a faulty call to that of
	// the normal call it stands for (Explanation.Holder): a change the
	// caller set aside, such as the faulty run's own argument parsing,
	// which every process shows alike. The explanation reads such a
	// faulty call as the normal one and goes on to the next change.
	Alike map[uint64]uint64
}

// Explain returns where the traces whose NLRs under a view are normal and
// faulty (loops in t) first part, and how, read on their whole call trees
// (w); ok is false when they make the same calls under the view.
func Explain(t *nlr.Table, normal, faulty nlr.Sequence, w Whole) (e Explanation, ok bool) {
	f, ok := FirstDifference(t, normal, faulty)
	if !ok {
		return EndsInside(f, w, f.Common, f.Common)
	}
	return ExplainFirst(f, w, f.Common, f.Common), true
}

// EndsInside explains traces that make the same calls under the view (f,
// from FirstDifference) but where one ends inside a call the other returns
// from: a run that hung in its last call (MPI_Finalize, say). ok is false
// when the whole traces show no such ending, or are not at hand.
func EndsInside(f First, w Whole, normalCommon, faultyCommon uint64) (Explanation, bool) {
	if w.Normal == nil || w.Faulty == nil || len(w.Normal) == len(w.Faulty) && slices.Equal(w.Normal, w.Faulty) {
		return Explanation{}, false
	}
	e := ExplainFirst(f, w, normalCommon, faultyCommon)
	if !e.Whole || e.Kind != EndsHere && e.Kind != NormalEnds {
		return Explanation{}, false
	}
	return e, true
}

// window is how many callees after their common stretch an edit script is
// made of, at each level.
const explainWindow = 4096

// maxMove is the longest stretch of calls a block may move across to be
// read as the same calls in another order.
const maxMove = 16

// ExplainFirst explains the view's first difference f on the whole traces.
// normalCommon and faultyCommon count the calls each trace makes, under
// the view, before the place f names (f.Common, unless the normal
// sequence was aligned to the faulty one).
//
// The place is found on the call trees: the last call both traces make
// under the view before they part is the anchor; from the root down along
// the calls that hold it, each level's callees are compared from the
// anchor's on (a callee stands for its whole subtree), so that whatever
// the filter hid before the anchor is passed over. The first change of a
// minimal edit script decides: a call replaced by a call of the same
// function is entered; otherwise the change is named at that level, by
// its outermost calls.
func ExplainFirst(f First, w Whole, normalCommon, faultyCommon uint64) Explanation {
	e := Explanation{First: f, Filter: w.Filter, OrderVaries: f.OrderVaries, Unordered: f.Unordered}
	if w.Normal == nil || w.Faulty == nil {
		return fromFirst(e)
	}
	if normalCommon == faultyCommon {
		// The view's NLRs may place the parting a little late (a loop
		// one iteration longer, read where the loops end): the calls in
		// common, counted one by one, bound it.
		normalCommon = min(normalCommon, commonUnits(w.Normal, w.Faulty, w.Keep, w.Poll))
		faultyCommon = normalCommon
	}
	x := &explainer{w: w, aligned: normalCommon != faultyCommon}
	x.path[0] = x.anchor(w.Normal, normalCommon)
	x.path[1] = x.anchor(w.Faulty, faultyCommon)
	r, ok := x.level(rootCall(w.Normal), rootCall(w.Faulty), 0, true)
	if !ok {
		// The view saw a difference the call trees do not show (a
		// polling count, say): say what the view saw.
		return fromFirst(e)
	}
	r.First, r.Whole, r.Filter, r.OrderVaries, r.Unordered = f, true, w.Filter, f.OrderVaries, f.Unordered
	return r
}

// fromFirst fills an explanation from the view's first difference alone.
func fromFirst(e Explanation) Explanation {
	f := e.First
	switch {
	case f.Reordered:
		e.Kind, e.Normal, e.Faulty = Reordered, f.NormalOrder, f.FaultyOrder
	case f.FaultyEnded && len(f.Normal) > 0:
		e.Kind, e.Normal, e.NormalMore = EndsHere, f.Normal, f.NormalMore
	case f.NormalEnded && len(f.Faulty) > 0:
		e.Kind, e.Faulty, e.FaultyMore = NormalEnds, f.Faulty, f.FaultyMore
	case len(f.Faulty) == 0 && len(f.Normal) > 0:
		e.Kind, e.Normal, e.NormalMore = Missing, f.Normal, f.NormalMore
	case len(f.Normal) == 0 && len(f.Faulty) > 0:
		e.Kind, e.Faulty, e.FaultyMore = Added, f.Faulty, f.FaultyMore
	default:
		e.Kind = Replaced
		e.Normal, e.NormalMore, e.Faulty, e.FaultyMore = f.Normal, f.NormalMore, f.Faulty, f.FaultyMore
	}
	return e
}

type explainer struct {
	w Whole
	// path[r] holds the start events of the calls that hold the anchor in
	// run r (normal, faulty), outermost first, the anchor's own last; nil
	// when there is no anchor (the runs part at their first call).
	path [2][]int
	// aligned says the view's place was found with the runs aligned
	// (a run-wide change set aside): what lies before it was passed over
	// on purpose.
	aligned bool
}

// anchor returns the calls that hold the last of the first common calls
// of a trace under the view.
func (x *explainer) anchor(events []trace.Symbol, common uint64) []int {
	if common == 0 {
		return nil
	}
	a := keptCall(events, x.w.Keep, x.w.Poll, common-1)
	if a < 0 {
		return nil
	}
	return openAt(events, a)
}

// keptNone reports whether the calls cs keep none of the calls a view's
// filter keeps, in them or below.
func keptNone(cs []call) bool {
	for _, c := range cs {
		if c.kept > 0 {
			return false
		}
	}
	return true
}

func hashes(cs []call) []uint64 {
	h := make([]uint64, len(cs))
	for i, c := range cs {
		h[i] = c.hash
	}
	return h
}

// level explains how the callees of pn (normal) and pf (faulty), two
// calls of one function, part, or reports that they do not (from the
// anchor on, when anchored: the anchor is inside them, at depth).
func (x *explainer) level(pn, pf call, depth int, anchored bool) (Explanation, bool) {
	from, to := pn.inside()
	kn := callees(x.w.Normal, from, to, x.w.Keep)
	from, to = pf.inside()
	kf := callees(x.w.Faulty, from, to, x.w.Keep)
	an, af := 0, 0
	hidden := false // pass over changes of calls the filter keeps none of
	if anchored && depth < len(x.path[0]) && depth < len(x.path[1]) {
		an = slices.IndexFunc(kn, func(c call) bool { return c.start == x.path[0][depth] })
		af = slices.IndexFunc(kf, func(c call) bool { return c.start == x.path[1][depth] })
		if an < 0 || af < 0 || kn[an].sym != kf[af].sym {
			// The anchors lie in calls of different functions: the
			// view, counting only the calls its filter keeps, read the
			// change later than it is (one of two alike parallel
			// regions missing reads as the last one missing). Read from
			// the start, passing over the changes the view cannot see.
			an, af = 0, 0
			anchored = false
			hidden = true
		}
	} else {
		anchored = false
	}
	hn, hf := hashes(kn), hashes(kf)
	for j, h := range hf {
		if a, ok := x.w.Alike[h]; ok {
			hf[j] = a
		}
	}
	if anchored && !x.aligned && x.partsBefore(kn, kf, hn, hf, an, af) {
		// The view read the change later than it is: a loop one
		// iteration short among polling calls it counts once a stretch
		// reads, under the view, as short at its end. Read from the start.
		an, af = 0, 0
		anchored = false
		hidden = true
	}
	// The common stretch from the anchors on, then an edit script of a
	// window after it.
	p := 0
	for an+p < len(hn) && af+p < len(hf) && hn[an+p] == hf[af+p] {
		p++
	}
	a0, b0 := an+p, af+p
	hunks := editHunks(hn[a0:min(len(hn), a0+explainWindow)], hf[b0:min(len(hf), b0+explainWindow)],
		a0+explainWindow < len(hn), b0+explainWindow < len(hf))
	for k := range hunks {
		hunks[k].A += a0
		hunks[k].B += b0
	}
	for k := 0; k < len(hunks); k++ {
		substitute(hunks[k:], kn, kf, hn, hf)
		h := hunks[k]
		i0, j0 := h.A, h.B
		if h.Del == 0 && h.Ins > 0 && pf.open && i0 < len(kn) && kn[i0].sym == kf[j0].sym && hn[i0] != hf[j0] {
			// A call the faulty run made otherwise, in the call it hung
			// in: the edit script, the faulty run being the shorter,
			// reads it as added and the normal run's as missing with the
			// calls the faulty run never made. Read inside it first.
			if r, ok := x.level(kn[i0], kf[j0], depth+1, false); ok {
				held(&r, hn[i0], hf[j0])
				x.around(&r, kn, hn, i0, kn[i0].sym)
				return r, true
			}
		}
		switch {
		case h.Del == 0 && h.Ins == 0:
			continue
		case hidden && x.invisible(x.w.Normal, kn[i0:i0+h.Del], x.w.Faulty, kf[j0:j0+h.Ins]):
			// Arguments parsed for a bug's flag, say: not what the
			// view saw.
			continue
		case h.Del > 0 && h.Ins > 0 && kn[i0].sym == kf[j0].sym:
			// The same function with other calls inside: the change is in
			// there. Below the anchor's own call nothing is passed over.
			deeper := anchored && i0 == an && j0 == af && depth+1 < len(x.path[0]) && depth+1 < len(x.path[1])
			r, ok := x.level(kn[i0], kf[j0], depth+1, deeper)
			if ok {
				held(&r, hn[i0], hf[j0])
				x.around(&r, kn, hn, i0, kn[i0].sym)
				return r, true
			}
			// Nothing differs after the anchor in there: the pair counts
			// as common, and the rest of the change is read on.
			if h.Del > 1 || h.Ins > 1 {
				hunks[k] = hunk{A: i0 + 1, Del: h.Del - 1, B: j0 + 1, Ins: h.Ins - 1}
				k--
			}
			continue
		case h.Ins == 0 && j0 == len(kf) && pf.open:
			// The faulty trace ends inside pf: named by the caller.
			return Explanation{Kind: EndsHere, Normal: []trace.Symbol{pf.sym}, pending: true}, true
		case h.Del == 0 && i0 == len(kn) && pn.open:
			r := Explanation{Kind: NormalEnds}
			x.side(&r, kf[j0:j0+h.Ins], false)
			return r, true
		}
		r := x.change(kn, kf, hn, hf, hunks[k:])
		return r, true
	}
	if len(hunks) == 0 && pf.open && !pn.open {
		return Explanation{Kind: EndsHere, Normal: []trace.Symbol{pf.sym}, pending: true}, true
	}
	if len(hunks) == 0 && pn.open && !pf.open {
		return Explanation{Kind: NormalEnds}, true
	}
	return Explanation{}, false
}

// held sets r's Holder, the innermost pair of calls that hold the change,
// unless a deeper level set it.
func held(r *Explanation, normal, faulty uint64) {
	if r.Holder == ([2]uint64{}) {
		r.Holder = [2]uint64{normal, faulty}
	}
}

// partsBefore reports whether the callees kn and kf (hashes hn, hf) part,
// before the anchors an and af, in calls the view counts: a change there
// that the view, had it read it there, would have seen. Changes of calls
// the filter hides, and of how often a polling call repeats, are not.
func (x *explainer) partsBefore(kn, kf []call, hn, hf []uint64, an, af int) bool {
	q := 0
	for q < an && q < af && hn[q] == hf[q] {
		q++
	}
	if q == an && q == af {
		return false
	}
	hs := editHunks(hn[q:min(len(hn), q+explainWindow)], hf[q:min(len(hf), q+explainWindow)],
		q+explainWindow < len(hn), q+explainWindow < len(hf))
	for _, h := range hs {
		i0, j0 := h.A+q, h.B+q
		if i0 >= an && j0 >= af {
			return false
		}
		if h.Del == 0 && h.Ins == 0 {
			continue
		}
		// Only what lies before the anchors: the change at the anchor is
		// the view's.
		if !x.invisible(x.w.Normal, kn[i0:max(i0, min(i0+h.Del, an))], x.w.Faulty, kf[j0:max(j0, min(j0+h.Ins, af))]) {
			return true
		}
	}
	return false
}

// invisible reports whether the view cannot tell the calls a (of the
// normal run's events) from b (of the faulty run's): its filter keeps
// none of them, or it counts the same calls in both (they differ in calls
// it hides, or in how often a polling call repeats).
func (x *explainer) invisible(normal []trace.Symbol, a []call, faulty []trace.Symbol, b []call) bool {
	if x.w.Keep != nil && keptNone(a) && keptNone(b) {
		return true
	}
	return slices.Equal(x.counted(normal, a), x.counted(faulty, b))
}

// maxCounted bounds how many calls counted lists.
const maxCounted = 1 << 16

// counted returns the functions of the calls a view counts in the calls
// cs (neighbours in events), subtrees and all, as the view counts them: a
// stretch of polling calls once each; at most maxCounted of them.
func (x *explainer) counted(events []trace.Symbol, cs []call) []trace.Symbol {
	if len(cs) == 0 {
		return nil
	}
	end := min(len(events), cs[len(cs)-1].end+1)
	u := units{events: events[cs[0].start:end], keep: x.w.Keep, poll: x.w.Poll}
	var out []trace.Symbol
	for at := u.next(); at >= 0 && len(out) < maxCounted; at = u.next() {
		out = append(out, u.events[at])
	}
	return out
}

// substitute rewrites the first of hs, when it and the next are k calls
// inserted and, a little later, k calls deleted across a stretch that
// repeats every k calls (or deleted, then inserted), as the same calls
// changed in place: k of a run of calls replaced by calls of the same
// functions. Both scripts are as short; the change in place is the one
// that happened (a time step whose inside changed, not a new time step
// and one fewer at the end).
func substitute(hs []hunk, kn, kf []call, hn, hf []uint64) {
	if len(hs) < 2 {
		return
	}
	h, g := hs[0], hs[1]
	periodic := func(s []uint64, k int) bool {
		for i := k; i < len(s); i++ {
			if s[i] != s[i-k] {
				return false
			}
		}
		return true
	}
	sameFuncs := func(k int) bool {
		for t := range k {
			if kn[h.A+t].sym != kf[h.B+t].sym {
				return false
			}
		}
		return true
	}
	switch {
	case h.Del == 0 && g.Ins == 0 && g.Del == h.Ins && g.A+g.Del <= len(hn) && h.A+h.Ins <= len(kn):
		k := h.Ins
		if !periodic(hn[h.A:g.A+k], k) || !sameFuncs(k) {
			return
		}
	case h.Ins == 0 && g.Del == 0 && g.Ins == h.Del && g.B+g.Ins <= len(hf) && h.B+h.Del <= len(kf):
		k := h.Del
		if !periodic(hf[h.B:g.B+k], k) || !sameFuncs(k) {
			return
		}
	default:
		return
	}
	k := h.Del + h.Ins
	hs[0] = hunk{A: h.A, Del: k, B: h.B, Ins: k}
	// The calls in between now match one later (or earlier); the second
	// hunk is spent.
	hs[1] = hunk{A: g.A + g.Del, B: g.B + g.Ins}
}

// around completes an explanation found inside callee i of a level (sym
// its function) with what the level adds: the callee's function joins
// the call stack (unless the explanation names that very call: the trace
// ends in it), and the loops around it come before those inside.
func (x *explainer) around(r *Explanation, kn []call, hn []uint64, i int, sym trace.Symbol) {
	loops := x.loopsAt(kn, hn, i)
	r.Loops = append(loops, r.Loops...)
	if r.pending {
		// This level holds the call the trace ends in: its loops are
		// around it, and its ordinal is among these siblings.
		r.pending = false
		if len(loops) == 0 {
			r.Ordinal, r.Of = ordinal(kn, i)
		}
		return
	}
	r.Stack = append([]trace.Symbol{sym}, r.Stack...)
	var at Nth
	if n, of := ordinal(kn, i); of >= 2 && !(len(loops) == 1 && loops[0].Period == 1 && loops[0].Iteration == n && loops[0].Count == of) {
		at = Nth{N: n, Of: of}
		// Loops over groups of these calls: the ordinal says where.
		for j := range loops {
			if loops[j].Body == sym {
				r.Loops[j].Told = true
			}
		}
	}
	r.StackNth = append([]Nth{at}, r.StackNth...)
}

// Nth is the N-th (from 1) of Of calls; zero when not said.
type Nth struct {
	N  int `json:"n"`
	Of int `json:"of"`
}

// loopsAt returns the loops around callee i of kn.
func (x *explainer) loopsAt(kn []call, hn []uint64, i int) []LoopPlace {
	if i >= len(kn) {
		return nil
	}
	reps, iters := loopsAround(hn, i)
	out := make([]LoopPlace, len(reps))
	for j, r := range reps {
		out[j] = LoopPlace{Body: kn[r.First].sym, Period: r.Period, Iteration: iters[j], Count: r.Count}
	}
	return out
}

// ordinal returns which of the calls of callee i's function among kn it
// is, and how many there are, when there are several.
func ordinal(kn []call, i int) (nth, of int) {
	for j, c := range kn {
		if c.sym != kn[i].sym {
			continue
		}
		of++
		if j <= i {
			nth++
		}
	}
	if of < 2 {
		return 0, 0
	}
	return nth, of
}

// side lists the calls cs of one side of a change.
func (x *explainer) side(r *Explanation, cs []call, normal bool) {
	syms := make([]trace.Symbol, 0, min(len(cs), maxStretch))
	calls, kept := 0, 0
	for j, c := range cs {
		if j < maxStretch {
			syms = append(syms, c.sym)
		}
		calls += c.calls
		kept += c.kept
	}
	more := max(0, len(cs)-maxStretch)
	if normal {
		r.Normal, r.NormalMore, r.NormalCalls, r.NormalKept = syms, more, calls, kept
	} else {
		r.Faulty, r.FaultyMore, r.FaultyCalls, r.FaultyKept = syms, more, calls, kept
	}
}

// change names the first change hs[0] of a level whose callees are kn and
// kf (hashes hn, hf), the changes after it at hand to tell a move.
func (x *explainer) change(kn, kf []call, hn, hf []uint64, hs []hunk) Explanation {
	h := hs[0]
	i0, j0 := h.A, h.B
	var r Explanation
	if m, ok := moved(h, hn, hf); ok {
		if h.Ins == 0 {
			x.order(&r, kn[i0:i0+h.Del+m], kf[j0:j0+h.Del+m])
		} else {
			x.order(&r, kn[i0:i0+h.Ins+m], kf[j0:j0+h.Ins+m])
		}
		if !slices.Equal(r.Normal, r.Faulty) {
			r.Kind = Reordered
			r.Loops = x.loopsAt(kn, hn, i0)
			if len(r.Loops) == 0 {
				r.Ordinal, r.Of = ordinal(kn, i0)
			}
			return r
		}
		r = Explanation{}
	}
	whole, tried := x.wholeIterations(&r, kn, hn, hf, h)
	if whole || x.coalescedCount(&r, kn, hn, hf, hs) {
		return r
	}
	switch {
	case h.Ins == 0:
		if !tried && x.countChanged(&r, kn, hn, i0, h.Del, nil) {
			return r
		}
		r.Kind = Missing
		x.side(&r, kn[i0:i0+h.Del], true)
	case h.Del == 0 || cut(kf, j0+h.Ins):
		if h.Del == 0 && !tried && x.countChanged(&r, kn, hn, i0, h.Ins, hf[j0:j0+h.Ins]) {
			return r
		}
		// Calls only the faulty run makes; where it hung in the last of
		// them, the calls the normal run makes instead are the ones it
		// never reached.
		r.Kind = Added
		r.Cut = cut(kf, j0+h.Ins)
		x.side(&r, kf[j0:j0+h.Ins], false)
		if h.Del > 0 {
			x.side(&r, kn[i0:i0+h.Del], true)
		}
		r.Loops = x.loopsAt(kn, hn, i0)
		if g := gapAt(hn, i0); g >= 0 && g < len(r.Loops) {
			// Added between two iterations of a loop: after one, before
			// the next; the loops inside its body come after the gap.
			r.Loops[g].Between = true
			for k := g + 1; k < len(r.Loops); k++ {
				r.Loops[k].Told = true
			}
		}
		if len(r.Loops) == 0 {
			r.Ordinal, r.Of = ordinal(kf, j0)
		}
		return r
	default:
		r.Kind = Replaced
		x.side(&r, kn[i0:i0+h.Del], true)
		x.side(&r, kf[j0:j0+h.Ins], false)
	}
	r.Loops = x.loopsAt(kn, hn, i0)
	if len(r.Loops) == 0 {
		r.Ordinal, r.Of = ordinal(kn, i0)
	}
	return r
}

// cut reports whether the faulty callees kf end at end, inside the last
// of them: the trace stopped there.
func cut(kf []call, end int) bool {
	return end == len(kf) && end > 0 && kf[end-1].open
}

// moved reports whether the first change h, k calls deleted (or
// inserted), is those calls moved later (earlier) across m others, at most
// maxMove: the calls that follow the block in one run precede it in the
// other, the runs are aligned again right after, and the caller makes as
// many calls in both (a move leaves as many calls; a call missing and the
// same call further on by chance do not, nor a run of calls one shorter
// before another one longer).
func moved(h hunk, hn, hf []uint64) (m int, ok bool) {
	a, b := hn[h.A:], hf[h.B:]
	k := h.Del
	if h.Del == 0 {
		a, b, k = b, a, h.Ins
	} else if h.Ins != 0 {
		return 0, false
	}
	// a begins with the block, which b has m calls later.
	for m = 1; m <= maxMove && k+m <= len(a) && k+m <= len(b); m++ {
		if !slices.Equal(a[:k], b[m:m+k]) || !slices.Equal(a[k:k+m], b[:m]) {
			continue
		}
		// As many calls left in both, and the runs aligned again right
		// after the stretch (a later iteration may be reordered too).
		if len(a) == len(b) && (len(a) == k+m || a[k+m] == b[k+m]) {
			return m, true
		}
	}
	return 0, false
}

// order sets the calls of a stretch in each run's order.
func (x *explainer) order(r *Explanation, normal, faulty []call) {
	x.side(r, normal, true)
	x.side(r, faulty, false)
}

// wholeIterations reports whether the runs, parting at hunk h, are the
// same but for one block of calls deleted from the normal run's calls (or
// inserted into them) there, which is whole iterations of a loop; if so the
// count changed, and r says so. The edit script alone may not tell: it
// places the calls it deletes where it likes in a stretch that repeats (a
// step of [compute, exchange] one iteration short can read as an exchange
// missing here and a compute missing thousands of calls later, in the run
// of computes that follows). The block's length is what the two runs'
// lengths from h on differ by.
//
// tried says whether that block is the one h deletes or inserts, which
// is then tried already.
func (x *explainer) wholeIterations(r *Explanation, kn []call, hn, hf []uint64, h hunk) (ok, tried bool) {
	a0, b0 := h.A, h.B
	switch n := (len(hn) - a0) - (len(hf) - b0); {
	case n > 0 && slices.Equal(hn[a0+n:], hf[b0:]):
		return x.countChanged(r, kn, hn, a0, n, nil), h.Ins == 0 && h.Del == n
	case n < 0 && slices.Equal(hf[b0-n:], hn[a0:]):
		return x.countChanged(r, kn, hn, a0, -n, hf[b0:b0-n]), h.Del == 0 && h.Ins == -n
	}
	return false, false
}

// maxCoalesce bounds how many hunks of a script coalescedCount joins.
const maxCoalesce = 16

// coalescedCount reports whether the first hunks of hs, all deletions (or
// all insertions), are one block of calls deleted (inserted) where the
// first is, split by the edit script across a stretch that repeats (a
// time step of [compute, exchange, compute, compute] one iteration short
// reads as the exchange missing and, later, a compute missing): if that
// block is whole iterations of a loop, the count changed, and r says so.
func (x *explainer) coalescedCount(r *Explanation, kn []call, hn, hf []uint64, hs []hunk) bool {
	h := hs[0]
	if (h.Del == 0) == (h.Ins == 0) {
		return false
	}
	n := h.Del + h.Ins
	for m := 1; m < len(hs) && m < maxCoalesce; m++ {
		g := hs[m]
		if (g.Del == 0) != (h.Del == 0) || (g.Del == 0 && g.Ins == 0) {
			return false
		}
		n += g.Del + g.Ins
		if h.Del > 0 {
			// Normal [h.A+n, g.A+g.Del) against faulty [h.B, g.B).
			if g.A+g.Del-(h.A+n) != g.B-h.B || !slices.Equal(hn[h.A+n:g.A+g.Del], hf[h.B:g.B]) {
				continue
			}
			if x.countChanged(r, kn, hn, h.A, n, nil) {
				return true
			}
			continue
		}
		// Faulty [h.B+n, g.B+g.Ins) against normal [h.A, g.A).
		if g.B+g.Ins-(h.B+n) != g.A-h.A || !slices.Equal(hf[h.B+n:g.B+g.Ins], hn[h.A:g.A]) {
			continue
		}
		if x.countChanged(r, kn, hn, h.A, n, hf[h.B:h.B+n]) {
			return true
		}
	}
	return false
}

// countChanged reports whether n callees deleted at i (ins nil) or the
// callees ins inserted before i are whole iterations of a loop there, and
// if so says so in r: the loops around that loop, the loop with the first
// iteration only one run has, and both counts.
//
// A deletion (insertion) in a stretch that repeats every n calls leaves the
// same trace wherever in the stretch it is made, so the edit script's place
// is one of several: the place is slid to the first of them (where the
// runs part), then tried where the script put it, then at the others, until
// a loop holds the change as whole iterations.
func (x *explainer) countChanged(r *Explanation, kn []call, hn []uint64, i, n int, ins []uint64) bool {
	if n == 0 {
		return false
	}
	// The loops around a callee, found once however often asked.
	found := map[int]aroundLoops{}
	at := func(c int) aroundLoops {
		l, ok := found[c]
		if !ok {
			l.reps, l.iters = loopsAround(hn, c)
			found[c] = l
		}
		return l
	}
	// The places the change may slide to: the first, where the edit
	// script put it, the last.
	type place struct {
		i   int
		ins []uint64
	}
	var places []place
	if ins == nil {
		lo, hi := i, i
		for lo > 0 && hn[lo-1] == hn[lo-1+n] {
			lo--
		}
		for hi+n < len(hn) && hn[hi] == hn[hi+n] {
			hi++
		}
		places = append(places, place{lo, nil}, place{i, nil}, place{hi, nil})
	} else {
		// Slid left, the block is inserted before i-1, rotated.
		cur := slices.Clone(ins)
		lo := i
		for lo > 0 && cur[len(cur)-1] == hn[lo-1] {
			copy(cur[1:], cur[:len(cur)-1])
			cur[0] = hn[lo-1]
			lo--
		}
		places = append(places, place{lo, cur}, place{i, ins})
		cur = slices.Clone(ins)
		hi := i
		for hi < len(hn) && cur[0] == hn[hi] {
			copy(cur, cur[1:])
			cur[len(cur)-1] = hn[hi]
			hi++
		}
		places = append(places, place{hi, cur})
	}
	tried := map[int]bool{}
	for _, p := range places {
		if tried[p.i] {
			continue
		}
		tried[p.i] = true
		if x.countAt(r, kn, hn, at, p.i, p.i, n, p.ins) {
			return true
		}
	}
	// Calls inserted after a loop may be placed a few calls past its end
	// (the calls after it begin as its body does): the loop holds one of
	// the calls before.
	for c := i - 1; ins != nil && c >= max(0, i-n, i-maxMove); c-- {
		if x.countAt(r, kn, hn, at, c, i, n, ins) {
			return true
		}
	}
	return false
}

// aroundLoops is what loopsAround returns.
type aroundLoops struct {
	reps  []repeat
	iters []int
}

// countAt reports whether the change countChanged is given, n callees
// deleted at i (ins nil) or ins inserted before i, is whole iterations of
// a loop around callee at, and if so says so in r.
func (x *explainer) countAt(r *Explanation, kn []call, hn []uint64, loops func(int) aroundLoops, at, i, n int, ins []uint64) bool {
	if at < 0 || at >= len(kn) {
		return false
	}
	l := loops(at)
	reps, iters := l.reps, l.iters
	for j, l := range reps {
		if n%l.Period != 0 || i < l.First || i > l.Tail {
			continue
		}
		if ins == nil && i+n > l.Tail {
			continue
		}
		if ins != nil {
			same := true
			for t, v := range ins {
				same = same && v == hn[l.First+(i-l.First+t)%l.Period]
			}
			if !same {
				continue
			}
		}
		*r = Explanation{Kind: CountChanged}
		for k := range j {
			r.Loops = append(r.Loops, LoopPlace{Body: kn[reps[k].First].sym, Period: reps[k].Period, Iteration: iters[k], Count: reps[k].Count})
		}
		lp := LoopPlace{Body: kn[l.First].sym, Period: l.Period}
		if ins == nil {
			r.Counts = [2]int{l.Count, l.Count - n/l.Period}
			lp.Iteration, lp.Count = r.Counts[1]+1, l.Count
		} else {
			r.Counts = [2]int{l.Count, l.Count + n/l.Period}
			lp.Iteration, lp.Count = l.Count+1, r.Counts[1]
		}
		r.Loop = &lp
		r.Normal = []trace.Symbol{lp.Body}
		return true
	}
	return false
}

// Text says where the traces part and how, in one line: "first
// difference: iteration 6 of 12 of the loop over step, in main > run:
// halo::Exchanger::exchange missing (with the 19 calls it makes)". name
// names symbols.
func (e Explanation) Text(name func(trace.Symbol) string) string {
	var stack []string
	for j, s := range e.Stack {
		n := name(s)
		if j < len(e.StackNth) && e.StackNth[j].Of >= 2 {
			n += fmt.Sprintf(" (the %s of %d)", ordinalWord(e.StackNth[j].N), e.StackNth[j].Of)
		}
		stack = append(stack, n)
	}
	if !e.Whole {
		return e.First.Text(name, stack)
	}
	var where []string
	for _, l := range e.Loops {
		switch {
		case l.Told:
		case l.Between:
			where = append(where, fmt.Sprintf("between iterations %d and %d of %d of %s", l.Iteration-1, l.Iteration, l.Count, loopName(l, name)))
		default:
			where = append(where, fmt.Sprintf("iteration %d of %d of %s", l.Iteration, l.Count, loopName(l, name)))
		}
	}
	w := strings.Join(where, " > ")
	if len(stack) > 0 {
		if w != "" {
			w += ", "
		}
		w += "in " + strings.Join(stack, " > ")
	}
	if w == "" {
		w = "at the top level"
	}
	calls := func(s []trace.Symbol, more int) string {
		if more == 0 && len(s) <= 3 {
			// A few calls are named each: the argument's accessor
			// that comes first says less than the MPI_Isend after it.
			var names []string
			for _, x := range s {
				names = append(names, name(x))
			}
			return strings.Join(names, ", ")
		}
		out := name(s[0])
		if n := len(s) - 1 + more; n > 0 {
			out += fmt.Sprintf(" and %s more %s", thousands(n), plural.Word(n, "call", "calls"))
		}
		return out
	}
	with := func(s []trace.Symbol, more, total, kept int) string {
		inside := total - len(s) - more
		if inside <= 0 {
			return ""
		}
		them := plural.Word(len(s)+more, "it makes", "they make")
		if inside == 1 {
			return " (with the call " + them + ")"
		}
		out := fmt.Sprintf(" (with the %s %s %s", thousands(inside), plural.Word(inside, "call", "calls"), them)
		if e.Filter != "" && e.Filter != "all" {
			out += fmt.Sprintf(", %s of them under %s", thousands(kept), e.Filter)
		}
		return out + ")"
	}
	nth := func() string {
		if e.Of < 2 {
			return ""
		}
		return fmt.Sprintf(", the %s of its %d calls there", ordinalWord(e.Ordinal), e.Of)
	}
	list := func(s []trace.Symbol, more int) string {
		var names []string
		for _, x := range s[:min(len(s), maxReorder)] {
			names = append(names, name(x))
		}
		if n := len(s) - min(len(s), maxReorder) + more; n > 0 {
			names = append(names, fmt.Sprintf("and %s more", thousands(n)))
		}
		return strings.Join(names, ", ")
	}
	var what string
	switch e.Kind {
	case Missing:
		what = calls(e.Normal, e.NormalMore) + " missing" + nth() + with(e.Normal, e.NormalMore, e.NormalCalls, e.NormalKept)
	case Added:
		what = calls(e.Faulty, e.FaultyMore) + " added" + nth() + with(e.Faulty, e.FaultyMore, e.FaultyCalls, e.FaultyKept)
		if e.Cut {
			what += ", and the faulty trace ends inside " + plural.Word(len(e.Faulty)+e.FaultyMore, "it", "the last of them")
			if len(e.Normal) > 0 {
				what += ", where the normal run goes on with " + calls(e.Normal, e.NormalMore)
			}
		}
	case Reordered:
		what = "the same calls in another order: " + list(e.Normal, e.NormalMore) + " in the normal run, " + list(e.Faulty, e.FaultyMore) + " in the faulty run"
		if e.OrderVaries {
			what += " (the normal runs order these calls differently too: an order the program does not fix, such as that of receives from any source)"
		}
	case CountChanged:
		was := times(e.Counts[0])
		if e.Counts[0] > 2 && e.Counts[1] > 2 {
			was = thousands(e.Counts[0]) // "5 times instead of 6"
		}
		what = fmt.Sprintf("%s ran %s instead of %s", loopName(*e.Loop, name), times(e.Counts[1]), was)
	case EndsHere:
		what = "the faulty trace ends here, inside " + name(e.Normal[0]) + nth() + ", which the normal run returns from"
	case NormalEnds:
		what = "the normal trace ends here"
		if len(e.Faulty) > 0 {
			what += "; the faulty run goes on with " + calls(e.Faulty, e.FaultyMore)
		}
	default:
		what = calls(e.Normal, e.NormalMore) + " replaced by " + calls(e.Faulty, e.FaultyMore)
	}
	if u := e.Unordered; e.Kind != Reordered && len(u[0]) > 0 {
		what += fmt.Sprintf(", where the normal runs make %s… and %s… in either order", name(u[0][0])+", "+name(u[0][min(1, len(u[0])-1)]), name(u[1][0])+", "+name(u[1][min(1, len(u[1])-1)]))
	}
	return "first difference: " + w + ": " + what
}

// loopName names a loop by its body's first call: "the loop over step",
// "the loop over step and 4 more calls".
func loopName(l LoopPlace, name func(trace.Symbol) string) string {
	s := "the loop over " + name(l.Body)
	if l.Period > 1 {
		s += fmt.Sprintf(" and %s more %s", thousands(l.Period-1), plural.Word(l.Period-1, "call", "calls"))
	}
	return s
}

func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%s times", thousands(n))
}

// ordinalWord writes 1 as "1st", 2 as "2nd", and so on.
func ordinalWord(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suffix)
}
