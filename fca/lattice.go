package fca

import (
	"fmt"
	"math/bits"
	"slices"
)

// DefaultMaxConcepts is the concept limit used when Limits.MaxConcepts is 0.
// A concept costs about (attributes + objects)/8 bytes plus its edges, so the
// default keeps a lattice over 4,096 classes and as many attributes near
// 100 MB.
const DefaultMaxConcepts = 100_000

// Limits bounds the size of a lattice so that a pathological context (many
// objects with many partly overlapping attribute sets; a lattice can have
// exponentially many concepts) cannot exhaust memory.
type Limits struct {
	MaxConcepts int // 0 means DefaultMaxConcepts; negative means no limit
}

func (lim Limits) maxConcepts() int {
	switch {
	case lim.MaxConcepts == 0:
		return DefaultMaxConcepts
	case lim.MaxConcepts < 0:
		return int(^uint(0) >> 1)
	}
	return lim.MaxConcepts
}

// LimitError reports that a lattice outgrew its Limits.
type LimitError struct {
	MaxConcepts int // the limit
	Added       int // objects added when the limit was reached (including the one being added)
	Objects     int // objects that were to be added
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("concept lattice: more than %d concepts after %d of %d objects; raise the concept limit or use a coarser attribute mode (e.g. log10 or noFreq)",
		e.MaxConcepts, e.Added, e.Objects)
}

// concept is one node of the lattice. Its intent and extent live in the
// lattice's arenas.
type concept struct {
	size     int     // |intent|
	parents  []int32 // upper covers: smaller intents
	children []int32 // lower covers: larger intents
}

// Lattice is the concept lattice of a formal context, built incrementally
// with Godin, Missaoui and Alaoui's algorithm (1995; seeds/002 §3.3.2):
// objects are added one at a time and the lattice is updated in place.
//
// Objects are numbered 0, 1, … in the order they are added; built by
// BuildLattice, the objects are a Context's equivalence classes. Concepts are
// numbered in order of creation; a concept's number never changes.
type Lattice struct {
	nAttrs, nObjs int // capacities of intents and extents
	wi, wx        int // words per intent, per extent
	added         int
	limit         int
	cs            []concept
	intents       []uint64  // concept c's intent is intents[c*wi:(c+1)*wi]
	extents       []uint64  // concept c's extent is extents[c*wx:(c+1)*wx]
	buckets       [][]int32 // concepts by intent size
	top, bottom   int
	objConcept    []int32 // object → its object concept
	broken        error

	// Scratch for Add, indexed by concept.
	cnt []int   // |intent ∩ new object's intent|
	img []int32 // the concept whose intent is intent ∩ new object's intent
}

// NewLattice returns an empty lattice for up to nObjects objects over the
// attributes 0 … nAttrs-1.
func NewLattice(nObjects, nAttrs int, lim Limits) *Lattice {
	return &Lattice{nAttrs: nAttrs, nObjs: nObjects, wi: (nAttrs + 63) / 64, wx: (nObjects + 63) / 64,
		limit: lim.maxConcepts(), top: -1, bottom: -1}
}

func (l *Lattice) intent(c int32) Bitset { return l.intents[int(c)*l.wi : int(c+1)*l.wi] }
func (l *Lattice) extent(c int32) Bitset { return l.extents[int(c)*l.wx : int(c+1)*l.wx] }

