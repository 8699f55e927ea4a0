package nlr

import (
	"math"
	"math/bits"

	"github.com/difftrace/difftrace/trace"
)

// Expand appends to dst the symbol sequence s stands for, every loop
// unrolled: the inverse of recognition, so Expand of a trace's NLR is the
// trace. It fails if s mentions a loop the table does not have.
func (t *Table) Expand(dst []trace.Symbol, s Sequence) ([]trace.Symbol, error) {
	if err := t.valid(s); err != nil {
		return dst, err
	}
	return t.expand(dst, s), nil
}

func (t *Table) expand(dst []trace.Symbol, s Sequence) []trace.Symbol {
	for _, e := range s {
		if !e.IsLoop() {
			dst = append(dst, e.Sym)
			continue
		}
		// Unroll the first iteration, then copy it.
		from := len(dst)
		dst = t.expand(dst, t.bodies[e.Loop])
		one := dst[from:]
		for range e.Count - 1 {
			dst = append(dst, one...)
			one = dst[from : from+len(one)]
		}
	}
	return dst
}

// Iterations returns how many loop iterations a trace completed: a loop
// L^c counts c, and every loop in its body counts c times over. It measures
// progress: a rank that hung after 7 of 16 iterations of L1 has 7 where its
// normal run has 16. The count saturates at the largest uint64.
func (t *Table) Iterations(s Sequence) uint64 {
	var n uint64
	for _, e := range s {
		if e.IsLoop() {
			n = satAdd(n, satMul(uint64(e.Count), satAdd(1, t.inner[e.Loop])))
		}
	}
	return n
}

// countInner fills t.inner and t.calls: the iterations completed and the
// calls made inside one iteration of each loop, in ascending ID order since
// a body only mentions smaller IDs.
func (t *Table) countInner() {
	t.inner = make([]uint64, len(t.bodies))
	t.calls = make([]uint64, len(t.bodies))
	for id, body := range t.bodies {
		var n uint64
		for _, e := range body {
			if e.IsLoop() {
				n = satAdd(n, satMul(uint64(e.Count), satAdd(1, t.inner[e.Loop])))
			}
		}
		t.inner[id] = n
		t.calls[id] = t.Calls(body)
	}
}

// LoopIterations returns, for every loop ID of the table, how many
// iterations of it the trace completed, nested executions included: in
// "L1^4" with L1 = [a, L0^3], L0 completed 12 and L1 4.
func (t *Table) LoopIterations(s Sequence) []uint64 {
	n := make([]uint64, len(t.bodies))
	for _, e := range s {
		if e.IsLoop() {
			n[e.Loop] = satAdd(n[e.Loop], uint64(e.Count))
		}
	}
	// A body only mentions smaller IDs: pushing counts down in descending
	// ID order reaches every loop after all that hold it.
	for id := len(t.bodies) - 1; id >= 0; id-- {
		if n[id] == 0 {
			continue
		}
		for _, e := range t.bodies[id] {
			if e.IsLoop() {
				n[e.Loop] = satAdd(n[e.Loop], satMul(n[id], uint64(e.Count)))
			}
		}
	}
	return n
}

func satAdd(a, b uint64) uint64 {
	s, c := bits.Add64(a, b, 0)
	if c != 0 {
		return math.MaxUint64
	}
	return s
}

func satMul(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return math.MaxUint64
	}
	return lo
}

// Calls returns how many calls s stands for: its symbols, every loop
// unrolled (what Expand would append), saturating at the largest uint64.
func (t *Table) Calls(s Sequence) uint64 {
	var n uint64
	for _, e := range s {
		if e.IsLoop() {
			n = satAdd(n, satMul(uint64(e.Count), t.calls[e.Loop]))
		} else {
			n = satAdd(n, 1)
		}
	}
	return n
}

// BodyCalls returns how many calls one iteration of loop id stands for.
func (t *Table) BodyCalls(id int32) uint64 { return t.calls[id] }
