package compare

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/trace"
)

// Parting is where the runs of one thread first part, and how: what a
// diffNLR's first line says.
type Parting struct {
	Trace trace.ID
	// Explanation is the place and the change, read on the whole call
	// trees and anchored by the view's first difference
	// (Explanation.First).
	Explanation diffnlr.Explanation
	// NewPair, when set, is what the line says instead: the first pair of
	// calls no normal run makes (NLR.NewPair), where the normal runs vary
	// by themselves.
	NewPair *diffnlr.NewPair
	// Stack holds the callers of the calls that differ, outermost first.
	Stack []trace.Symbol
	// Text is the sentence, "first difference: …".
	Text string
}

// Explain says where trace i's runs first part under n's view, and how;
// ok is false when they make the same calls there. The place is read on
// the traces' whole call trees (diffnlr.ExplainFirst), every call counted,
// with the loops of any body length around it; the view's first
// difference only anchors it, so that what its filter hides before is
// passed over. Where the events are not at hand (a summary whose run is
// elsewhere), the view's own first difference is said, with no call stack,
// and noStacks wraps decode.ErrNoEvents.
//
// With further normal runs, a pair of calls none of them makes is named
// instead where the alignment of calls that vary anyway parts elsewhere,
// and a reordering the normal runs show too is said to be the program's
// own.
func (n *NLR) Explain(i int) (p Parting, ok bool, noStacks, err error) {
	c := n.c
	t := c.IDs[i]
	p.Trace = t
	callStack := func(r int, k uint64) ([]trace.Symbol, error) {
		st, err := c.CallStack(r, t, n.Filter, k)
		if errors.Is(err, decode.ErrNoEvents) {
			noStacks = err
			return nil, nil
		}
		return st, err
	}
	// With noisy loop counts (further normal runs), the normal sequence
	// aligned to the faulty one; NormalCall takes its call counts back to
	// the normal run's.
	blocks, normal, err := n.Diff(i)
	if err != nil {
		return p, false, nil, err
	}
	f, ok := diffnlr.FirstDifference(n.Table, normal, n.Seq(Faulty, i))
	if !ok {
		// The same calls; a faulty process that did not end normally may
		// still have hung inside its last call.
		if c.Runs[Faulty].Ending(t.Proc) == "" || n.Patched(i) || !c.Has(Normal, i) || !c.Has(Faulty, i) {
			return p, false, nil, nil
		}
		w, noEvents, err := n.whole(t)
		if err != nil || noEvents != nil {
			return p, false, noEvents, err
		}
		x, ok := diffnlr.EndsInside(f, w, n.NormalCall(i, blocks, f.Common), f.Common)
		if !ok {
			return p, false, nil, nil
		}
		p.Explanation, p.Stack, p.Text = x, x.Stack, x.Text(c.Symbols.Label)
		return p, true, nil, nil
	}
	// Where the normal runs vary, a pair of calls none of them makes says
	// more than an alignment of calls that vary anyway, unless the
	// alignment parts right there (f.Common calls in common: the faulty
	// run's next call is the pair's second).
	if np, at, ok := n.NewPair(i); ok && at != f.Common {
		stack, err := callStack(Faulty, np.Call)
		if err != nil {
			return p, false, nil, err
		}
		prev, err := callStack(Faulty, np.Call-1)
		if err != nil {
			return p, false, nil, err
		}
		if len(stack) > 0 {
			stack = stack[:len(stack)-1]
		}
		if len(prev) > 0 {
			prev = prev[:len(prev)-1]
		}
		p.Explanation, p.NewPair, p.Stack = diffnlr.Explanation{First: f}, &np, stack
		p.Text = np.Text(c.Symbols.Label, labels(c.Symbols, prev), labels(c.Symbols, stack))
		return p, true, noStacks, nil
	}
	var w diffnlr.Whole
	// A faulty trace whose run-wide changes were set aside (the argument
	// parsing of a bug's flag, say) is read as recorded, its place counted
	// back to the recorded calls (FaultyCall); but where further normal
	// runs show the program varying by itself, the view's alignment of
	// its noise is not one the whole traces can follow, and the view
	// alone speaks for such a trace.
	if c.Has(Normal, i) && c.Has(Faulty, i) && (!n.Patched(i) || len(c.Normals()) == 1) {
		var noEvents error
		w, noEvents, err = n.whole(t)
		if err != nil {
			return p, false, nil, err
		}
		if noEvents != nil {
			noStacks = noEvents
		}
	}
	nc, fc := n.NormalCall(i, blocks, f.Common), n.FaultyCall(i, f.Common)
	x := diffnlr.ExplainFirst(f, w, nc, fc)
	// A change every process makes alike, where the faulty run was started
	// with another command line (its arguments parsed), is set aside on
	// the call trees too: the view may not have, when the change and the
	// bug's effects fall in one stretch of its NLRs (a run that hung).
	for range maxAlike {
		if !x.Whole || x.Holder == ([2]uint64{}) || !n.changedAlike(i, w, x.Holder) {
			break
		}
		if w.Alike == nil {
			w.Alike = map[uint64]uint64{}
		}
		w.Alike[x.Holder[1]] = x.Holder[0]
		x = diffnlr.ExplainFirst(f, w, nc, fc)
	}
	if !x.Whole {
		// The call stack of the view's place: the normal run's call
		// there, else the faulty run's.
		var stack []trace.Symbol
		switch {
		case !f.NormalEnded && c.Has(Normal, i):
			stack, err = callStack(Normal, n.NormalCall(i, blocks, f.Common))
		case !f.FaultyEnded && !n.Patched(i) && c.Has(Faulty, i):
			stack, err = callStack(Faulty, f.Common)
		}
		if err != nil {
			return p, false, nil, err
		}
		if len(stack) > 0 {
			stack = stack[:len(stack)-1] // the callers of the call that differs
		}
		x.Stack = stack
	}
	n.orderVaries(i, &x)
	p.Explanation, p.Stack = x, x.Stack
	p.Text = x.Text(c.Symbols.Label)
	return p, true, noStacks, nil
}

