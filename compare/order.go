package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/nlr"
)

// A program that unpacks each halo as it arrives, or handles results from
// any source as they come, makes the same calls in an order that changes
// from step to step and run to run: X then Y in one step, Y then X in the
// next. Where the normal runs show both orders of two stretches of calls
// (a swap), the shaper reads every occurrence of one order as the other
// (unswapped), in loop bodies too, so that the attributes do not change
// with the order, and loops that differ only in it are one loop.

// maxSwap bounds the elements a swap's two stretches hold together.
const maxSwap = 64

// maxSwapDiff bounds the elements of the normal sequences diffed to learn
// swaps: longer ones are left out.
const maxSwapDiff = 20000

// swap is two stretches of elements that the normal runs make in both
// orders; x then y is the order the analysis reads.
type swap struct {
	x, y nlr.Sequence
}

// learnSwaps returns the swaps the normal runs show: in the bodies of two
// loops that are the same but for the order of two stretches (a step loop
// folded once for each order), and in the sequences of one trace in two
// normal runs (seqs[run][trace], shaped by sh). Each is given once.
func learnSwaps(sh *shaper, seqs [][]nlr.Sequence) []swap {
	var out []swap
	seen := map[string]bool{}
	learn := func(x, y nlr.Sequence) {
		xy, yx := append(slices.Clone(x), y...), append(slices.Clone(y), x...)
		if slices.EqualFunc(xy, yx, sh.same) {
			return // the same either way: counts that vary, not an order
		}
		// The order read is the one whose key is least, whichever run
		// showed it first.
		if sh.key(y)+sh.key(x) < sh.key(x)+sh.key(y) {
			x, y = y, x
		}
		key := sh.key(x) + "|" + sh.key(y)
		if !seen[key] {
			seen[key] = true
			out = append(out, swap{slices.Clone(x), slices.Clone(y)})
		}
	}
	// add learns the swap, if any, that makes the n elements of a from ia
	// into the n elements of b from ib, or the same windows widened by up
	// to maxWiden elements in all (a common first call, MPI_Waitany say,
	// is both stretches' first). It reports whether it found one.
	add := func(a nlr.Sequence, ia int, b nlr.Sequence, ib, n int) bool {
		for w := range maxWiden + 1 {
			for dl := 0; dl <= w; dl++ {
				la, lb, m := ia-dl, ib-dl, n+w
				if la < 0 || lb < 0 || la+m > len(a) || lb+m > len(b) {
					continue
				}
				if k, ok := sh.swapSplit(a[la:la+m], b[lb:lb+m]); ok {
					learn(a[la:la+k], a[la+k:la+m])
					return true
				}
			}
		}
		return false
	}
	// Loop bodies: standing loops with the same elements in another order,
	// of the loops the normal runs make.
	var all []nlr.Sequence
	for _, run := range seqs {
		all = append(all, run...)
	}
	normal := make([]bool, sh.table.Len())
	for _, id := range sh.table.Used(all...) {
		normal[sh.rep[id]] = true
	}
	groups := map[string][]int32{}
	var order []string
	for id := range int32(sh.table.Len()) {
		if sh.rep[id] != id || !normal[id] {
			continue
		}
		b := sh.body(id)
		if len(b) < 2 {
			continue
		}
		keys := make([]string, len(b))
		for i, e := range b {
			keys[i] = sh.elemKey(e)
		}
		slices.Sort(keys)
		g := strings.Join(keys, ",")
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], id)
	}
	for _, g := range order {
		ids := groups[g]
		for i := range ids {
			for j := i + 1; j < len(ids); j++ {
				a, b := sh.body(ids[i]), sh.body(ids[j])
				p, s := sh.common(a, b)
				add(a, p, b, p, len(a)-s-p)
			}
		}
	}
	// Sequences: the stretches a diff of two normal runs finds moved. A
	// window of the diff's blocks from one change to another holds the
	// same elements in both runs at the same places once the changes
	// before it are accounted for (ia, ib: where it starts in each).
	for r := 1; r < len(seqs); r++ {
		for i := range seqs[0] {
			a, b := seqs[0][i], seqs[r][i]
			if len(a) == 0 || len(b) == 0 || len(a)+len(b) > maxSwapDiff || slices.EqualFunc(a, b, sh.same) {
				continue
			}
			blocks, err := diffnlr.DiffLoose(a, b, func(e nlr.Element) bool { return sh.noisy[e.Loop] })
			if err != nil {
				continue
			}
			ia, ib := 0, 0
			for lo := 0; lo < len(blocks); lo++ {
				if blocks[lo].Kind != diffnlr.Common {
					na, nb := 0, 0
					for hi := lo; hi < len(blocks) && na+nb <= 2*maxSwap; hi++ {
						bl := blocks[hi]
						if bl.Kind != diffnlr.FaultyOnly {
							na += len(bl.Elems)
						}
						if bl.Kind != diffnlr.NormalOnly {
							nb += len(bl.Elems)
						}
						if bl.Kind != diffnlr.Common && na == nb && add(a, ia, b, ib, na) {
							break
						}
					}
				}
				if blocks[lo].Kind != diffnlr.FaultyOnly {
					ia += len(blocks[lo].Elems)
				}
				if blocks[lo].Kind != diffnlr.NormalOnly {
					ib += len(blocks[lo].Elems)
				}
			}
		}
	}
	return out
}

