package diffnlr

import "slices"

// repeat is a loop among the callees of one call: Count copies of a block
// of Period calls from callee First on, each equal, subtree for subtree,
// to the one before. The calls go on repeating the block, partly, up to
// Tail (a rotation of the loop begins anywhere in [First, Tail-Period*Count]).
type repeat struct {
	First, Period, Count int
	Tail                 int
}

func (r repeat) end() int   { return r.First + r.Period*r.Count }
func (r repeat) cover() int { return r.Period * r.Count }

// maxOccurrences bounds how many recurrences of a callee, on each side,
// are tried as periods of a loop around it.
const maxOccurrences = 4096

// loopsAround returns the loops around callee c of a sequence of subtree
// hashes, outermost first, each with the iteration c is in (from 1). Loops
// are chosen as the mutation harness defines them: of the repeats that
// hold c, the one that covers the most callees, then the one of the
// smaller period, then the leftmost; then the same inside one copy of its
// body. A repeat that holds c has c's own hash recur exactly one period
// away, so only those distances are tried, and each is extended in one
// linear pass (the multiples of a period already extended start from its
// stretch); the cost is in the loop's length, not in the sequence's.
func loopsAround(h []uint64, c int) (out []repeat, iters []int) {
	lo, hi, shift := 0, len(h), 0
	for c >= lo && c < hi {
		r, ok := bestRepeat(h, lo, hi, c)
		if !ok {
			break
		}
		it := (c - r.First) / r.Period
		at := r
		at.First += shift
		at.Tail += shift
		out = append(out, at)
		iters = append(iters, it+1)
		// Inside the body: its first copy stands for every copy, as in
		// the harness (the copies are equal).
		shift += it * r.Period
		c -= it * r.Period
		lo, hi = r.First, r.First+r.Period
	}
	return out, iters
}

// bestRepeat returns the repeat of h[lo:hi] that holds c and is chosen
// first (loopsAround).
func bestRepeat(h []uint64, lo, hi, c int) (best repeat, ok bool) {
	x := h[c]
	limit := (hi - lo) / 2
	var ds []int
	for j, n := c+1, 0; j < hi && j-c <= limit && n < maxOccurrences; j++ {
		if h[j] == x {
			ds = append(ds, j-c)
			n++
		}
	}
	for j, n := c-1, 0; j >= lo && c-j <= limit && n < maxOccurrences; j-- {
		if h[j] == x {
			ds = append(ds, c-j)
			n++
		}
	}
	slices.Sort(ds)
	ds = slices.Compact(ds)
	type stretch struct{ p, s, e int } // h[i] == h[i+p] for i in [s, e)
	var done []stretch
	for _, p := range ds {
		i0 := c
		if c+p >= hi || h[c+p] != x {
			i0 = c - p
		}
		s, e := i0, i0
		// A stretch of a divisor of p is periodic with p too: start from
		// it.
		for _, st := range done {
			if p%st.p == 0 && st.s <= i0 && i0 < st.e+st.p-p {
				s, e = st.s, st.e+st.p-p
				break
			}
		}
		for s > lo && h[s-1] == h[s-1+p] {
			s--
		}
		for e+p < hi && h[e] == h[e+p] {
			e++
		}
		done = append(done, stretch{p, s, e})
		L := e - s
		if L < p {
			continue
		}
		r := repeat{First: s, Period: p, Count: 1 + L/p, Tail: e + p}
		if c >= r.end() {
			continue
		}
		if !ok || r.cover() > best.cover() || r.cover() == best.cover() && (r.Period < best.Period || r.Period == best.Period && r.First < best.First) {
			best, ok = r, true
		}
	}
	return best, ok
}
