package nlr

import (
	"github.com/difftrace/difftrace/trace"
)

// Folding by call structure.
//
// A trace holds calls and returns, so each call's body is a sequence of its
// own: the calls it made, each with its own body. A structural Discoverer
// reduces every call's body within the call (the rules of Procedure 1
// never reach across its start) and, when the call returns, hands its
// caller one unit: the call itself if the filter keeps it, followed by its
// reduced body. A unit of one element goes on as that element; a longer one
// goes on as one token (a loop of one iteration whose body is the unit), so
// that at the caller's level a time step of any length is one element, and
// three equal steps make a loop as three equal calls do. K keeps its
// meaning for flat repeats. A call the filter drops still gives its kept
// descendants their place in the nesting: its unit is its body.
//
// Tokens live only while loops are found: Fold splices every token that
// did not repeat back into its place, and gives every loop whose body is
// one token that unit as its body (expander), so the result reads as a
// flat NLR whose loop bodies may be long.

// frame is a call whose return has not been seen yet.
type frame struct {
	floor int // where its body starts on the reducer's stack
	sym   trace.Symbol
	kept  bool
	from  int // the caller's polling stretch starts at stretch[from]
}

// QuietPolling makes a structural Discoverer read every stretch of polling
// calls (those poll is true of) as the calls it holds, once each, in order
// of first appearance: MPI_Test, MPI_Test, MPI_Test and MPI_Test alike. A
// stretch is the polling calls kept one after another at one level of the
// nesting; a call in between that the filter drops and that keeps nothing
// below it does not end it. How long a thread polled says how long it
// waited, not what it did, and it varies from run to run.
func (d *Discoverer) QuietPolling(poll func(trace.Symbol) bool) { d.poll = poll }

// pushCall pushes a kept call that is a unit of its own (a leaf).
func (d *Discoverer) pushCall(s trace.Symbol) {
	if d.poll != nil && !d.polled(s) {
		return
	}
	d.r.push(symKey(s))
}

// polled notes that the unit s (a call) comes next at the current level,
// and reports whether it is to be pushed: not when it is a polling call
// the current stretch already holds.
func (d *Discoverer) polled(s trace.Symbol) bool {
	if s == trace.Return || !d.poll(s) {
		d.stretch = d.stretch[:d.from]
		return true
	}
	for _, x := range d.stretch[d.from:] {
		if x == s {
			return false
		}
	}
	d.stretch = append(d.stretch, s)
	return true
}

// unitPushed notes that a unit other than a lone call came next at the
// current level: it ends the polling stretch.
func (d *Discoverer) unitPushed() {
	if d.poll != nil {
		d.stretch = d.stretch[:d.from]
	}
}

// NewStructuralDiscoverer returns a Discoverer that folds by call
// structure: it takes a trace's raw events (calls and returns, PushEvents),
// keeps the calls for which keep is true, and with returns set also keeps
// the returns of kept calls, as a filter that keeps returns would.
func NewStructuralDiscoverer(k int, keep func(trace.Symbol) bool, returns bool) (*Discoverer, error) {
	d, err := NewDiscoverer(k)
	if err != nil {
		return nil, err
	}
	d.keep, d.returns = keep, returns
	return d, nil
}

// PushEvents feeds the next raw events of the trace (a call's symbol, or
// trace.Return) to a structural Discoverer.
func (d *Discoverer) PushEvents(events []trace.Symbol) {
	for i := 0; i < len(events); i++ {
		s := events[i]
		if s != trace.Return && !d.returns && i+1 < len(events) && events[i+1] == trace.Return {
			// A leaf call, the commonest event: its unit is itself, or
			// nothing, with no frame to open and close.
			if d.keep(s) {
				d.pushCall(s)
			}
			i++
			continue
		}
		if s != trace.Return {
			d.frames = append(d.frames, frame{floor: len(d.r.stack), sym: s, kept: d.keep(s), from: d.from})
			d.r.floor = len(d.r.stack)
			d.from = len(d.stretch)
			continue
		}
		if len(d.frames) > 0 { // a return with no open call stands for nothing
			d.pop(true)
		}
	}
}