// BuildLattice builds the lattice of c's equivalence classes (the lattice's
// object k is class k), adding the classes in order. It returns a
// *LimitError if the lattice outgrows lim.
func BuildLattice(c *Context, lim Limits) (*Lattice, error) {
	l := NewLattice(c.NumClasses(), c.NumAttrs(), lim)
	for k := range c.NumClasses() {
		if err := l.Add(c.ClassAttrs(k)); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// newConcept adds a concept with the given intent and extent (copied) and
// returns its number.
func (l *Lattice) newConcept(intent, extent Bitset, size int) (int32, error) {
	if len(l.cs) >= l.limit {
		l.broken = &LimitError{MaxConcepts: l.limit, Added: l.added, Objects: l.nObjs}
		return -1, l.broken
	}
	id := int32(len(l.cs))
	l.cs = append(l.cs, concept{size: size})
	l.intents = append(l.intents, intent...)
	l.extents = append(l.extents, extent...)
	l.cnt = append(l.cnt, 0)
	l.img = append(l.img, 0)
	for len(l.buckets) <= size {
		l.buckets = append(l.buckets, nil)
	}
	l.buckets[size] = append(l.buckets[size], id)
	return id, nil
}

func (l *Lattice) link(parent, child int32) {
	l.cs[parent].children = append(l.cs[parent].children, child)
	l.cs[child].parents = append(l.cs[child].parents, parent)
}

// unlink removes the edge parent → child if there is one.
func (l *Lattice) unlink(parent, child int32) {
	p, c := &l.cs[parent], &l.cs[child]
	if i := slices.Index(p.children, child); i >= 0 {
		p.children = slices.Delete(p.children, i, i+1)
		j := slices.Index(c.parents, parent)
		c.parents = slices.Delete(c.parents, j, j+1)
	}
}

// Add adds the next object, whose attributes are intent (a set over the
// lattice's attributes; Add keeps no reference to it), and updates the
// lattice in place. After a *LimitError the lattice is incomplete and every
// later Add returns the same error.
//
// This is Godin's algorithm: the bottom (the concept holding every attribute
// seen) is first widened to cover intent; then the concepts are visited in
// order of increasing intent size. A concept H whose intent is a subset of
// intent is modified (the object joins its extent). Otherwise H generates a
// new concept (extent(H) ∪ {x}, intent(H) ∩ intent) unless a concept with
// that intent already exists among the modified and new ones; the new concept
// goes between H and its parents. The visit stops at the concept whose intent
// equals the new object's — its object concept.
//
// Two standard refinements make each step local instead of a scan of all
// modified and new concepts: H generates a new intent exactly when no parent
// P of H has |intent(P) ∩ intent| = |intent(H) ∩ intent| (otherwise the
// intersection is P's and already exists); and the parents of the new concept
// are the most specific of the concepts whose intents are intent(P) ∩ intent
// for the parents P of H.
func (l *Lattice) Add(intent Bitset) error {
	if l.broken != nil {
		return l.broken
	}
	if l.added >= l.nObjs {
		return fmt.Errorf("concept lattice: object %d added to a lattice made for %d objects", l.added, l.nObjs)
	}
	if want := (l.nAttrs + 63) / 64; len(intent) != want {
		return fmt.Errorf("concept lattice: object %d has an attribute set of %d words, want %d (%d attributes)", l.added, len(intent), want, l.nAttrs)
	}
	x := l.added
	l.added++
	fx := intent
	nfx := fx.Len()

	if len(l.cs) == 0 {
		ext := NewBitset(l.nObjs)
		ext.Set(x)
		id, err := l.newConcept(fx, ext, nfx)
		if err != nil {
			return err
		}
		l.top, l.bottom = int(id), int(id)
		l.objConcept = append(l.objConcept, id)
		return nil
	}

	// Widen the bottom (Godin's sup) so that every intersection lies above it.
	bottom := int32(l.bottom)
	if bi := l.intent(bottom); !fx.SubsetOf(bi) {
		if l.extent(bottom).Len() == 0 {
			b := &l.cs[bottom]
			l.buckets[b.size] = slices.DeleteFunc(l.buckets[b.size], func(c int32) bool { return c == bottom })
			for i := range bi {
				bi[i] |= fx[i]
			}
			b.size = bi.Len()
			for len(l.buckets) <= b.size {
				l.buckets = append(l.buckets, nil)
			}
			l.buckets[b.size] = append(l.buckets[b.size], bottom)
		} else {
			union := bi.Clone()
			for i := range union {
				union[i] |= fx[i]
			}
			id, err := l.newConcept(union, NewBitset(l.nObjs), union.Len())
			if err != nil {
				return err
			}
			l.link(bottom, id)
			l.bottom = int(id)
		}
	}

	// The words where intent has members: an intersection needs only these.
	var nz []int
	for i, w := range fx {
		if w != 0 {
			nz = append(nz, i)
		}
	}
	nOld := int32(len(l.cs))
	in := NewBitset(l.nAttrs)
	var parents []int32
	for size := 0; size < len(l.buckets); size++ {
		// New concepts only ever go into smaller buckets than the one being
		// visited, so ranging over a bucket sees old concepts only.
		for _, h := range l.buckets[size] {
			if h >= nOld {
				continue
			}
			hi := l.intent(h)
			n := 0
			for _, i := range nz {
				n += bits.OnesCount64(hi[i] & fx[i])
			}
			l.cnt[h] = n
			if n == size { // intent(H) ⊆ intent: modified
				l.extent(h).Set(x)
				l.img[h] = h
				if n == nfx {
					l.objConcept = append(l.objConcept, h)
					return nil
				}
				continue
			}
			// Does a parent already have this intersection? (Parents have
			// smaller intents, so this pass has visited them.)
			l.img[h] = -1
			for _, p := range l.cs[h].parents {
				if l.cnt[p] == n {
					l.img[h] = l.img[p]
					break
				}
			}
			if l.img[h] >= 0 {
				continue
			}
			// H generates the new concept (extent(H) ∪ {x}, intent(H) ∩ intent).
			for i := range in {
				in[i] = hi[i] & fx[i]
			}
			hn, err := l.newConcept(in, l.extent(h), n)
			if err != nil {
				return err
			}
			l.extent(hn).Set(x)
			l.cnt[hn], l.img[hn], l.img[h] = n, hn, hn

			// Its parents: the most specific images of H's parents.
			parents = parents[:0]
			for _, p := range l.cs[h].parents {
				if c := l.img[p]; !slices.Contains(parents, c) {
					parents = append(parents, c)
				}
			}
			for _, c := range parents {
				general := false
				for _, d := range parents {
					if d != c && l.cs[d].size > l.cs[c].size && l.intent(c).SubsetOf(l.intent(d)) {
						general = true
						break
					}
				}
				if general {
					continue
				}
				l.unlink(c, h)
				l.link(c, hn)
			}
			l.link(hn, h)
			if len(l.cs[hn].parents) == 0 {
				l.top = int(hn)
			}
			if n == nfx {
				l.objConcept = append(l.objConcept, hn)
				return nil
			}
		}
	}
	// Unreachable: the bottom's intent contains intent, so the visit meets a
	// concept whose intersection with it is the whole of it.
	panic("fca: Godin update found no object concept")
}

// Len returns the number of concepts.
func (l *Lattice) Len() int { return len(l.cs) }

// Objects returns the number of objects added so far.
func (l *Lattice) Objects() int { return l.added }

// Top returns the concept holding every object (the smallest intent), or -1
// for an empty lattice.
func (l *Lattice) Top() int { return l.top }

// Bottom returns the concept holding every attribute (the largest intent),
// or -1 for an empty lattice.
func (l *Lattice) Bottom() int { return l.bottom }

// Intent returns the attributes of concept c, increasing.
func (l *Lattice) Intent(c int) []int { return l.intent(int32(c)).Members() }

// IntentLen returns the number of attributes of concept c.
func (l *Lattice) IntentLen(c int) int { return l.cs[c].size }

// Extent returns the objects of concept c, increasing.
func (l *Lattice) Extent(c int) []int { return l.extent(int32(c)).Members() }

// Parents returns the upper covers of concept c (more objects, fewer
// attributes), in the order they were linked.
func (l *Lattice) Parents(c int) []int { return toInts(l.cs[c].parents) }

// Children returns the lower covers of concept c (fewer objects, more
// attributes), in the order they were linked.
func (l *Lattice) Children(c int) []int { return toInts(l.cs[c].children) }

// ObjectConcept returns γ(o) = ({o}″, {o}′), the most specific concept whose
// extent holds object o.
func (l *Lattice) ObjectConcept(o int) int { return int(l.objConcept[o]) }

// ReducedExtent returns the objects whose object concept is c: the objects
// that appear first at c when reading the diagram from the bottom up (the
// "new objects" of seeds/002 Fig. 3.3).
func (l *Lattice) ReducedExtent(c int) []int {
	var out []int
	for o, oc := range l.objConcept {
		if int(oc) == c {
			out = append(out, o)
		}
	}
	return out
}

// ReducedIntent returns the attributes whose attribute concept is c: those in
// c's intent and in no parent's, the attributes that appear first at c when
// reading the diagram from the top down.
func (l *Lattice) ReducedIntent(c int) []int {
	red := l.intent(int32(c)).Clone()
	for _, p := range l.cs[c].parents {
		for i, w := range l.intent(p) {
			red[i] &^= w
		}
	}
	return red.Members()
}

// Join returns the supremum of concepts a and b: the least concept above
// both, whose extent is the smallest one holding both extents and whose
// intent is the intersection of their intents. It walks the diagram rather
// than intersecting intents.
func (l *Lattice) Join(a, b int) int {
	mark := make([]bool, len(l.cs))
	l.walkUp(a, func(c int32) { mark[c] = true })
	best := -1
	l.walkUp(b, func(c int32) {
		if mark[c] && (best < 0 || l.cs[c].size > l.cs[best].size) {
			best = int(c)
		}
	})
	return best
}

// walkUp calls fn once for c and each concept above it.
func (l *Lattice) walkUp(c int, fn func(int32)) {
	seen := map[int32]bool{int32(c): true}
	stack := []int32{int32(c)}
	for len(stack) > 0 {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		fn(d)
		for _, p := range l.cs[d].parents {
			if !seen[p] {
				seen[p] = true
				stack = append(stack, p)
			}
		}
	}
}

func toInts(s []int32) []int {
	out := make([]int, len(s))
	for i, v := range s {
		out[i] = int(v)
	}
	return out
}
