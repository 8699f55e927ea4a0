package nlr

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/difftrace/difftrace/trace"
)

// Packed is a Sequence in a compact form, for holding the NLRs of many
// traces at once: unsigned varints, the length first, then a symbol s as
// 2s and a loop as 2·Loop+1 followed by its count. An element takes one to
// three bytes where a Sequence takes twelve.
type Packed []byte

// Pack appends the packed form of s to b and returns it.
func Pack(b []byte, s Sequence) Packed {
	b = binary.AppendUvarint(b, uint64(len(s)))
	for _, e := range s {
		if e.IsLoop() {
			b = binary.AppendUvarint(b, uint64(uint32(e.Loop))<<1|1)
			b = binary.AppendUvarint(b, uint64(uint32(e.Count)))
		} else {
			b = binary.AppendUvarint(b, uint64(e.Sym)<<1)
		}
	}
	return b
}

// Len returns the number of elements of the packed sequence.
func (p Packed) Len() int {
	n, _ := binary.Uvarint(p)
	return int(n)
}

// Sequence returns the packed sequence, expanded (never nil). The bytes
// must be Pack's; anything else is an error.
func (p Packed) Sequence() (Sequence, error) { return p.AppendSequence(nil) }

// AppendSequence appends the sequence p holds to dst and returns the
// result: Sequence into a buffer of the caller's.
func (p Packed) AppendSequence(dst Sequence) (Sequence, error) {
	n, w := binary.Uvarint(p)
	if w <= 0 || n > uint64(len(p)) {
		return nil, fmt.Errorf("nlr: packed sequence of %d bytes has no valid length", len(p))
	}
	b := p[w:]
	out := slices.Grow(dst, int(n))
	if out == nil {
		out = Sequence{} // empty, not none
	}
	base := len(out)
	next := func() (uint64, bool) {
		v, w := binary.Uvarint(b)
		if w <= 0 {
			return 0, false
		}
		b = b[w:]
		return v, true
	}
	for range n {
		v, ok := next()
		if !ok {
			return nil, fmt.Errorf("nlr: packed sequence of %d bytes ends at element %d of %d", len(p), len(out)-base, n)
		}
		if v&1 == 0 {
			out = append(out, Element{Loop: NoLoop, Sym: trace.Symbol(v >> 1)})
			continue
		}
		c, ok := next()
		if !ok {
			return nil, fmt.Errorf("nlr: packed sequence of %d bytes ends in the count of element %d of %d", len(p), len(out)-base, n)
		}
		out = append(out, Element{Loop: int32(v >> 1), Count: int32(c)})
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("nlr: packed sequence of %d bytes has %d bytes after its %d elements", len(p), len(b), n)
	}
	return out, nil
}
