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
// are chosen as the mutation harness defines them: the repeats that cover
// the most callees first (then the one of the smaller period, then the
// leftmost), each unless one chosen before overlaps it; then the same
// inside one copy of its body, and between the repeats chosen. A repeat
// that holds c has c's own hash recur exactly one period away, so only
// those distances are tried, and each is extended in one linear pass (the
// multiples of a period already extended start from its stretch); the cost
// is in the loop's length, not in the sequence's.
func loopsAround(h []uint64, c int) (out []repeat, iters []int) {
	lo, hi, shift := 0, len(h), 0
	for c >= lo && c < hi {
		r, ok := chosenRepeat(h, lo, hi, c)
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

// gapAt returns, for the gap before element c of h (where calls were
// added), the first of loopsAround(h, c) whose iteration the gap begins,
// other than its first: the gap lies between two of its iterations, and
// the loops after it, inside its body, come after the gap. It is -1 when
// the gap begins no such iteration.
func gapAt(h []uint64, c int) int {
	lo, hi := 0, len(h)
	for j := 0; c >= lo && c < hi; j++ {
		r, ok := chosenRepeat(h, lo, hi, c)
		if !ok {
			break
		}
		it := (c - r.First) / r.Period
		if it > 0 && (c-r.First)%r.Period == 0 {
			return j
		}
		c -= it * r.Period
		lo, hi = r.First, r.First+r.Period
	}
	return -1
}

// before reports whether repeat a is chosen before b.
func before(a, b repeat) bool {
	if a.cover() != b.cover() {
		return a.cover() > b.cover()
	}
	if a.Period != b.Period {
		return a.Period < b.Period
	}
	return a.First < b.First
}

func overlap(a, b repeat) bool { return a.First < b.end() && b.First < a.end() }

// chosenRepeat returns the repeat of h[lo:hi] that holds c and is chosen
// (loopsAround): the first of those that hold c, unless a repeat chosen
// before it overlaps it. Such a repeat is at least as long, so it holds
// one of its ends; c is then between it and the next, and the search goes
// on there.
func chosenRepeat(h []uint64, lo, hi, c int) (repeat, bool) {
	for {
		r, ok := bestRepeat(h, lo, hi, c)
		if !ok {
			return r, false
		}
		q, blocked := blocker(h, lo, hi, r)
		if blocked {
			if _, qb := blocker(h, lo, hi, q); qb {
				blocked = false // its blocker is blocked itself: taken as free
			}
		}
		if !blocked {
			return r, true
		}
		if c < q.First {
			hi = q.First
		} else {
			lo = q.end()
		}
	}
}

// blocker returns a repeat chosen before r that overlaps it, if any.
func blocker(h []uint64, lo, hi int, r repeat) (repeat, bool) {
	for _, j := range []int{r.First, r.end() - 1} {
		q, ok := bestRepeat(h, lo, hi, j)
		if ok && q != r && before(q, r) && overlap(q, r) {
			return q, true
		}
	}
	return repeat{}, false
}

// bestRepeat returns, of the repeats of h[lo:hi] that hold c, the one
// chosen first.
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
	type stretch struct{ s, e int } // h[i] == h[i+p] for i in [s, e)
	done := map[int][]stretch{}
	for _, p := range ds {
		// c is in the stretch of c, or of c-p, or both (two stretches).
		for _, i0 := range []int{c - p, c} {
			if i0 < lo || i0+p >= hi || h[i0] != h[i0+p] {
				continue
			}
			if len(done[p]) > 0 && done[p][0].s <= i0 && i0 < done[p][0].e {
				continue
			}
			s, e := i0, i0
			// A stretch of a divisor of p is periodic with p too: start
			// from it.
		divisors:
			for d := 1; d*d <= p; d++ {
				if p%d != 0 {
					continue
				}
				for _, q := range []int{d, p / d} {
					for _, st := range done[q] {
						if q < p && st.s <= i0 && i0 < st.e+q-p {
							s, e = st.s, st.e+q-p
							break divisors
						}
					}
				}
			}
			for s > lo && h[s-1] == h[s-1+p] {
				s--
			}
			for e+p < hi && h[e] == h[e+p] {
				e++
			}
			done[p] = append(done[p], stretch{s, e})
			L := e - s
			if L < p {
				continue
			}
			r := repeat{First: s, Period: p, Count: 1 + L/p, Tail: e + p}
			if c < r.First || c >= r.end() {
				continue
			}
			if !ok || before(r, best) {
				best, ok = r, true
			}
		}
	}
	return best, ok
}