// whole returns what an explanation reads of trace t's runs: their events
// and the view's filter. noEvents, when set, says why the events are not
// at hand (a summary whose run is elsewhere); w then has none.
func (n *NLR) whole(t trace.ID) (w diffnlr.Whole, noEvents, err error) {
	c := n.c
	w = diffnlr.Whole{Keep: n.Filter.Compile(c.Symbols).Keep, Poll: c.quietPolling(n.Filter), Filter: n.Filter.Name()}
	w.Normal, err = c.Events(Normal, t)
	if err == nil {
		w.Faulty, err = c.Events(Faulty, t)
	}
	if errors.Is(err, decode.ErrNoEvents) {
		return diffnlr.Whole{}, err, nil
	}
	if err != nil {
		return diffnlr.Whole{}, nil, err
	}
	return w, nil, nil
}

// maxAlike bounds how many changes Explain sets aside as made alike by
// every process.
const maxAlike = 3

// alikeSample is how many other processes changedAlike reads.
const alikeSample = 8

// changedAlike reports whether the change that trace i's explanation
// under w found in the calls holder names is one every process of the
// faulty run makes alike, where the two runs were started with other
// command lines: up to alikeSample other processes' traces of the same
// thread, read on their whole call trees from the start, part first in
// calls with the same holder. It takes at least one other process.
func (n *NLR) changedAlike(i int, w diffnlr.Whole, holder [2]uint64) bool {
	c := n.c
	if !commandsDiffer(c) {
		return false
	}
	t := c.IDs[i]
	var others []int
	for j, u := range c.IDs {
		if j != i && u.Thread == t.Thread && u.Proc != t.Proc && c.Has(Normal, j) && c.Has(Faulty, j) {
			others = append(others, j)
		}
	}
	if len(others) == 0 {
		return false
	}
	if len(others) > alikeSample {
		// An even spread over the processes.
		picked := make([]int, alikeSample)
		for k := range picked {
			picked[k] = others[k*len(others)/alikeSample]
		}
		others = picked
	}
	for _, j := range others {
		if h, ok := n.holderFromStart(j, w.Alike); !ok || h != holder {
			return false
		}
	}
	return true
}