// maxWiden bounds how far learnSwaps widens a window of two sequences to
// find a swap.
const maxWiden = 8

// common returns how many elements a and b have in common at their start
// and, after that, at their end.
func (sh *shaper) common(a, b nlr.Sequence) (prefix, suffix int) {
	for prefix < len(a) && prefix < len(b) && sh.same(a[prefix], b[prefix]) {
		prefix++
	}
	for suffix < len(a)-prefix && suffix < len(b)-prefix && sh.same(a[len(a)-1-suffix], b[len(b)-1-suffix]) {
		suffix++
	}
	return prefix, suffix
}

// swapSplit returns where a splits into x and y such that b is y then x:
// a swap of two stretches, at most maxSwap elements together.
func (sh *shaper) swapSplit(a, b nlr.Sequence) (int, bool) {
	if len(a) != len(b) || len(a) < 2 || len(a) > maxSwap {
		return 0, false
	}
	for k := 1; k < len(a); k++ {
		if slices.EqualFunc(a[k:], b[:len(a)-k], sh.same) && slices.EqualFunc(a[:k], b[len(a)-k:], sh.same) {
			return k, true
		}
	}
	return 0, false
}

// elemKey names e as the analysis compares it: a symbol, or a standing
// loop with its count, without one where counts vary.
func (sh *shaper) elemKey(e nlr.Element) string {
	switch {
	case !e.IsLoop():
		return fmt.Sprintf("s%d", e.Sym)
	case sh.noisy[e.Loop]:
		return fmt.Sprintf("L%d*", e.Loop)
	default:
		return fmt.Sprintf("L%d^%d", e.Loop, e.Count)
	}
}

// key names a sequence of elements (elemKey).
func (sh *shaper) key(s nlr.Sequence) string {
	var b strings.Builder
	for _, e := range s {
		b.WriteString(sh.elemKey(e))
		b.WriteByte(',')
	}
	return b.String()
}

// same reports whether the analysis takes a and b as the same element.
func (sh *shaper) same(a, b nlr.Element) bool {
	if a.IsLoop() != b.IsLoop() {
		return false
	}
	if !a.IsLoop() {
		return a.Sym == b.Sym
	}
	return a.Loop == b.Loop && (a.Count == b.Count || sh.noisy[a.Loop])
}

// maxUnswapPasses bounds how often unswapped goes over a sequence: three
// stretches in any order take more than one pass to read in one order.
const maxUnswapPasses = 4

// unswapped returns s with every stretch that is y then x, for a swap of
// sh, read as x then y.
func (sh *shaper) unswapped(s nlr.Sequence) nlr.Sequence {
	if len(sh.swaps) == 0 {
		return s
	}
	for range maxUnswapPasses {
		var out nlr.Sequence
		changed := false
		for i := 0; i < len(s); {
			done := false
			for _, sw := range sh.swaps {
				n := len(sw.x) + len(sw.y)
				if i+n <= len(s) && sh.same(s[i], sw.y[0]) &&
					slices.EqualFunc(s[i:i+len(sw.y)], sw.y, sh.same) && slices.EqualFunc(s[i+len(sw.y):i+n], sw.x, sh.same) {
					if out == nil {
						out = append(make(nlr.Sequence, 0, len(s)), s[:i]...)
					}
					out = append(out, s[i+len(sw.y):i+n]...)
					out = append(out, s[i:i+len(sw.y)]...)
					i += n
					done, changed = true, true
					break
				}
			}
			if !done {
				if out != nil {
					out = append(out, s[i])
				}
				i++
			}
		}
		if !changed {
			break
		}
		s = out
	}
	return s
}

// runsSwap reports whether s holds both stretches of a swap, one after the
// other, in the order read (unswapped).
func (sh *shaper) runsSwap(s nlr.Sequence) bool {
	for _, sw := range sh.swaps {
		n := len(sw.x) + len(sw.y)
		for i := 0; i+n <= len(s); i++ {
			if slices.EqualFunc(s[i:i+len(sw.x)], sw.x, sh.same) && slices.EqualFunc(s[i+len(sw.x):i+n], sw.y, sh.same) {
				return true
			}
		}
	}
	return false
}
