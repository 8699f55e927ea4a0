package nlr

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/difftrace/difftrace/trace"
)

// discovererVersion is the first byte of a marshalled Discoverer; it changes
// whenever the encoding does.
const discovererVersion = 1

// AppendBinary appends the sealed Discoverer d to b, as a trace summary
// keeps it (difftrace summarize): its K, whether it folded by call
// structure, its pass-1 NLR and that NLR's bodies. d must be sealed (Seal).
//
// The encoding is a version byte, then unsigned varints: K, the structural
// flag, the stack's length and keys, the number of bodies, and each body's
// length and keys. A key is a symbol s as 2s, or a loop (body ID, count) as
// (ID<<32 | count)<<1 | 1.
func (d *Discoverer) AppendBinary(b []byte) ([]byte, error) {
	if !d.sealed {
		return b, errors.New("nlr: only a sealed Discoverer can be marshalled (call Seal first)")
	}
	r := d.r
	structural := uint64(0)
	if d.structural {
		structural = 1
	}
	b = append(b, discovererVersion)
	b = binary.AppendUvarint(b, uint64(r.k))
	b = binary.AppendUvarint(b, structural)
	b = appendKeys(b, r.stack)
	n := r.own.len()
	b = binary.AppendUvarint(b, uint64(n))
	for id := range n {
		b = appendKeys(b, r.own.body(id))
	}
	return b, nil
}

func appendKeys(b []byte, keys []uint64) []byte {
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		if isLoopKey(k) {
			b = binary.AppendUvarint(b, (k&^loopBit)<<1|1)
		} else {
			b = binary.AppendUvarint(b, k<<1)
		}
	}
	return b
}

// UnmarshalDiscoverer reads a Discoverer that AppendBinary wrote, sealed,
// ready for Fold. sym maps each symbol of the encoding to the symbol it
// stands for in the comparison's table (the summary's table is its own);
// it returns false for a symbol it does not know.
func UnmarshalDiscoverer(b []byte, sym func(trace.Symbol) (trace.Symbol, bool)) (*Discoverer, error) {
	rd := keyReader{b: b}
	if len(b) == 0 || b[0] != discovererVersion {
		return nil, fmt.Errorf("nlr: a summary of a trace in an unknown encoding (version %d, want %d): summarize the run again with this version", firstByte(b), discovererVersion)
	}
	rd.off = 1
	k := rd.uvarint()
	structural := rd.uvarint()
	if rd.err == nil && (k < 1 || k > MaxK || structural > 1) {
		rd.fail("K or flags out of range")
	}
	stack := rd.keys(sym, -1)
	n := rd.uvarint()
	if rd.err == nil && n > uint64(len(b)) {
		rd.fail("more bodies than bytes")
	}
	if rd.err != nil {
		return nil, rd.err
	}
	own := &bodies{start: make([]int32, 1, n+1)}
	for id := range int32(n) {
		if rd.err != nil {
			break
		}
		body := rd.keys(sym, id)
		if rd.err == nil && len(body) == 0 {
			rd.fail(fmt.Sprintf("body %d is empty", id))
		}
		own.flat = append(own.flat, body...)
		own.start = append(own.start, int32(len(own.flat)))
	}
	if rd.err == nil {
		// Loops on the stack name bodies of this trace.
		for _, key := range stack {
			if isLoopKey(key) && keyID(key) >= int32(n) {
				rd.fail(fmt.Sprintf("the NLR names body %d of %d", keyID(key), n))
				break
			}
		}
	}
	if rd.err == nil && rd.off != len(b) {
		rd.fail(fmt.Sprintf("%d bytes after the end", len(b)-rd.off))
	}
	if rd.err != nil {
		return nil, rd.err
	}
	d := &Discoverer{r: &reducer{k: int(k), indexed: int(k) >= indexFrom, stack: stack, own: own},
		sealed: true, structural: structural == 1}
	return d, nil
}

func firstByte(b []byte) int {
	if len(b) == 0 {
		return -1
	}
	return int(b[0])
}

// keyReader reads the varints of a marshalled Discoverer; the first error
// sticks, with the byte offset where it arose.
type keyReader struct {
	b   []byte
	off int
	err error
}

func (rd *keyReader) fail(what string) {
	if rd.err == nil {
		rd.err = fmt.Errorf("nlr: damaged trace summary at byte %d: %s (summarize the run again)", rd.off, what)
	}
}

func (rd *keyReader) uvarint() uint64 {
	if rd.err != nil {
		return 0
	}
	v, n := binary.Uvarint(rd.b[rd.off:])
	if n <= 0 {
		rd.fail("truncated or overlong number")
		return 0
	}
	rd.off += n
	return v
}

// keys reads a length and that many keys. Loops in body id may only name
// bodies before it (below); on the stack (id < 0), any body.
func (rd *keyReader) keys(sym func(trace.Symbol) (trace.Symbol, bool), id int32) []uint64 {
	n := rd.uvarint()
	if rd.err == nil && n > uint64(len(rd.b)-rd.off) {
		rd.fail("more elements than bytes")
	}
	if rd.err != nil {
		return nil
	}
	out := make([]uint64, 0, n)
	for range n {
		v := rd.uvarint()
		if rd.err != nil {
			return nil
		}
		if v&1 == 1 {
			key := loopBit | v>>1
			if v>>1 >= loopBit || (id >= 0 && keyID(key) >= id) || keyCount(key) < 1 {
				rd.fail("a loop out of range")
				return nil
			}
			out = append(out, key)
			continue
		}
		s := v >> 1
		if s > uint64(^trace.Symbol(0)) {
			rd.fail("a symbol out of range")
			return nil
		}
		m, ok := sym(trace.Symbol(s))
		if !ok {
			rd.fail(fmt.Sprintf("symbol %d is not in the summary's table", s))
			return nil
		}
		out = append(out, symKey(m))
	}
	return out
}