// holderFromStart returns the Holder of trace IDs[j]'s first change, read
// on its whole call trees from the start with the changes alike set aside;
// ok is false when its events are not at hand. The holder is of call
// subtrees, whatever the view's filter: it is read once per comparison.
func (n *NLR) holderFromStart(j int, alike map[uint64]uint64) (h [2]uint64, ok bool) {
	c := n.c
	keys := slices.Sorted(maps.Keys(alike))
	key := fmt.Sprint(j, keys)
	for _, k := range keys {
		key += fmt.Sprint(" ", alike[k])
	}
	c.holdersMu.Lock()
	h, ok = c.holders[key]
	c.holdersMu.Unlock()
	if ok {
		return h, true
	}
	wj, noEvents, err := n.whole(c.IDs[j])
	if err != nil || noEvents != nil {
		return h, false
	}
	wj.Alike = alike
	x := diffnlr.ExplainFirst(diffnlr.First{}, wj, 0, 0)
	if !x.Whole {
		return h, false
	}
	c.holdersMu.Lock()
	if c.holders == nil {
		c.holders = map[string][2]uint64{}
	}
	c.holders[key] = x.Holder
	c.holdersMu.Unlock()
	return x.Holder, true
}

// orderVaries notes, with further normal runs, a reordering that they
// show too (the program's own order), or calls that they make in either
// order where the change lies.
func (n *NLR) orderVaries(i int, x *diffnlr.Explanation) {
	calls := append(slices.Clone(x.Normal), x.Faulty...)
	if x.Kind != diffnlr.Reordered {
		if a, b, ok := n.Unordered(calls); ok {
			x.Unordered = [2][]trace.Symbol{a, b}
		}
		return
	}
	if _, _, ok := n.Unordered(calls); ok {
		x.OrderVaries = true
		return
	}
	for _, r := range n.c.Normals()[1:] {
		if !n.c.Has(r, i) {
			continue
		}
		g, ok := diffnlr.FirstDifference(n.Table, n.Seq(Normal, i), n.Seq(r, i))
		if !ok {
			continue
		}
		other := append(append(append(slices.Clone(g.Normal), g.Faulty...), g.NormalOrder...), g.FaultyOrder...)
		for _, s := range x.Normal {
			if slices.Contains(other, s) {
				x.OrderVaries = true
				return
			}
		}
	}
}

// Events returns every event of trace id in run r (calls and returns).
// For a run opened from its summary, the run summarised is read when it is
// at hand; otherwise the error wraps decode.ErrNoEvents.
func (c *Comparison) Events(r int, id trace.ID) ([]trace.Symbol, error) {
	if ec := c.events.Load(); ec != nil {
		ec.mu.Lock()
		defer ec.mu.Unlock()
		k := eventKey{r, id}
		if ev, ok := ec.m[k]; ok {
			return ev, nil
		}
		ev, err := c.readEvents(r, id)
		if err == nil {
			ec.m[k] = ev
		}
		return ev, err
	}
	return c.readEvents(r, id)
}

// eventCache holds the events of traces read once (Comparison.events).
type eventCache struct {
	mu sync.Mutex
	m  map[eventKey][]trace.Symbol
}

type eventKey struct {
	run int
	id  trace.ID
}

// KeepEvents has Events keep what it reads until done is called.
func (c *Comparison) KeepEvents() (done func()) {
	if !c.events.CompareAndSwap(nil, &eventCache{m: map[eventKey][]trace.Symbol{}}) {
		return func() {} // kept already, by an outer caller
	}
	return func() { c.events.Store(nil) }
}

func (c *Comparison) readEvents(r int, id trace.ID) ([]trace.Symbol, error) {
	run := c.eventsOf(r)
	if run == nil {
		return nil, fmt.Errorf("%s: %w, and the run it summarises is not at %s from here (work in the directory summarize ran in, or give the runs themselves)", c.sums[r].s.Dir, decode.ErrNoEvents, c.sums[r].s.Run.Dir)
	}
	var out []trace.Symbol
	err := run.Stream(id, func(chunk []trace.Symbol) error {
		out = append(out, chunk...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("rank: %w", err)
	}
	return out, nil
}

// quietPolling returns the polling calls whose stretches the NLRs under f
// read once each (see discoverers), or nil when they count every call.
func (c *Comparison) quietPolling(f *filters.Filter) func(trace.Symbol) bool {
	if c.opts.ExactPolling {
		return nil
	}
	pm := Polling().Compile(c.Symbols)
	m := f.Compile(c.Symbols)
	for s := range c.Symbols.Len() {
		if pm.Keep(trace.Symbol(s)) && m.Keep(trace.Symbol(s)) {
			return pm.Keep
		}
	}
	return nil
}

// labels names the symbols of a call stack.
func labels(tab *trace.Table, stack []trace.Symbol) []string {
	var out []string
	for _, s := range stack {
		out = append(out, tab.Label(s))
	}
	return out
}
