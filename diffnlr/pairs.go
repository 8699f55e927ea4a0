package diffnlr

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// Pairs is a set of call pairs: two calls that one trace makes one right
// after the other, in the calls its NLR stands for. A program that varies
// by itself (a dynamic schedule, receives from any source) repeats loops a
// varying number of times, but the calls that follow one another are few
// and stable: a pair that no normal run ever makes is something the
// program never did when it worked.
type Pairs struct {
	t *nlr.Table
	// next counts, per pair, the traces that make it.
	next map[[2]trace.Symbol]int
	// loop memoizes, per loop, the pairs inside its body and its first and
	// last calls.
	loop map[int32]*loopPairs
}

type loopPairs struct {
	pairs       [][2]trace.Symbol // in the body
	first, last trace.Symbol      // its calls; from last to first is the next iteration
}

// NewPairs returns an empty set of the pairs of NLRs whose loops are in t.
func NewPairs(t *nlr.Table) *Pairs {
	return &Pairs{t: t, next: map[[2]trace.Symbol]int{}, loop: map[int32]*loopPairs{}}
}

// Add adds the pairs of the calls s stands for.
func (p *Pairs) Add(s nlr.Sequence) {
	seen := map[[2]trace.Symbol]bool{}
	p.walk(s, func(pair [2]trace.Symbol, _ uint64) bool {
		if !seen[pair] {
			seen[pair] = true
			p.next[pair]++
		}
		return true
	}, false)
}

// Has reports whether some trace added makes the pair.
func (p *Pairs) Has(a, b trace.Symbol) bool { return p.next[[2]trace.Symbol{a, b}] > 0 }

// after returns the calls that follow a in the pairs added, those made by
// the most traces first.
func (p *Pairs) after(a trace.Symbol) []trace.Symbol {
	var out []trace.Symbol
	for pair := range p.next {
		if pair[0] == a {
			out = append(out, pair[1])
		}
	}
	slices.SortFunc(out, func(x, y trace.Symbol) int {
		return cmp.Or(p.next[[2]trace.Symbol{a, y}]-p.next[[2]trace.Symbol{a, x}], cmp.Compare(x, y))
	})
	return out
}

// of returns loop id's pairs, first and last calls.
func (p *Pairs) of(id int32) *loopPairs {
	if lp, ok := p.loop[id]; ok {
		return lp
	}
	lp := &loopPairs{}
	p.loop[id] = lp
	body := p.t.Body(id)
	set := map[[2]trace.Symbol]bool{}
	p.walk(body, func(pair [2]trace.Symbol, _ uint64) bool {
		set[pair] = true
		return true
	}, false)
	lp.first, lp.last = p.ends(body[0]), p.lastOf(body[len(body)-1])
	for pair := range set {
		lp.pairs = append(lp.pairs, pair)
	}
	slices.SortFunc(lp.pairs, func(x, y [2]trace.Symbol) int {
		return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1]))
	})
	return lp
}

// ends returns e's first call.
func (p *Pairs) ends(e nlr.Element) trace.Symbol {
	if !e.IsLoop() {
		return e.Sym
	}
	return p.of(e.Loop).first
}

// lastOf returns e's last call.
func (p *Pairs) lastOf(e nlr.Element) trace.Symbol {
	if !e.IsLoop() {
		return e.Sym
	}
	return p.of(e.Loop).last
}

// walk calls f with the pairs of the calls s stands for and, when calls is
// set, the index of each pair's second call (from 0); each loop's inner
// pairs are given once, at its first iteration, unless calls is set and
// a loop holds a pair not in p, which is then found where it first
// occurs. It stops when f returns false, and reports whether f did.
func (p *Pairs) walk(s nlr.Sequence, f func([2]trace.Symbol, uint64) bool, calls bool) bool {
	var at uint64
	var prev trace.Symbol
	started := false
	return p.walkFrom(s, &at, &prev, &started, f, calls)
}

