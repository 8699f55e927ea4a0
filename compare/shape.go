package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/nlr"
)

// A shaper rewrites NLR sequences so that what a program varies by itself
// reads the same in every run: when loop counts vary between the normal
// runs (NoisyCounts), folding depends on chance. One run folds three tasks
// of 35 chunks each into a loop, another never meets three equal counts in
// a row; one folds a task farm's cycle from its receive, another from its
// verify; a thread that took one chunk ran the chunk loop's body once,
// unfolded. The shaper undoes each of these (view):
//
//   - shape: loops whose bodies are the same but for the counts of loops
//     whose counts vary, at any depth, are one loop;
//   - rotation: a loop whose body is a rotation of another loop's body is
//     written as that loop, with the rotation's head before it and its tail
//     after it: [a b c]^n is a, [b c a]^(n-1), b, c;
//   - coincidence: a loop whose body holds a loop whose counts vary folded
//     only because those counts happened to repeat; it is written out as
//     its iterations (up to maxUnrolled elements);
//   - small loops: a loop of four calls or fewer in all is written out, as
//     it folds or not depending on what is around it;
//   - order (order.go): stretches of calls the normal runs make in either
//     order are read in one, loops then the same are one loop, and a loop
//     whose body is another's several times is that loop;
//   - roll-up: the body of a loop whose counts vary (or of a loop that ran
//     such stretches), met once or several times, is that loop.
//
// Then loops that follow one another merge: L3^2, L3^2 is L3^4.
type shaper struct {
	table *nlr.Table
	// rep is, per loop ID, the loop that stands for it; off is where, in
	// the loop's body, rep's body starts (0 unless rep is a rotation).
	rep, off []int32
	// mult is, per loop ID, how many iterations of rep's one of its
	// iterations is (1 but for loops whose body is rep's several times).
	mult []int32
	// noisy marks the standing loops whose counts vary, for any loop they
	// stand for.
	noisy []bool
	// unfold holds the rewritten bodies of the standing loops that are
	// coincidental: they are written out as their iterations.
	unfold map[int32]nlr.Sequence
	// bodies memoizes the rewritten body of every loop (body).
	bodies map[int32]nlr.Sequence
	// ups are the noisy standing loops, and the ordered ones (which run a
	// swap), with their bodies as the view reads them, the shortest first
	// (rollUp).
	ups []rollUpLoop
	// swaps are the stretches the normal runs make in both orders, read
	// in one (unswapped).
	swaps []swap
}

// rollUpLoop is a loop of shaper.ups and its body as the view reads it.
type rollUpLoop struct {
	id   int32
	body nlr.Sequence
}

// maxSmall is how many elements a loop that the shaper writes out
// whatever it is may come to (emit).
const maxSmall = 4

// maxUnrolled bounds how many elements a coincidental loop is written out
// as; a longer one stays folded.
const maxUnrolled = 256

// shaper returns n's shaper; nil when the normal runs do not vary.
func (n *NLR) shaper() *shaper {
	if !n.noise().varies {
		return nil
	}
	noisy := n.noise().loops
	if noisy == nil {
		noisy = make([]bool, n.Table.Len())
	}
	sh := newShaper(n.Table, noisy, nil)
	var views [][]nlr.Sequence
	for _, r := range n.c.Normals() {
		v := make([]nlr.Sequence, len(n.c.IDs))
		for i := range v {
			if n.c.Has(r, i) {
				v[i] = sh.view(n.Seq(r, i))
			}
		}
		views = append(views, v)
	}
	if swaps := learnSwaps(sh, views); len(swaps) > 0 {
		sh = newShaper(n.Table, noisy, swaps)
	}
	return sh
}

