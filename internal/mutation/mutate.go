package mutation

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/difftrace/difftrace/trace"
)

// Op is a kind of mutation.
type Op int

// The mutations (the package documentation defines each).
const (
	OpDelete     Op = iota // a call with its subtree deleted in one iteration
	OpDeleteFrom           // the same call deleted from one iteration on
	OpInsert               // a copy of a sibling's subtree inserted
	OpSwap                 // two adjacent sibling calls swapped
	OpCount                // a loop's count changed by one in one place
	OpCut                  // the trace cut right after a call (a hang)
	numOps
)

// Ops lists every Op.
var Ops = []Op{OpDelete, OpDeleteFrom, OpInsert, OpSwap, OpCount, OpCut}

func (o Op) String() string {
	switch o {
	case OpDelete:
		return "delete"
	case OpDeleteFrom:
		return "delete-from"
	case OpInsert:
		return "insert"
	case OpSwap:
		return "swap"
	case OpCount:
		return "count"
	case OpCut:
		return "cut"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Kind is what an explanation says happened where the traces part.
type Kind int

// The kinds of change. None is what an explanation that finds no
// difference says; Replaced and Other are kinds the explanation may give
// that no mutation expects.
const (
	None Kind = iota
	Missing
	Added
	Reordered
	CountChanged
	EndsHere
	Replaced
	Other
)

func (k Kind) String() string {
	return [...]string{"none", "missing", "added", "reordered", "count changed", "ends here", "replaced", "other"}[k]
}

// Answer is where and how a faulty trace parts from its normal run: what a
// mutation expects (Mutation.Want) and what an explanation says (Read).
type Answer struct {
	Kind Kind
	// Call is the call named: the one missing, added, first of the calls
	// reordered, the first of the loop body whose count changed, the one
	// the trace ends in.
	Call trace.Symbol
	// Loops are the loops around the place, outermost first, each with
	// the iteration the place is in and the loop's count. For CountChanged
	// the last is the loop whose count changed, at the first iteration
	// only one run has, with that run's count (n of n for one iteration
	// fewer, n+1 of n+1 for one more).
	Loops []IterCount
	// Stack is the call stack at the place, outermost first: the callers
	// of Call (for CountChanged, of the loop's calls).
	Stack []trace.Symbol
}

// IterCount is an iteration of a loop and the loop's count.
type IterCount struct{ Iteration, Count int }

// iterCounts drops the loops' positions.
func iterCounts(its []Iter) []IterCount {
	out := make([]IterCount, len(its))
	for i, it := range its {
		out[i] = IterCount{it.Iteration, it.Count}
	}
	return out
}

// Splice replaces Del events from At on (in the base trace) with copies of
// the base events in Ins, in order.
type Splice struct {
	At, Del int
	Ins     [][2]int
}

// Mutation is one change of a base trace and the answer it expects.
type Mutation struct {
	Op Op
	// Splices are the edits, sorted by At and not overlapping; Cut, when
	// not negative, drops every event from Cut on (after the splices, in
	// base positions).
	Splices []Splice
	Cut     int
	Want    Answer
	// What says in words what was done, for reports.
	What string
}

// Apply returns the mutated copy of base (a trace's events, or its raw
// values: anything indexed as the events are).
func Apply[E any](m *Mutation, base []E) []E {
	end := len(base)
	if m.Cut >= 0 {
		end = m.Cut
	}
	out := make([]E, 0, end+8)
	pos := 0
	for _, s := range m.Splices {
		if s.At > end {
			break
		}
		out = append(out, base[pos:s.At]...)
		for _, r := range s.Ins {
			out = append(out, base[r[0]:r[1]]...)
		}
		pos = s.At + s.Del
	}
	if pos < end {
		out = append(out, base[pos:end]...)
	}
	return out
}

// ErrNoSite says that a trace offers no place for a kind of mutation (no
// loop to change the count of, no two different siblings to swap, …).
var ErrNoSite = errors.New("no place for this mutation in the trace")

// tries bounds the random draws for one mutation.
const tries = 200

// Mutate draws one mutation of kind op of the trace, at random from rng.
// Mutations whose truth would be ambiguous (see the package documentation)
// are drawn again; ErrNoSite says that none was found.
func (t *Tree) Mutate(rng *rand.Rand, op Op, name func(trace.Symbol) string) (*Mutation, error) {
	if len(t.Nodes) < 2 {
		return nil, ErrNoSite
	}
	for range tries {
		var m *Mutation
		switch op {
		case OpDelete:
			m = t.mutateDelete(rng, false)
		case OpDeleteFrom:
			m = t.mutateDelete(rng, true)
		case OpInsert:
			m = t.mutateInsert(rng)
		case OpSwap:
			m = t.mutateSwap(rng)
		case OpCount:
			m = t.mutateCount(rng)
		case OpCut:
			m = t.mutateCut(rng)
		default:
			return nil, fmt.Errorf("mutation: unknown op %d", op)
		}
		if m == nil {
			continue
		}
		m.Op = op
		if name != nil {
			m.What = describe(m, name)
		}
		return m, nil
	}
	return nil, ErrNoSite
}

// randomCall draws a call: a function of the trace at random, then one of
// its calls, so that rare functions (the MPI calls of a step) are drawn as
// often as the commonest ones. Only calls that returned are drawn; with
// looped, only calls inside some loop, when there are any.
func (t *Tree) randomCall(rng *rand.Rand, looped bool) int32 {
	syms, bySym := t.syms, t.bySym
	if len(syms) == 0 {
		return -1
	}
	var fallback int32 = -1
	for range 16 {
		calls := bySym[syms[rng.IntN(len(syms))]]
		x := calls[rng.IntN(len(calls))]
		if !looped || len(t.AroundCall(x)) > 0 {
			return x
		}
		fallback = x
	}
	return fallback
}

// sameRun returns the run of children of n identical to child c (same
// subtree hash): [a, b).
func (t *Tree) sameRun(n int32, c int) (a, b int) {
	kids := t.Nodes[n].Children
	h := t.Nodes[kids[c]].Hash
	a, b = c, c+1
	for a > 0 && t.Nodes[kids[a-1]].Hash == h {
		a--
	}
	for b < len(kids) && t.Nodes[kids[b]].Hash == h {
		b++
	}
	return a, b
}

// runLoop returns the loop of period 1 that children [a, b) of n are.
func (t *Tree) runLoop(n int32, a, b int) *Loop {
	for _, l := range t.Loops[n] {
		if l.First == a && l.Period == 1 && l.Count == b-a {
			return &l
		}
	}
	return nil
}

// wantDeleted is the answer for deleting child c of node n (and, from
// there, whatever else is deleted after it).
func (t *Tree) wantDeleted(n int32, c int) (Answer, bool) {
	x := t.Child(n, c)
	a, b := t.sameRun(n, c)
	if b-a >= 2 {
		// A call among calls just like it: one iteration fewer of their
		// loop.
		l := t.runLoop(n, a, b)
		if l == nil || t.polling(t.Nodes[x].Sym) {
			return Answer{}, false
		}
		loops := iterCounts(t.atRun(n, a, l))
		return Answer{Kind: CountChanged, Call: t.Nodes[x].Sym, Stack: t.stackIn(n),
			Loops: append(loops, IterCount{l.Count, l.Count})}, true
	}
	if c+1 < len(t.Nodes[n].Children) && t.Nodes[t.Child(n, c+1)].Sym == t.Nodes[x].Sym {
		// The next call is of the same function with other calls inside:
		// which of the two is missing is a matter of alignment.
		return Answer{}, false
	}
	return Answer{Kind: Missing, Call: t.Nodes[x].Sym, Stack: t.Stack(x), Loops: iterCounts(t.AroundCall(x))}, true
}

// polling reports whether s is a polling call (Tree.Polling).
func (t *Tree) polling(s trace.Symbol) bool { return t.Polling != nil && t.Polling(s) }

// atRun returns the loops around loop l among n's children (it starts at
// child a), outermost first, l excluded.
func (t *Tree) atRun(n int32, a int, l *Loop) []Iter {
	var out []Iter
	for _, p := range t.path(n) {
		out = append(out, t.at(t.Nodes[p].Parent, int(t.Nodes[p].Index), nil)...)
	}
	for _, it := range t.at(n, a, l) {
		// Only the loops around the whole of l: those inside it are
		// not around it.
		if it.First <= l.First && it.End() >= l.End() && it.Period*it.Count > l.Period*l.Count {
			out = append(out, it)
		}
	}
	return out
}

// stackIn returns the call stack of n's children: n's callers and n.
func (t *Tree) stackIn(n int32) []trace.Symbol {
	if n == Root {
		return nil
	}
	return append(t.Stack(n), t.Nodes[n].Sym)
}

// deleteSplice deletes node x's events.
func (t *Tree) deleteSplice(x int32) Splice {
	from, to := t.Span(x)
	return Splice{At: from, Del: to - from}
}

// mutateDelete deletes a call in one iteration of a loop around it, or with
// from set in every iteration of that loop from there on.
func (t *Tree) mutateDelete(rng *rand.Rand, from bool) *Mutation {
	x := t.randomCall(rng, true)
	if x < 0 {
		return nil
	}
	n, c := t.Nodes[x].Parent, int(t.Nodes[x].Index)
	want, ok := t.wantDeleted(n, c)
	if !ok {
		return nil
	}
	m := &Mutation{Cut: -1, Want: want, Splices: []Splice{t.deleteSplice(x)}}
	if !from {
		return m
	}
	if want.Kind != Missing {
		return nil // one of a run of calls just like it: OpCount's ground
	}
	// The same call in the iterations after: the same path of child
	// indexes from the loop's iteration down to x.
	around := t.AroundCall(x)
	if len(around) == 0 {
		return nil
	}
	l := around[rng.IntN(len(around))]
	// The path from l's node down to x: the child of l.Node that holds x,
	// then indexes below.
	var path []int
	y := x
	for t.Nodes[y].Parent != l.Node {
		path = append(path, int(t.Nodes[y].Index))
		y = t.Nodes[y].Parent
	}
	slices.Reverse(path)
	top := int(t.Nodes[y].Index)
	for it := l.Iteration + 1; it <= l.Count; it++ {
		z := t.Child(l.Node, top+(it-l.Iteration)*l.Period)
		for _, i := range path {
			z = t.Child(z, i)
		}
		m.Splices = append(m.Splices, t.deleteSplice(z))
	}
	return m
}

// mutateInsert inserts, among a call's children, a copy of one of them.
func (t *Tree) mutateInsert(rng *rand.Rand) *Mutation {
	y := t.randomCall(rng, false)
	if y < 0 {
		return nil
	}
	n := t.Nodes[y].Parent
	kids := t.Nodes[n].Children
	j := rng.IntN(len(kids) + 1) // insert before child j
	src := t.Nodes[y]
	var want Answer
	switch {
	case j > 0 && t.Nodes[kids[j-1]].Hash == src.Hash || j < len(kids) && t.Nodes[kids[j]].Hash == src.Hash:
		c := j
		if c == len(kids) || t.Nodes[kids[c]].Hash != src.Hash {
			c = j - 1
		}
		a, b := t.sameRun(n, c)
		if b-a < 2 {
			// Beside one call just like it: added after it.
			want = Answer{Kind: Added, Call: src.Sym, Stack: t.stackIn(n), Loops: iterCounts(t.Around(n, b))}
			if b < len(kids) && t.Nodes[kids[b]].Sym == src.Sym {
				return nil
			}
			break
		}
		l := t.runLoop(n, a, b)
		if l == nil || t.polling(src.Sym) {
			return nil
		}
		want = Answer{Kind: CountChanged, Call: src.Sym, Stack: t.stackIn(n),
			Loops: append(iterCounts(t.atRun(n, a, l)), IterCount{l.Count + 1, l.Count + 1})}
	default:
		if j < len(kids) && t.Nodes[kids[j]].Sym == src.Sym {
			return nil // before a call of the same function: alignment decides
		}
		want = Answer{Kind: Added, Call: src.Sym, Stack: t.stackIn(n), Loops: iterCounts(t.Around(n, j))}
	}
	at := t.Nodes[n].End // before the caller's return
	if j < len(kids) {
		at, _ = t.Span(kids[j])
	} else if n == Root {
		at = len(t.Events)
	}
	if at < 0 {
		return nil // the caller never returned
	}
	from, to := t.Span(y)
	return &Mutation{Cut: -1, Want: want, Splices: []Splice{{At: at, Ins: [][2]int{{from, to}}}}}
}

// mutateSwap swaps two adjacent sibling calls of different functions.
func (t *Tree) mutateSwap(rng *rand.Rand) *Mutation {
	y := t.randomCall(rng, false)
	if y < 0 {
		return nil
	}
	n, c := t.Nodes[y].Parent, int(t.Nodes[y].Index)
	kids := t.Nodes[n].Children
	if c+1 >= len(kids) {
		return nil
	}
	a, b := t.Nodes[kids[c]], t.Nodes[kids[c+1]]
	if a.Sym == b.Sym || b.End < 0 {
		return nil
	}
	af, at := t.Span(kids[c])
	bf, bt := t.Span(kids[c+1])
	return &Mutation{Cut: -1,
		Want:    Answer{Kind: Reordered, Call: a.Sym, Stack: t.Stack(y), Loops: iterCounts(t.AroundCall(y))},
		Splices: []Splice{{At: af, Del: bt - af, Ins: [][2]int{{bf, bt}, {af, at}}}}}
}

// mutateCount runs one loop once more or once less, in one iteration of
// the loops around it.
func (t *Tree) mutateCount(rng *rand.Rand) *Mutation {
	// Mostly loops inside other loops: one iteration of the outer loop
	// changes.
	all, nested := t.loopSites[0], t.loopSites[1]
	if len(nested) > 0 && rng.IntN(4) > 0 {
		all = nested
	}
	if len(all) == 0 {
		return nil
	}
	l := all[rng.IntN(len(all))]
	n := l.Node
	onlyPolling := true
	for c := l.First; c < l.First+l.Period; c++ {
		onlyPolling = onlyPolling && t.polling(t.Nodes[t.Child(n, c)].Sym)
	}
	if onlyPolling {
		return nil
	}
	first := t.Nodes[t.Child(n, l.First)].Sym
	loops := iterCounts(t.atRun(n, l.First, &l))
	from, to := t.childrenSpan(n, l.End()-l.Period, l.End()) // the last iteration
	if rng.IntN(2) == 0 {
		return &Mutation{Cut: -1,
			Want:    Answer{Kind: CountChanged, Call: first, Stack: t.stackIn(n), Loops: append(loops, IterCount{l.Count, l.Count})},
			Splices: []Splice{{At: from, Del: to - from}}}
	}
	return &Mutation{Cut: -1,
		Want:    Answer{Kind: CountChanged, Call: first, Stack: t.stackIn(n), Loops: append(loops, IterCount{l.Count + 1, l.Count + 1})},
		Splices: []Splice{{At: to, Ins: [][2]int{{from, to}}}}}
}

// mutateCut ends the trace right after a call: the thread hangs in it.
func (t *Tree) mutateCut(rng *rand.Rand) *Mutation {
	x := t.randomCall(rng, false)
	if x < 0 {
		return nil
	}
	return &Mutation{Cut: t.Nodes[x].Start + 1,
		Want: Answer{Kind: EndsHere, Call: t.Nodes[x].Sym, Stack: t.Stack(x), Loops: iterCounts(t.AroundCall(x))}}
}

// describe says what m did, in words.
func describe(m *Mutation, name func(trace.Symbol) string) string {
	return m.Op.String() + ": want " + m.Want.Format(name)
}
