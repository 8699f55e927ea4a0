package filters

import (
	"slices"

	"github.com/difftrace/difftrace/trace"
)

// Mask is a Filter compiled against one symbol table: one keep flag per
// symbol, so filtering an event costs a table lookup, never a regexp.
// A Mask is read-only once compiled and safe for concurrent use; a trace's
// events must come from the table it was compiled against, after every name
// of the comparison was interned (a symbol beyond the mask panics).
type Mask struct {
	name    string
	keep    []uint8 // 1 = keep, indexed by Symbol; keep[Return] is 0
	returns bool
	kept    int
}

// Compile evaluates the filter on every name of t.
func (f *Filter) Compile(t *trace.Table) *Mask {
	m := &Mask{name: f.name, keep: make([]uint8, t.Len()), returns: f.returns}
	for s := 1; s < t.Len(); s++ {
		if f.KeepName(t.Name(trace.Symbol(s))) {
			m.keep[s] = 1
			m.kept++
		}
	}
	return m
}

// Name returns the name of the filter the mask was compiled from.
func (m *Mask) Name() string { return m.name }

// Keep reports whether calls of s are kept. Return is never kept here: the
// returns of kept calls, when the filter keeps them, are a matter of the
// call stack (see Stream).
func (m *Mask) Keep(s trace.Symbol) bool { return m.keep[s] != 0 }

// Len returns the number of symbols the mask covers (the table's Len when
// compiled).
func (m *Mask) Len() int { return len(m.keep) }

// Kept returns how many functions of the table the mask keeps.
func (m *Mask) Kept() int { return m.kept }

// Apply filters a whole trace's events into a new slice.
func (m *Mask) Apply(events []trace.Symbol) []trace.Symbol {
	return m.Stream().Append(nil, events)
}

// Stream returns a filter for one trace whose events arrive in chunks.
func (m *Mask) Stream() *Stream { return &Stream{m: m} }

// Stream applies a Mask to the events of one trace, chunk by chunk, as a
// decoder delivers them. It remembers only which open calls were kept, for
// filters that keep returns. A Stream is not safe for concurrent use.
type Stream struct {
	m    *Mask
	open []bool // per open call, whether it was kept (only when keeping returns)
}

// Append filters chunk, the next events of the trace, and appends the kept
// ones to dst. Without ret, returns are dropped; with ret, a Return is kept
// when it closes a kept call, and a Return that closes nothing is dropped.
func (st *Stream) Append(dst, chunk []trace.Symbol) []trace.Symbol {
	if st.m.returns {
		return st.appendWithReturns(dst, chunk)
	}
	keep := st.m.keep
	// Write every event and advance only over kept ones: no branch to
	// mispredict whatever the fraction kept.
	n := len(dst)
	dst = slices.Grow(dst, len(chunk))
	out := dst[:n+len(chunk)]
	for _, s := range chunk {
		out[n] = s
		n += int(keep[s])
	}
	return out[:n]
}

func (st *Stream) appendWithReturns(dst, chunk []trace.Symbol) []trace.Symbol {
	keep := st.m.keep
	for _, s := range chunk {
		if s == trace.Return {
			if k := len(st.open) - 1; k >= 0 {
				if st.open[k] {
					dst = append(dst, s)
				}
				st.open = st.open[:k]
			}
			continue
		}
		k := keep[s] != 0
		st.open = append(st.open, k)
		if k {
			dst = append(dst, s)
		}
	}
	return dst
}

// Nested returns a filter for one trace that keeps the nesting of the calls
// it keeps, for NLR folded by call structure (nlr.NewStructuralDiscoverer):
// see Nest.
func (m *Mask) Nested() *Nest { return &Nest{m: m} }

// Nest applies a Mask to the raw events of one trace, chunk by chunk, and
// keeps what the structure of the kept calls needs: every kept call with
// its return, and every call the mask drops that has a kept call below it,
// with its return, so that the kept calls keep their place in the nesting.
// A dropped call whose whole subtree is dropped leaves nothing, and a
// Return that closes no call is dropped. A Nest is not safe for concurrent
// use.
type Nest struct {
	m       *Mask
	open    []trace.Symbol // open[:depth] are the open calls, outermost first
	depth   int
	emitted int // open[:emitted] have been written out
}

// Append filters chunk, the next raw events of the trace, appends what is
// kept to dst, and returns dst and how many kept calls it appended.
func (st *Nest) Append(dst, chunk []trace.Symbol) ([]trace.Symbol, int) {
	keep := st.m.keep
	open, depth, emitted := st.open, st.depth, st.emitted
	kept := 0
	for _, s := range chunk {
		if s == trace.Return {
			if depth == 0 {
				continue
			}
			depth--
			if depth < emitted {
				emitted = depth
				dst = append(dst, trace.Return)
			}
			continue
		}
		if depth == len(open) {
			open = append(open, s)
		} else {
			open[depth] = s
		}
		depth++
		if keep[s] != 0 {
			// Its dropped callers not written yet go first.
			dst = append(dst, open[emitted:depth]...)
			emitted = depth
			kept++
		}
	}
	st.open, st.depth, st.emitted = open, depth, emitted
	return dst, kept
}