// newShaper returns the shaper of the loops of t, those marked in noisyRaw
// (by loop ID) having counts that vary, reading the stretches of swaps in
// one order.
func newShaper(t *nlr.Table, noisyRaw []bool, swaps []swap) *shaper {
	sh := &shaper{
		table:  t,
		rep:    make([]int32, t.Len()),
		off:    make([]int32, t.Len()),
		mult:   make([]int32, t.Len()),
		noisy:  make([]bool, t.Len()),
		unfold: map[int32]nlr.Sequence{},
		bodies: map[int32]nlr.Sequence{},
	}
	for id := range sh.mult {
		sh.mult[id] = 1
	}
	// Shapes: each loop's body as element keys, inner loops by their full
	// shape and, where their counts vary, without a count.
	keys := make([]string, t.Len())
	elems := make([][]string, t.Len())
	done := make([]bool, t.Len())
	var key func(id int32) string
	key = func(id int32) string {
		if done[id] {
			return keys[id]
		}
		done[id] = true // loops do not contain themselves
		for _, e := range t.Body(id) {
			switch {
			case !e.IsLoop():
				elems[id] = append(elems[id], fmt.Sprintf("s%d", e.Sym))
			case noisyRaw[e.Loop]:
				elems[id] = append(elems[id], "("+key(e.Loop)+")*")
			default:
				elems[id] = append(elems[id], fmt.Sprintf("(%s)%d", key(e.Loop), e.Count))
			}
		}
		keys[id] = strings.Join(elems[id], ",")
		return keys[id]
	}
	// Rotations: loops whose element keys are rotations of one another
	// stand for one cycle, named by its first loop.
	first := map[string]int32{}
	for id := range int32(t.Len()) {
		key(id)
		el := elems[id]
		cyc, k := minRotation(el)
		if r, ok := first[cyc]; ok {
			// rep's body is el rotated by k_rep; id's by k: rep's body
			// starts in id's body at k - k_rep.
			_, kr := minRotation(elems[r])
			sh.rep[id], sh.off[id] = r, int32((k-kr+len(el))%max(len(el), 1))
		} else {
			first[cyc] = id
			sh.rep[id] = id
		}
	}
	for id, ok := range noisyRaw {
		if ok {
			sh.noisy[sh.rep[id]] = true
		}
	}
	ordered := make([]bool, t.Len())
	if len(swaps) > 0 {
		sh.swaps = swaps
		// Standing loops whose bodies are the same once read in one order
		// are one loop.
		first := map[string]int32{}
		merge := make([]int32, t.Len())
		for id := range int32(t.Len()) {
			merge[id] = id
			if sh.rep[id] != id {
				continue
			}
			k := sh.key(sh.unswapped(sh.body(id)))
			if r, ok := first[k]; ok {
				merge[id], ordered[r] = r, true
			} else {
				first[k] = id
			}
		}
		for id := range sh.rep {
			sh.rep[id] = merge[sh.rep[id]]
		}
		for id := range sh.noisy {
			if sh.noisy[id] && merge[id] != int32(id) {
				sh.noisy[merge[id]] = true
			}
		}
		for i := range sh.swaps {
			sh.swaps[i] = swap{sh.restanding(sh.swaps[i].x), sh.restanding(sh.swaps[i].y)}
		}
		sh.bodies = map[int32]nlr.Sequence{}
		// A loop that runs a swap is ordered: its folding depended on the
		// order the swap happened in. An ordered loop whose body, read in
		// one order, is another loop's body several times (two steps
		// folded as one iteration because their orders alternated) is that
		// loop, as many times more.
		bodyOf := map[string]int32{}
		for id := range int32(t.Len()) {
			if sh.rep[id] == id {
				bodyOf[sh.key(sh.unswapped(sh.body(id)))] = id
			}
		}
		for id := range int32(t.Len()) {
			if sh.rep[id] != id {
				continue
			}
			b := sh.unswapped(sh.body(id))
			if !sh.runsSwap(b) {
				continue
			}
			ordered[id] = true
			for p := 1; p < len(b); p++ {
				if len(b)%p != 0 || !slices.EqualFunc(b[p:], b[:len(b)-p], sh.same) {
					continue
				}
				if r, ok := bodyOf[sh.key(b[:p])]; ok && r != id {
					for j := range sh.rep {
						if sh.rep[j] == id {
							sh.rep[j], sh.mult[j] = r, int32(len(b)/p)
						}
					}
					ordered[r] = true
				}
				break
			}
		}
		sh.bodies = map[int32]nlr.Sequence{}
	}
	// Coincidences, inner loops first.
	state := make([]int8, t.Len()) // 1: seen and not coincidental, 2: coincidental
	var visit func(r int32) bool
	visit = func(r int32) bool {
		if state[r] != 0 {
			return state[r] == 2
		}
		state[r] = 1
		hit := false
		for _, e := range t.Body(r) {
			if e.IsLoop() {
				inner := sh.rep[e.Loop]
				if c := visit(inner); c || sh.noisy[inner] {
					hit = true
				}
			}
		}
		if hit {
			state[r] = 2
			sh.unfold[r] = sh.body(r)
		}
		return hit
	}
	for id := range int32(t.Len()) {
		if sh.rep[id] == id {
			visit(id)
		}
	}
	// Roll-ups, the shortest body first; each longer body is read as the
	// view reads it, with the shorter ones rolled up inside it.
	var ups []rollUpLoop
	for id := range int32(t.Len()) {
		if sh.rep[id] == id && (sh.noisy[id] || ordered[id]) {
			ups = append(ups, rollUpLoop{id, sh.unswapped(sh.body(id))})
		}
	}
	slices.SortStableFunc(ups, func(a, b rollUpLoop) int { return len(a.body) - len(b.body) })
	for _, u := range ups {
		if b := sh.rollUp(u.body); len(b) > 0 {
			sh.ups = append(sh.ups, rollUpLoop{u.id, b})
		}
	}
	return sh
}