func (p *Pairs) walkFrom(s nlr.Sequence, at *uint64, prev *trace.Symbol, started *bool, f func([2]trace.Symbol, uint64) bool, calls bool) bool {
	for _, e := range s {
		first := p.ends(e)
		if *started && !f([2]trace.Symbol{*prev, first}, *at) {
			return false
		}
		*started = true
		if !e.IsLoop() {
			*prev = e.Sym
			*at++
			continue
		}
		lp := p.of(e.Loop)
		body := p.t.Body(e.Loop)
		wrap := [2]trace.Symbol{lp.last, lp.first}
		if calls && (e.Count > 1 && !p.Has(wrap[0], wrap[1]) || slices.ContainsFunc(lp.pairs, func(pair [2]trace.Symbol) bool { return !p.Has(pair[0], pair[1]) })) {
			// Find the new pair inside: the first iteration, then the
			// step to the second.
			*started = false
			if !p.walkFrom(body, at, prev, started, f, calls) {
				return false
			}
			if e.Count > 1 {
				if !f(wrap, *at) {
					return false
				}
				*at += uint64(e.Count-1) * p.t.BodyCalls(e.Loop)
			}
			*prev = lp.last
			continue
		}
		for _, pair := range lp.pairs {
			if !f(pair, *at) {
				return false
			}
		}
		if e.Count > 1 && !f(wrap, *at) {
			return false
		}
		*at += uint64(e.Count) * p.t.BodyCalls(e.Loop)
		*prev = lp.last
	}
	return true
}

// NewPair is the first pair of calls a faulty trace makes that no normal
// trace makes (Pairs).
type NewPair struct {
	// Call is the index (from 0) of the pair's second call in the faulty
	// trace's calls.
	Call uint64 `json:"call"`
	// Prev and Next are the two calls.
	Prev trace.Symbol `json:"-"`
	Next trace.Symbol `json:"-"`
	// Usual are the calls that follow Prev in the normal runs, those made
	// by the most traces first (at most three).
	Usual []trace.Symbol `json:"-"`
}

// FirstNewPair returns the first pair of calls of faulty that normal has
// not (see Pairs); ok is false when there is none.
func FirstNewPair(normal *Pairs, faulty nlr.Sequence) (np NewPair, ok bool) {
	normal.walk(faulty, func(pair [2]trace.Symbol, at uint64) bool {
		if normal.Has(pair[0], pair[1]) {
			return true
		}
		np, ok = NewPair{Call: at, Prev: pair[0], Next: pair[1]}, true
		return false
	}, true)
	if ok {
		np.Usual = normal.after(np.Prev)
		if len(np.Usual) > 3 {
			np.Usual = np.Usual[:3]
		}
	}
	return np, ok
}

// Find returns the index (from 0) of the second call of the first
// occurrence of the pair (a, b), one not in p, in the calls s stands for.
func (p *Pairs) Find(s nlr.Sequence, a, b trace.Symbol) (call uint64, ok bool) {
	p.walk(s, func(pair [2]trace.Symbol, at uint64) bool {
		if pair == [2]trace.Symbol{a, b} {
			call, ok = at, true
		}
		return !ok
	}, true)
	return call, ok
}

// Text says where the faulty trace first makes a pair of calls no normal
// run makes, in one line. prev and next, where known, are the call stacks
// of the pair's calls (their callers, outermost first).
func (np NewPair) Text(name func(trace.Symbol) string, prev, next []string) string {
	w := fmt.Sprintf("at call %s", thousands(int(min(np.Call+1, 1<<31-1))))
	in := func(stack []string) string { return "in " + strings.Join(stack, " > ") }
	a, b := name(np.Prev), name(np.Next)
	switch {
	case slices.Equal(prev, next) && len(next) > 0:
		w += ", " + in(next)
	case len(prev) > 0 && len(next) > 0:
		a += " (" + in(prev) + ")"
		b += " (" + in(next) + ")"
	case len(next) > 0:
		b += " (" + in(next) + ")"
	}
	what := fmt.Sprintf("%s then %s, which no normal run does", a, b)
	if len(np.Usual) > 0 {
		var usual []string
		for _, s := range np.Usual {
			usual = append(usual, name(s))
		}
		what += fmt.Sprintf(" (after %s they call %s)", name(np.Prev), strings.Join(usual, " or "))
	}
	return "first difference: " + w + ": " + what
}
