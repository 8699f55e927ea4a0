package mutation

import (
	"slices"
	"sort"
)

// token is an element of a node's child sequence while its loops are being
// folded: a child, or a loop already folded, standing for children
// [from, to).
type token struct {
	hash     uint64
	from, to int
}

// findLoops returns the loops among node n's children (see the package
// documentation): repeats of the smallest period are folded first, over
// the whole sequence, each at its leftmost start and as many copies as
// follow; a folded loop is one element for the periods after it, and
// folding starts again from period 1 after each period that folded
// something, until nothing folds.
func (t *Tree) findLoops(n int32) []Loop {
	kids := t.Nodes[n].Children
	toks := make([]token, len(kids))
	for i, c := range kids {
		toks[i] = token{hash: t.Nodes[c].Hash, from: i, to: i + 1}
	}
	var loops []Loop
	for {
		folded := false
		for _, p := range periods(toks) {
			var got []Loop
			toks, got = foldPeriod(toks, p, n)
			if len(got) > 0 {
				loops = append(loops, got...)
				folded = true
				break // smaller periods first again, over the new elements
			}
		}
		if !folded {
			break
		}
	}
	sort.SliceStable(loops, func(i, j int) bool {
		if loops[i].First != loops[j].First {
			return loops[i].First < loops[j].First
		}
		return loops[i].Period*loops[i].Count > loops[j].Period*loops[j].Count
	})
	return loops
}

// periods returns, ascending, the distances at which an element of toks
// recurs next: the only periods a repeat in toks can have (the last
// occurrence of an element in a repeat's body recurs exactly one period
// later).
func periods(toks []token) []int {
	last := make(map[uint64]int, len(toks))
	seen := map[int]bool{}
	var out []int
	for i, tk := range toks {
		if j, ok := last[tk.hash]; ok {
			if p := i - j; !seen[p] && 2*p <= len(toks) {
				seen[p] = true
				out = append(out, p)
			}
		}
		last[tk.hash] = i
	}
	slices.Sort(out)
	return out
}

// foldPeriod folds every repeat of period p in toks, left to right: where
// the next p elements equal the p after them, the repeat starts, with as
// many whole copies as follow. It returns the new elements and the loops
// folded (none: toks unchanged).
func foldPeriod(toks []token, p int, n int32) ([]token, []Loop) {
	m := len(toks)
	// run[i]: how many positions from i on equal the element p later.
	run := make([]int32, m+1)
	for i := m - p - 1; i >= 0; i-- {
		if toks[i].hash == toks[i+p].hash {
			run[i] = run[i+1] + 1
		}
	}
	var loops []Loop
	var out []token
	for i := 0; i < m; {
		if L := int(run[i]); L >= p {
			copies := 1 + L/p
			h := mix(0x6c6f6f70, uint64(copies))
			for _, tk := range toks[i : i+p] {
				h = mix(h, tk.hash)
			}
			from, to := toks[i].from, toks[i+copies*p-1].to
			period := toks[i+p-1].to - from
			loops = append(loops, Loop{Node: n, First: from, Period: period, Count: copies})
			if out == nil {
				out = append(make([]token, 0, m), toks[:i]...)
			}
			out = append(out, token{hash: h, from: from, to: to})
			i += copies * p
			continue
		}
		if out != nil {
			out = append(out, toks[i])
		}
		i++
	}
	if out == nil {
		return toks, nil
	}
	return out, loops
}