// minRotation returns the least rotation of el, joined, and where it starts
// in el.
func minRotation(el []string) (string, int) {
	best, at := "", 0
	for k := range el {
		s := strings.Join(append(slices.Clone(el[k:]), el[:k]...), ",")
		if k == 0 || s < best {
			best, at = s, k
		}
	}
	return best, at
}

// body returns loop id's body, rewritten (emit).
func (sh *shaper) body(id int32) nlr.Sequence {
	if b, ok := sh.bodies[id]; ok {
		return b
	}
	var b nlr.Sequence
	for _, e := range sh.table.Body(id) {
		b = sh.emit(b, e)
	}
	sh.bodies[id] = b
	return b
}

// emit appends e to out, rewritten: a loop by its standing loop, written
// out if coincidental, with a rotation's head and tail around it.
func (sh *shaper) emit(out nlr.Sequence, e nlr.Element) nlr.Sequence {
	if !e.IsLoop() {
		return append(out, e)
	}
	r, k := sh.rep[e.Loop], sh.off[e.Loop]
	if b := sh.body(e.Loop); !sh.noisy[r] && int(e.Count)*len(b) <= maxSmall {
		// A few calls fold or not depending on what is around them
		// ("extent, extent" in one loop's body, L8^2 elsewhere): they
		// are written out.
		for range e.Count {
			out = append(out, b...)
		}
		return out
	}
	if u, ok := sh.unfold[r]; ok && int(e.Count)*len(u) <= maxUnrolled {
		b := sh.body(e.Loop)
		for range e.Count {
			out = append(out, b...)
		}
		return out
	}
	m := sh.mult[e.Loop]
	if r == e.Loop || k == 0 {
		return append(out, nlr.Element{Loop: r, Count: e.Count * m})
	}
	b := sh.body(e.Loop)
	out = append(out, b[:k]...)
	if e.Count > 1 {
		out = append(out, nlr.Element{Loop: r, Count: (e.Count - 1) * m})
	}
	return append(out, b[k:]...)
}

// view returns s as the analysis sees it (see shaper).
func (sh *shaper) view(s nlr.Sequence) nlr.Sequence {
	var out nlr.Sequence
	for _, e := range s {
		out = sh.emit(out, e)
	}
	return merged(sh.rollUp(sh.unswapped(out)))
}

// restanding returns s with each loop named by the loop that stands for it.
func (sh *shaper) restanding(s nlr.Sequence) nlr.Sequence {
	out := slices.Clone(s)
	for i, e := range out {
		if e.IsLoop() {
			out[i].Loop = sh.rep[e.Loop]
		}
	}
	return out
}

// rollUp returns s with every stretch that is the body of a loop of ups
// (the loops whose counts vary, and ordered ones) read as that loop, as
// many times as the body repeats: a thread that took one chunk ran the
// chunk loop once. The loops are taken the shortest body first, so that a
// longer body is matched as rolled up itself.
func (sh *shaper) rollUp(s nlr.Sequence) nlr.Sequence {
	for _, u := range sh.ups {
		s = sh.rollUpOne(s, u)
	}
	return s
}

// rollUpOne is rollUp with one loop.
func (sh *shaper) rollUpOne(s nlr.Sequence, u rollUpLoop) nlr.Sequence {
	var out nlr.Sequence
	for i := 0; i < len(s); {
		if i+len(u.body) <= len(s) && sh.same(s[i], u.body[0]) && slices.EqualFunc(s[i:i+len(u.body)], u.body, sh.same) {
			if out == nil {
				out = append(make(nlr.Sequence, 0, len(s)), s[:i]...)
			}
			if k := len(out) - 1; k >= 0 && out[k].Loop == u.id {
				out[k].Count++
			} else {
				out = append(out, nlr.Element{Loop: u.id, Count: 1})
			}
			i += len(u.body)
			continue
		}
		if out != nil {
			out = append(out, s[i])
		}
		i++
	}
	if out == nil {
		return s
	}
	return merged(out)
}

// merged returns s with loops that follow one another as one: L3^2, L3^2
// is L3^4.
func merged(s nlr.Sequence) nlr.Sequence {
	out := make(nlr.Sequence, 0, len(s))
	for _, e := range s {
		if k := len(out) - 1; e.IsLoop() && k >= 0 && out[k].Loop == e.Loop {
			out[k].Count += e.Count
			continue
		}
		out = append(out, e)
	}
	return out
}
