package mutation

import (
	"slices"
	"sort"
)

// repeat is a tandem repeat found in a child sequence: copies of a body of
// period elements from start on.
type repeat struct {
	start, period, copies int
}

func (r repeat) end() int { return r.start + r.period*r.copies }

// findLoops returns the loops among node n's children (see the package
// documentation): in a stretch of the children, the repeats that cover
// the most children are taken first (of two that cover as many, the one
// of the smaller period, then the leftmost), each where no repeat taken
// before overlaps it; then the same inside the body of each repeat taken
// (once: its copies are equal) and in the stretches between them.
func (t *Tree) findLoops(n int32) []Loop {
	kids := t.Nodes[n].Children
	h := make([]uint64, len(kids))
	for i, c := range kids {
		h[i] = t.Nodes[c].Hash
	}
	loops := findRepeats(h, 0, len(h), n)
	sort.SliceStable(loops, func(i, j int) bool {
		if loops[i].First != loops[j].First {
			return loops[i].First < loops[j].First
		}
		return loops[i].Period*loops[i].Count > loops[j].Period*loops[j].Count
	})
	return loops
}

// findRepeats returns the loops of h[lo:hi], as findLoops says.
func findRepeats(h []uint64, lo, hi int, n int32) []Loop {
	if hi-lo < 2 {
		return nil
	}
	var cands []repeat
	run := make([]int32, hi-lo+1)
	for _, p := range periods(h[lo:hi]) {
		// run[i-lo]: how many positions from i on equal the one p later.
		run[hi-lo] = 0
		for i := hi - 1; i >= lo; i-- {
			run[i-lo] = 0
			if i+p < hi && h[i] == h[i+p] {
				run[i-lo] = run[i-lo+1] + 1
			}
		}
		for i := lo; i < hi; i++ {
			if L := int(run[i-lo]); L >= p && (i == lo || run[i-lo-1] == 0) {
				// A maximal run of equal positions from i: its repeat
				// starts here (the leftmost rotation).
				cands = append(cands, repeat{start: i, period: p, copies: 1 + L/p})
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if ca, cb := a.period*a.copies, b.period*b.copies; ca != cb {
			return ca > cb
		}
		if a.period != b.period {
			return a.period < b.period
		}
		return a.start < b.start
	})
	var taken []repeat
	for _, c := range cands {
		free := true
		for _, x := range taken {
			if c.start < x.end() && x.start < c.end() {
				free = false
				break
			}
		}
		if free {
			taken = append(taken, c)
		}
	}
	if len(taken) == 0 {
		return nil
	}
	sort.Slice(taken, func(i, j int) bool { return taken[i].start < taken[j].start })
	var loops []Loop
	at := lo
	for _, r := range taken {
		loops = append(loops, findRepeats(h, at, r.start, n)...)
		loops = append(loops, Loop{Node: n, First: r.start, Period: r.period, Count: r.copies})
		inner := findRepeats(h, r.start, r.start+r.period, n)
		for k := range r.copies {
			for _, l := range inner {
				l.First += k * r.period
				loops = append(loops, l)
			}
		}
		at = r.end()
	}
	return append(loops, findRepeats(h, at, hi, n)...)
}

// allPeriods is the longest sequence whose every period is tried.
const allPeriods = 4096

// maxRecur is how many later occurrences of each element give periods in
// a longer sequence.
const maxRecur = 64

// periods returns, ascending, the periods a repeat in h may have. In a
// sequence of up to allPeriods elements, every one up to half its length:
// an element's next occurrence is a period away only when it occurs once
// in the body, and bodies where every call recurs (a sweep of extent,
// compute, compute, compute, ten times, then extent twice) are common. In
// a longer one, the distances from each occurrence of an element to its
// next maxRecur occurrences: a period of any body in which some element
// occurs at most that many times.
func periods(h []uint64) []int {
	if len(h) <= allPeriods {
		out := make([]int, 0, len(h)/2)
		for p := 1; 2*p <= len(h); p++ {
			out = append(out, p)
		}
		return out
	}
	seen := map[int]bool{}
	at := map[uint64][]int{}
	var out []int
	for i, x := range h {
		prev := at[x]
		for k := len(prev) - 1; k >= 0 && k >= len(prev)-maxRecur; k-- {
			if p := i - prev[k]; !seen[p] && 2*p <= len(h) {
				seen[p] = true
				out = append(out, p)
			}
		}
		at[x] = append(prev, i)
	}
	slices.Sort(out)
	return out
}