// pop ends the innermost open call (returned: its return was seen) and
// hands its unit to its caller.
func (d *Discoverer) pop(returned bool) {
	f := d.frames[len(d.frames)-1]
	d.frames = d.frames[:len(d.frames)-1]
	if d.poll != nil {
		d.stretch, d.from = d.stretch[:d.from], f.from
	}
	r := d.r
	parent := 0
	if len(d.frames) > 0 {
		parent = d.frames[len(d.frames)-1].floor
	}
	// The common cases need no unit: a leaf call, and a dropped call whose
	// body reduced to at most one element, which stays where it is and
	// now reduces against its caller's body.
	switch n := len(r.stack) - f.floor; {
	case n == 0 && f.kept && !d.returns:
		r.floor = parent
		d.pushCall(f.sym)
		return
	case !f.kept && n <= 1:
		r.floor = parent
		if n == 1 {
			if top := r.stack[len(r.stack)-1]; d.poll != nil {
				if isLoopKey(top) {
					d.unitPushed()
				} else if !d.polled(trace.Symbol(top)) {
					r.truncate(len(r.stack) - 1)
					return
				}
			}
			for r.reduceOnce() {
			}
		}
		return
	}
	u := d.unit[:0]
	if f.kept {
		u = append(u, symKey(f.sym))
	}
	u = append(u, r.stack[f.floor:]...)
	if f.kept && d.returns && returned {
		u = append(u, symKey(trace.Return))
	}
	r.truncate(f.floor)
	r.floor = parent
	switch len(u) {
	case 0:
	case 1:
		if d.poll != nil && !isLoopKey(u[0]) && !d.polled(trace.Symbol(u[0])) {
			break
		}
		if isLoopKey(u[0]) {
			d.unitPushed()
		}
		r.push(u[0])
	default:
		d.unitPushed()
		r.push(loopKey(r.record(u), 1))
	}
	d.unit = u
}

// finish ends the calls still open at the end of the trace (a thread that
// was killed or hung inside them), innermost first.
func (d *Discoverer) finish() {
	for len(d.frames) > 0 {
		d.pop(false)
	}
	d.r.floor = 0
}

// expander turns bodies with tokens (loops of one iteration) into the
// result of Fold: every token spliced in place, every loop whose body is
// a single token given the token's body. Its output bodies are interned
// anew, so equal expansions are one loop.
type expander struct {
	in, out *bodies
	final   map[int32]int32 // loop in → loop out
	lens    map[int32]int   // token in → the length it expands to
	scratch []byte
}

func newExpander(in *bodies) *expander {
	return &expander{in: in, out: newBodies(), final: map[int32]int32{}, lens: map[int32]int{}}
}

// reset makes x expand the bodies in, forgetting what it knew of others;
// its output bodies stay.
func (x *expander) reset(in *bodies) {
	x.in = in
	clear(x.final)
	clear(x.lens)
}

// all returns keys expanded, in a slice of the right size.
func (x *expander) all(keys []uint64) []uint64 {
	return x.expand(make([]uint64, 0, x.size(keys)), keys)
}

// size returns the length keys expand to.
func (x *expander) size(keys []uint64) int {
	n := 0
	for _, k := range keys {
		if !isLoopKey(k) || keyCount(k) != 1 {
			n++
			continue
		}
		id := keyID(k)
		l, ok := x.lens[id]
		if !ok {
			l = x.size(x.in.body(id))
			x.lens[id] = l
		}
		n += l
	}
	return n
}

// expand appends keys to dst, expanded.
func (x *expander) expand(dst, keys []uint64) []uint64 {
	for _, k := range keys {
		if !isLoopKey(k) {
			dst = append(dst, k)
			continue
		}
		if keyCount(k) == 1 {
			dst = x.expand(dst, x.in.body(keyID(k)))
			continue
		}
		dst = append(dst, loopKey(x.loop(keyID(k)), keyCount(k)))
	}
	return dst
}

// loop returns the output ID of loop id.
func (x *expander) loop(id int32) int32 {
	if f, ok := x.final[id]; ok {
		return f
	}
	body := x.in.body(id)
	if len(body) == 1 && isLoopKey(body[0]) && keyCount(body[0]) == 1 {
		body = x.in.body(keyID(body[0])) // [T]^n: the unit T, n times
	}
	f := x.out.intern(x.all(body), &x.scratch)
	x.final[id] = f
	return f
}
