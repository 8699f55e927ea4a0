package filters

import (
	"fmt"
	"math/bits"
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

// Nests applies several masks to the raw events of one trace, for NLR
// folded by call structure (nlr.NewStructuralDiscoverer): for each mask it
// keeps every kept call with its return, and every call the mask drops
// that has a kept call below it, with its return, so that the kept calls
// keep their place in the nesting. A dropped call whose whole subtree is
// dropped leaves nothing, and a return that closes no call is dropped.
//
// It does so for all the masks in one pass: the depth and the open calls are the same
// for every mask, and a table of which masks keep each symbol, with, per
// open call, which masks wrote it out, leaves only the rare events — a
// call some mask keeps, a return that closes a call some mask wrote out —
// to a slower path. At most 64 masks. Nests is not safe for concurrent use.
type Nests struct {
	masks   []*Mask
	keeps   []uint64       // per symbol: the masks that keep it, a bit each
	open    []trace.Symbol // open[:depth] are the open calls
	written []uint64       // per open call: the masks that wrote it out
	depth   int
	emitted []int // per mask: open[:emitted[f]] are written out
	// Out and Kept are, after Append, each mask's events and how many
	// kept calls they hold, for the chunk.
	Out  [][]trace.Symbol
	Kept []int
}

// NewNests returns a filter of raw events for the masks (at most 64, all
// compiled from one table).
func NewNests(masks []*Mask) (*Nests, error) {
	if len(masks) > 64 {
		return nil, fmt.Errorf("filters: %d filters at once; at most 64", len(masks))
	}
	n := &Nests{masks: masks, emitted: make([]int, len(masks)), Out: make([][]trace.Symbol, len(masks)), Kept: make([]int, len(masks))}
	if len(masks) > 0 {
		n.keeps = make([]uint64, len(masks[0].keep))
	}
	for f, m := range masks {
		if len(m.keep) != len(n.keeps) {
			return nil, fmt.Errorf("filters: masks compiled from different symbol tables")
		}
		for s, k := range m.keep {
			n.keeps[s] |= uint64(k) << f
		}
	}
	return n, nil
}

// Reset readies n for another trace of the same masks, keeping the room
// its buffers have grown.
func (n *Nests) Reset() {
	n.depth = 0
	for f := range n.emitted {
		n.emitted[f] = 0
	}
}

// Append filters chunk, the next raw events of the trace, for every mask
// into Out and Kept.
func (n *Nests) Append(chunk []trace.Symbol) {
	for f := range n.Out {
		n.Out[f], n.Kept[f] = n.Out[f][:0], 0
	}
	keeps, open, written, depth := n.keeps, n.open, n.written, n.depth
	for i, s := range chunk {
		if depth >= len(open) {
			open = append(open, make([]trace.Symbol, len(open)+64)...)
			written = append(written, make([]uint64, len(written)+64)...)
			n.open, n.written = open, written
		}
		open[depth] = s
		if s != trace.Return {
			written[depth] = 0
			if keeps[s] != 0 {
				n.depth = depth
				n.keptCall(chunk[i])
			}
			depth++
			continue
		}
		if depth == 0 {
			continue // a return that closes nothing
		}
		depth--
		if w := written[depth]; w != 0 {
			n.closeWritten(w, depth)
		}
	}
	n.depth = depth
}

// keptCall writes out the call s at depth n.depth for every mask that
// keeps it, after its callers the mask has not written out yet.
//
//go:noinline
func (n *Nests) keptCall(s trace.Symbol) {
	d := n.depth
	for bits := n.keeps[s]; bits != 0; bits &= bits - 1 {
		f := bitIndex(bits)
		from := n.emitted[f]
		n.Out[f] = append(n.Out[f], n.open[from:d+1]...)
		for j := from; j <= d; j++ {
			n.written[j] |= 1 << f
		}
		n.emitted[f] = d + 1
		n.Kept[f]++
	}
}

// closeWritten writes a return for every mask in w, which wrote out the
// call at depth d that has just returned.
//
//go:noinline
func (n *Nests) closeWritten(w uint64, d int) {
	for bits := w; bits != 0; bits &= bits - 1 {
		f := bitIndex(bits)
		n.Out[f] = append(n.Out[f], trace.Return)
		n.emitted[f] = d
	}
	n.written[d] = 0
}

func bitIndex(x uint64) int { return bits.TrailingZeros64(x) }
