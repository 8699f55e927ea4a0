package nlr

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/difftrace/difftrace/trace"
)

// While loops are being found, an element is a uint64 key, so that element
// equality (same symbol, or same body and count) is one comparison: a symbol
// is its value; a loop has the top bit set, the body's ID in bits 32–62 and
// the count in bits 0–31.
const (
	loopBit  = uint64(1) << 63
	maxCount = math.MaxInt32
	maxID    = math.MaxInt32
)

func symKey(s trace.Symbol) uint64     { return uint64(s) }
func loopKey(id, count int32) uint64   { return loopBit | uint64(id)<<32 | uint64(uint32(count)) }
func isLoopKey(k uint64) bool          { return k&loopBit != 0 }
func keyID(k uint64) int32             { return int32(k >> 32 & maxID) }
func keyCount(k uint64) int32          { return int32(uint32(k)) }
func withID(k uint64, id int32) uint64 { return loopKey(id, keyCount(k)) }

// bodies is a set of loop bodies numbered in the order they are added.
type bodies struct {
	flat  []uint64 // all bodies, one after another
	start []int32  // body i is flat[start[i]:start[i+1]]
	index map[string]int32
}

func newBodies() *bodies { return &bodies{start: []int32{0}, index: map[string]int32{}} }

func (bs *bodies) len() int32 { return int32(len(bs.start) - 1) }

func (bs *bodies) body(id int32) []uint64 { return bs.flat[bs.start[id]:bs.start[id+1]] }

// lookup returns the ID of body; scratch is reused for the map key.
func (bs *bodies) lookup(body []uint64, scratch *[]byte) (int32, bool) {
	id, ok := bs.index[string(encodeKeys(scratch, body))]
	return id, ok
}

// add records body (which must be new) and returns its ID.
func (bs *bodies) add(body []uint64, scratch *[]byte) int32 {
	id := bs.len()
	bs.index[string(encodeKeys(scratch, body))] = id
	bs.flat = append(bs.flat, body...)
	bs.start = append(bs.start, int32(len(bs.flat)))
	return id
}

// intern returns the ID of body, adding it if it is new.
func (bs *bodies) intern(body []uint64, scratch *[]byte) int32 {
	if id, ok := bs.lookup(body, scratch); ok {
		return id
	}
	return bs.add(body, scratch)
}

func encodeKeys(scratch *[]byte, keys []uint64) []byte {
	b := (*scratch)[:0]
	for _, k := range keys {
		b = binary.LittleEndian.AppendUint64(b, k)
	}
	*scratch = b
	return b
}

// reducer is the stack machine of Procedure 1 for one trace. After every
// push it reduces the top of the stack until nothing changes, trying for
// b = 1 … K in turn:
//
//	(a) the element b+1 from the top is a loop whose body is the top b
//	    elements: pop them and count one more iteration;
//	(b) the top 3·b elements are three equal blocks: replace them by the
//	    loop (block, 3) and record the block as a body;
//	(c) only when fold2 is set (pass 2): the top 2·b elements are two equal
//	    blocks and the block is a known body: replace them by (block, 2).
//
// Loop IDs below base name the shared bodies (read-only, pass 2); the
// reducer numbers the bodies it finds itself from base on.
//
// Most pushes match nothing, so finding the b worth trying is the hot
// loop. With K below indexFrom, reduceOnce scans every b, looking at two
// things per b: whether the element b below the top equals the top
// (the cheap test before (b) and (c)), and the body length of that element
// kept beside the stack in lens, so (a) needs the body only when the length
// fits.
type reducer struct {
	k       int
	fold2   bool
	floor   int // the rules never reach below this position (the open call's content starts there)
	stack   []uint64
	lens    []uint16 // body length of each loop on the stack, 0 for a symbol
	shared  *bodies
	base    int32
	own     *bodies
	cache   *[cacheSize]int32 // recently used bodies by hash: ID+1, 0 = empty (nil once sealed)
	scratch []byte

	// With a large K, scanning every b per push costs too much; the
	// reducer then indexes the stack instead and visits only the b worth
	// trying: positions holding an element equal to the top (chained by
	// hash through prev, highest first from head) and positions holding a
	// loop whose body would end at the top (chained through dueNext,
	// highest first from dueHead). Both chains are stacks: elements leave
	// the stack highest first, so unlinking restores the heads. dueHead is
	// a ring of K+1 slots, by end position mod K+1: a loop in the window
	// (at most K below the top) whose end shares the top's slot ends at
	// the top, since bodies are 1…K long.
	indexed bool
	head    []int32 // per hash of a key, the highest position holding it, or -1
	prev    []int32 // per position, the next lower position with the same hash, or -1
	dueHead []int32 // per end position t mod K+1, the highest loop whose body would end at t, or -1
	dueNext []int32 // per position of a loop, the next lower loop due at the same t, or -1
}

// indexFrom is the smallest K for which a reducer indexes its stack; below
// it the plain scan is faster. Tests lower it to check both ways agree.
var indexFrom = 24

