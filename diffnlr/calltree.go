package diffnlr

import (
	"slices"

	"github.com/difftrace/difftrace/trace"
)

// call is one call of a whole trace, seen from its caller: the function,
// a hash of its whole subtree (the function, then its callees' hashes in
// order, then whether it returned), where its events lie, and how many
// calls it stands for.
type call struct {
	sym trace.Symbol
	// hash is equal for two calls that made the same calls, at every
	// depth, and both returned or both did not.
	hash uint64
	// start is the event that calls it; end the event that returns from
	// it, or the number of events when the trace ends inside it (open).
	start, end int
	open       bool
	// calls counts the calls of the subtree, its own included; kept those
	// of them a filter keeps.
	calls, kept int
}

// inside returns the events a call's callees lie in.
func (c call) inside() (from, to int) { return c.start + 1, c.end }

// rootCall stands for the thread itself: its callees are the calls made
// outside any other.
func rootCall(events []trace.Symbol) call {
	return call{sym: trace.Return, start: -1, end: len(events)}
}

// callees returns the calls made directly in events[from:to] (the inside
// of one call), each with its subtree hashed, in one pass. A return that
// closes no call there is passed over, as a trace that begins inside a
// call would have one; calls still open at to are open. keep, if not nil,
// says which calls a filter keeps (call.kept).
func callees(events []trace.Symbol, from, to int, keep func(trace.Symbol) bool) []call {
	type frame struct {
		c call
		h uint64
	}
	var out []call
	var stack []frame
	close := func(end int, open bool) {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		f.c.end, f.c.open = end, open
		mark := uint64(0x72657475) // returned
		if open {
			mark = 0x6f70656e
		}
		f.c.hash = mix(f.h, mark)
		if len(stack) == 0 {
			out = append(out, f.c)
			return
		}
		p := &stack[len(stack)-1]
		p.h = mix(p.h, f.c.hash)
		p.c.calls += f.c.calls
		p.c.kept += f.c.kept
	}
	for i := from; i < to; i++ {
		s := events[i]
		if s == trace.Return {
			if len(stack) > 0 {
				close(i, false)
			}
			continue
		}
		f := frame{c: call{sym: s, start: i, calls: 1}, h: mix(0x63616c6c, uint64(s))}
		if keep != nil && keep(s) {
			f.c.kept = 1
		}
		stack = append(stack, f)
	}
	for len(stack) > 0 {
		close(to, true)
	}
	return out
}

// mix folds x into the hash h (the finaliser of splitmix64).
func mix(h, x uint64) uint64 {
	h ^= x + 0x9e3779b97f4a7c15 + h<<6 + h>>2
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// openAt returns the calls open at event a (a call event), outermost
// first, a's own call last: the start events of the frames that hold it.
func openAt(events []trace.Symbol, a int) []int {
	var stack []int
	for i := 0; i < a; i++ {
		if events[i] == trace.Return {
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			continue
		}
		stack = append(stack, i)
	}
	return append(stack, a)
}

// units walks the calls of a trace that a view counts: those its filter
// keeps, where a stretch of polling calls at one depth counts each
// function once, as the view's NLR reads it.
type units struct {
	events     []trace.Symbol
	keep, poll func(trace.Symbol) bool
	i, depth   int
	stretch    [][]trace.Symbol // polling calls of the current stretch, per depth
}

// next returns the event of the next call counted, or -1 at the end.
func (u *units) next() int {
	for ; u.i < len(u.events); u.i++ {
		s := u.events[u.i]
		if s == trace.Return {
			if u.depth > 0 {
				u.depth--
			}
			continue
		}
		d := u.depth
		u.depth++
		if u.keep != nil && !u.keep(s) {
			continue
		}
		for len(u.stretch) <= d+1 {
			u.stretch = append(u.stretch, nil)
		}
		u.stretch[d+1] = u.stretch[d+1][:0] // a new call begins a level of its own
		if u.poll != nil && u.poll(s) {
			if slices.Contains(u.stretch[d], s) {
				continue
			}
			u.stretch[d] = append(u.stretch[d], s)
		} else {
			u.stretch[d] = u.stretch[d][:0]
		}
		u.i++
		return u.i - 1
	}
	return -1
}

// keptCall returns the event of the k-th call (from 0) a view counts
// (units), or -1 when there are fewer.
func keptCall(events []trace.Symbol, keep, poll func(trace.Symbol) bool, k uint64) int {
	u := units{events: events, keep: keep, poll: poll}
	for n := uint64(0); ; n++ {
		at := u.next()
		if at < 0 || n == k {
			return at
		}
	}
}

// commonUnits counts the calls two traces make alike, as a view counts
// them, before they part.
func commonUnits(a, b []trace.Symbol, keep, poll func(trace.Symbol) bool) uint64 {
	ua := units{events: a, keep: keep, poll: poll}
	ub := units{events: b, keep: keep, poll: poll}
	var n uint64
	for {
		i, j := ua.next(), ub.next()
		if i < 0 || j < 0 || a[i] != b[j] {
			return n
		}
		n++
	}
}

// KeptDepths returns, for every call a view counts in events (in order, as
// units walks them: those keep keeps, a stretch of polling calls once
// each), how many calls the view keeps enclose it: 0 for a call no kept
// call holds. keep nil keeps every call; poll nil counts every polling
// call. A picture reads these to name the outermost calls of a long
// changed stretch (Picture.Depth).
func KeptDepths(events []trace.Symbol, keep, poll func(trace.Symbol) bool) []int32 {
	u := units{events: events, keep: keep, poll: poll}
	var out []int32
	var kept []bool // per open call: whether the view keeps it
	n := int32(0)   // kept calls open
	i := 0          // events before i are accounted for in kept and n
	for at := u.next(); at >= 0; at = u.next() {
		for ; i < at; i++ {
			if events[i] == trace.Return {
				if len(kept) > 0 {
					if kept[len(kept)-1] {
						n--
					}
					kept = kept[:len(kept)-1]
				}
				continue
			}
			k := keep == nil || keep(events[i])
			kept = append(kept, k)
			if k {
				n++
			}
		}
		out = append(out, n)
	}
	return out
}
