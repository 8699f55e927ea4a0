package nlr

import "fmt"

// Table is the loop table of a comparison: every loop body found in any of
// its traces, numbered canonically (see Fold). A body only mentions loops
// with smaller IDs, so bodies can be read, printed and expanded in ID order.
// A Table is read-only and safe for concurrent use.
type Table struct {
	bodies []Sequence
	index  map[string]int32
	inner  []uint64 // iterations inside one iteration of each loop
	calls  []uint64 // calls one iteration of each loop stands for
}

// Len returns the number of loops; IDs run from 0 to Len()-1.
func (t *Table) Len() int { return len(t.bodies) }

// Body returns the body of loop id. The caller must not modify it.
func (t *Table) Body(id int32) Sequence { return t.bodies[id] }

// Lookup returns the ID of the loop whose body is body.
func (t *Table) Lookup(body Sequence) (int32, bool) {
	var scratch []byte
	id, ok := t.index[string(encodeKeys(&scratch, body.keys()))]
	return id, ok
}

// valid reports whether every loop a sequence mentions is in the table.
func (t *Table) valid(s Sequence) error {
	for i, e := range s {
		if e.IsLoop() && (e.Loop < 0 || int(e.Loop) >= len(t.bodies) || e.Count < 1) {
			return fmt.Errorf("nlr: element %d is loop L%d^%d, not in a table of %d loops", i, e.Loop, e.Count, len(t.bodies))
		}
	}
	return nil
}

// key returns the element as a reducer key.
func (e Element) key() uint64 {
	if e.IsLoop() {
		return loopKey(e.Loop, e.Count)
	}
	return symKey(e.Sym)
}

func (s Sequence) keys() []uint64 {
	ks := make([]uint64, len(s))
	for i, e := range s {
		ks[i] = e.key()
	}
	return ks
}

// Equal reports whether two elements are the same symbol, or loops with the
// same body and count.
func (e Element) Equal(o Element) bool {
	if e.IsLoop() || o.IsLoop() {
		return e.Loop == o.Loop && e.Count == o.Count
	}
	return e.Sym == o.Sym
}

// Equal reports whether two sequences have equal elements in the same order.
func (s Sequence) Equal(o Sequence) bool {
	if len(s) != len(o) {
		return false
	}
	for i := range s {
		if !s[i].Equal(o[i]) {
			return false
		}
	}
	return true
}