const headBits = 12

func hashSlot(k uint64) int { return int((k * 0x9e3779b97f4a7c15) >> (64 - headBits)) }

// MaxK is the longest loop body NLR can look for. The cost grows with K².
const MaxK = 10000

const cacheSize = 512

func newReducer(k int, shared *bodies) *reducer {
	r := &reducer{k: k, own: newBodies(), shared: shared, cache: new([cacheSize]int32)}
	if shared != nil {
		r.fold2 = true
		r.base = shared.len()
	}
	if k >= indexFrom {
		r.indexed = true
		r.head = make([]int32, 1<<headBits)
		for i := range r.head {
			r.head[i] = -1
		}
		r.dueHead = make([]int32, k+1)
		for i := range r.dueHead {
			r.dueHead[i] = -1
		}
	}
	return r
}

func (r *reducer) body(id int32) []uint64 {
	if id < r.base {
		return r.shared.body(id)
	}
	return r.own.body(id - r.base)
}

// cacheSlot hashes a block of keys to a slot of the body cache.
func cacheSlot(keys []uint64) int {
	h := uint64(len(keys))
	for _, k := range keys {
		h = (h ^ k) * 0x9e3779b97f4a7c15
	}
	return int(h >> 55) // 9 bits: cacheSize
}

// known returns the ID of a body in the shared table or found by this
// reducer.
func (r *reducer) known(body []uint64) (int32, bool) {
	slot := cacheSlot(body)
	if c := r.cache[slot]; c != 0 && slices.Equal(r.body(c-1), body) {
		return c - 1, true
	}
	id, ok := int32(0), false
	if r.shared != nil {
		id, ok = r.shared.lookup(body, &r.scratch)
	}
	if !ok {
		id, ok = r.own.lookup(body, &r.scratch)
		id += r.base
	}
	if ok {
		r.cache[slot] = id + 1
	}
	return id, ok
}

// record returns the ID of a body that has just formed a loop, adding it to
// this reducer's own bodies if it is not known yet.
func (r *reducer) record(body []uint64) int32 {
	if id, ok := r.known(body); ok {
		return id
	}
	if int64(r.base)+int64(r.own.len()) >= maxID {
		panic("nlr: more than 2^31-1 distinct loop bodies")
	}
	id := r.own.add(body, &r.scratch) + r.base
	r.cache[cacheSlot(body)] = id + 1
	return id
}

// push adds one element and reduces.
func (r *reducer) push(x uint64) {
	r.append(x)
	for r.reduceOnce() {
	}
}

// append puts x on the stack without reducing.
func (r *reducer) append(x uint64) {
	var l uint16
	if isLoopKey(x) {
		l = uint16(min(len(r.body(keyID(x))), math.MaxUint16)) // a longer body never matches a block of ≤ K
	}
	n := len(r.stack)
	if n == cap(r.stack) {
		// Double: append's growth by 1.25 for large slices copies a
		// long trace's stack several times over.
		r.reserve(max(n, 1024))
	}
	r.stack = append(r.stack, x)
	r.lens = append(r.lens, l)
	if r.indexed {
		r.index(n)
	}
}

// reserve makes room for n more elements.
func (r *reducer) reserve(n int) {
	r.stack = slices.Grow(r.stack, n)
	r.lens = slices.Grow(r.lens, n)
	if r.indexed {
		r.prev = slices.Grow(r.prev, n)
		r.dueNext = slices.Grow(r.dueNext, n)
	}
}

// index records the element at the top position p in the stack's index.
func (r *reducer) index(p int) {
	h := hashSlot(r.stack[p])
	r.prev = append(r.prev, r.head[h])
	r.head[h] = int32(p)
	next := int32(-1)
	if l := r.lens[p]; l != 0 {
		t := (p + int(l)) % len(r.dueHead)
		next, r.dueHead[t] = r.dueHead[t], int32(p)
	}
	r.dueNext = append(r.dueNext, next)
}

// replace makes the stack its first m elements followed by the loop key x
// with a body of l elements.
func (r *reducer) replace(m int, x uint64, l uint16) {
	r.truncate(m)
	r.stack, r.lens = append(r.stack, x), append(r.lens, l)
	if r.indexed {
		r.index(m)
	}
}

// truncate cuts the stack to its first m elements.
func (r *reducer) truncate(m int) {
	if r.indexed {
		for p := len(r.stack) - 1; p >= m; p-- {
			r.head[hashSlot(r.stack[p])] = r.prev[p]
			if pl := r.lens[p]; pl != 0 {
				r.dueHead[(p+int(pl))%len(r.dueHead)] = r.dueNext[p]
			}
		}
		r.prev, r.dueNext = r.prev[:m], r.dueNext[:m]
	}
	r.stack, r.lens = r.stack[:m], r.lens[:m]
}

// fold runs pass 2 over the result of pass 1, whose keys are already in
// shared IDs. It works in place: its stack never holds more elements than
// it has read, so it takes over pass 1's arrays.
//
// Until a rule fires, the stack is pass 1's result, on which (a) and (b)
// found nothing; and once 3·K elements have gone on unchanged since the
// last rule fired, the window the rules look at is again one pass 1 saw.
// There only (c) can fire, and only when the top element ends a known
// body: every other push just appends. ends holds the last element of
// every shared body (see endsOf).
func (r *reducer) fold(pass1 *reducer, ends endSet) {
	in := pass1.stack
	r.stack, r.lens = in[:0], pass1.lens[:0]
	if r.indexed {
		r.prev, r.dueNext = pass1.prev[:0], pass1.dueNext[:0]
	}
	window := 3 * r.k
	clean := window // elements on top pushed since the last rule fired
	for _, x := range in {
		if clean >= window && !ends.has(x) {
			r.append(x)
			continue
		}
		n := r.own.len()
		r.append(x)
		fired := false
		for r.reduceOnce() {
			fired = true
		}
		for id := n; id < r.own.len(); id++ {
			b := r.own.body(id)
			ends.add(b[len(b)-1])
		}
		if fired {
			clean = 0
		} else {
			clean++
		}
	}
}

// endSet is a Bloom-style set of keys (one hash, 2^16 bits): a key that was
// added is always found; others are found rarely, costing only a full
// reduction that changes nothing.
type endSet [1 << 10]uint64

// endsOf returns the set of the last elements of bodies.
func endsOf(bs *bodies) endSet {
	var e endSet
	for id := range bs.len() {
		b := bs.body(id)
		e.add(b[len(b)-1])
	}
	return e
}

func endBit(k uint64) uint64 { return (k * 0x9e3779b97f4a7c15) >> 48 }

func (e *endSet) add(k uint64)      { h := endBit(k); e[h>>6] |= 1 << (h & 63) }
func (e *endSet) has(k uint64) bool { h := endBit(k); return e[h>>6]&(1<<(h&63)) != 0 }

// reduceOnce applies the first rule that matches, if any. The scan only
// looks for a reason to try a block length b — the element b below the
// top equals the top, or is a loop with a b-long body — and leaves the
// rules themselves to tryAt.
func (r *reducer) reduceOnce() bool {
	if r.indexed {
		return r.reduceIndexed()
	}
	s, lens := r.stack, r.lens
	n := len(s)
	top := s[n-1]
	kmax := min(r.k, n-1-r.floor)
	if kmax <= 0 {
		return false
	}
	ws, wl := s[n-1-kmax:n-1], lens[n-1-kmax:n-1]
	wl = wl[:len(ws)]
	for j := len(ws) - 1; j >= 0; j-- {
		if b := len(ws) - j; ws[j] == top || int(wl[j]) == b {
			if r.tryAt(b) {
				return true
			}
		}
	}
	return false
}

// reduceIndexed is reduceOnce for a large K: it visits the positions in
// the window holding the top's key and the loops whose body would end at
// the top, highest first, merging the two chains so that b still runs
// upwards.
func (r *reducer) reduceIndexed() bool {
	s, prev, dueNext := r.stack, r.prev, r.dueNext
	n := len(s)
	top := s[n-1]
	lo := int32(max(n-1-r.k, r.floor))
	c := prev[n-1]                       // candidates for (b) and (c)
	d := r.dueHead[(n-1)%len(r.dueHead)] // candidates for (a)
	for {
		for c >= lo && s[c] != top {
			c = prev[c]
		}
		var p int32
		switch {
		case c >= lo && d >= lo:
			p = max(c, d)
		case c >= lo:
			p = c
		case d >= lo:
			p = d
		default:
			return false
		}
		if r.tryAt(n - 1 - int(p)) {
			return true
		}
		if c == p {
			c = prev[c]
		}
		if d == p {
			d = dueNext[d]
		}
	}
}

// tryAt applies rule (a), (b) or (c) with block length b, if one matches.
func (r *reducer) tryAt(b int) bool {
	s, lens := r.stack, r.lens
	n := len(s)
	e := s[n-1-b]
	// (a) extend the loop just below the top b elements.
	if int(lens[n-1-b]) == b && keyCount(e) < maxCount && slices.Equal(r.body(keyID(e)), s[n-b:]) {
		r.replace(n-1-b, e+1, uint16(b))
		return true
	}
	if e != s[n-1] {
		return false
	}
	blk := s[n-b:]
	// (b) three copies make a loop.
	if 3*b <= n-r.floor && s[n-1-2*b] == e && slices.Equal(s[n-2*b:n-b], blk) && slices.Equal(s[n-3*b:n-2*b], blk) {
		r.replace(n-3*b, loopKey(r.record(blk), 3), uint16(b))
		return true
	}
	// (c) two copies of a known body make a loop.
	if r.fold2 && 2*b <= n-r.floor && slices.Equal(s[n-2*b:n-b], blk) {
		if id, ok := r.known(blk); ok {
			r.replace(n-2*b, loopKey(id, 2), uint16(b))
			return true
		}
	}
	return false
}
