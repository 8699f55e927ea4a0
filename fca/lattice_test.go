package fca

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestFigure33 checks the lattice of the odd/even example against the shape
// described under seeds/002 Fig. 3.3: a top with the four shared calls and all
// traces, {0,2} with L0 and {1,3} with L1 below it, and a bottom with every
// attribute and no trace.
func TestFigure33(t *testing.T) {
	ids, seqs := oddEven()
	c, err := NewContext(Mode{}, ids, seqs, symName)
	if err != nil {
		t.Fatal(err)
	}
	l, err := BuildLattice(c, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() != 4 {
		t.Fatalf("%d concepts, want 4", l.Len())
	}
	traces := func(classes []int) string {
		var out []int
		for _, k := range classes {
			out = append(out, c.Members(k)...)
		}
		slices.Sort(out)
		return fmt.Sprint(out)
	}
	attrs := func(as []int) string {
		s := names(as, c.AttrName)
		slices.Sort(s)
		return strings.Join(s, " ")
	}
	top, bottom := l.Top(), l.Bottom()
	if got := traces(l.Extent(top)); got != "[0 1 2 3]" {
		t.Errorf("top extent %s", got)
	}
	if got := attrs(l.Intent(top)); got != "MPI_Comm_rank MPI_Comm_size MPI_Finalize MPI_Init" {
		t.Errorf("top intent %s", got)
	}
	if got := traces(l.Extent(bottom)); got != "[]" {
		t.Errorf("bottom extent %s", got)
	}
	if got := attrs(l.Intent(bottom)); got != "L0 L1 MPI_Comm_rank MPI_Comm_size MPI_Finalize MPI_Init" {
		t.Errorf("bottom intent %s", got)
	}
	if len(l.Parents(top)) != 0 || len(l.Children(bottom)) != 0 {
		t.Errorf("top has parents %v or bottom has children %v", l.Parents(top), l.Children(bottom))
	}
	middle := l.Children(top)
	if len(middle) != 2 {
		t.Fatalf("top has %d children, want 2", len(middle))
	}
	got := map[string]string{}
	for _, m := range middle {
		if !slices.Equal(l.Parents(m), []int{top}) || !slices.Equal(l.Children(m), []int{bottom}) {
			t.Errorf("concept %d: parents %v, children %v; want top above and bottom below", m, l.Parents(m), l.Children(m))
		}
		got[traces(l.Extent(m))] = attrs(l.ReducedIntent(m))
		if red := traces(l.ReducedExtent(m)); red != traces(l.Extent(m)) {
			t.Errorf("concept %d: reduced extent %s, want its whole extent", m, red)
		}
	}
	if got["[0 2]"] != "L0" || got["[1 3]"] != "L1" {
		t.Errorf("middle concepts (extent → new attributes): %v; want [0 2] → L0, [1 3] → L1", got)
	}
	if got := attrs(l.ReducedIntent(top)); got != "MPI_Comm_rank MPI_Comm_size MPI_Finalize MPI_Init" {
		t.Errorf("top's new attributes: %s", got)
	}
	if red := l.ReducedIntent(bottom); len(red) != 0 || len(l.ReducedExtent(top)) != 0 {
		t.Errorf("bottom's new attributes %v, top's new objects %v; want none", red, l.ReducedExtent(top))
	}
}

// randomIntents returns n random attribute sets over m attributes, each
// attribute present with probability density, with some sets repeated.
func randomIntents(rng *rand.Rand, n, m int, density float64) []Bitset {
	var out []Bitset
	for range n {
		if len(out) > 0 && rng.IntN(4) == 0 {
			out = append(out, out[rng.IntN(len(out))].Clone())
			continue
		}
		b := NewBitset(m)
		for a := range m {
			if rng.Float64() < density {
				b.Set(a)
			}
		}
		out = append(out, b)
	}
	return out
}

// bruteIntents returns every intent of the concept lattice of objs: all
// intersections of nonempty sets of objects, and the set of all attributes
// that occur.
func bruteIntents(objs []Bitset, m int) map[string]Bitset {
	all := NewBitset(m)
	for _, o := range objs {
		for i := range all {
			all[i] |= o[i]
		}
	}
	set := map[string]Bitset{fmt.Sprint(all): all}
	work := []Bitset{}
	for _, o := range objs {
		if _, ok := set[fmt.Sprint(o)]; !ok {
			set[fmt.Sprint(o)] = o
			work = append(work, o)
		}
	}
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		for _, o := range objs {
			in := b.Clone()
			for i := range in {
				in[i] &= o[i]
			}
			if _, ok := set[fmt.Sprint(in)]; !ok {
				set[fmt.Sprint(in)] = in
				work = append(work, in)
			}
		}
	}
	return set
}

// checkLattice verifies l against the definition: its concepts are exactly
// the closed sets of objs, each extent holds exactly the objects having the
// intent, the edges are the covering relation, object concepts are right and
// Join intersects intents.
func checkLattice(t *testing.T, l *Lattice, objs []Bitset, m int) {
	t.Helper()
	want := bruteIntents(objs, m)
	if l.Len() != len(want) {
		t.Fatalf("%d concepts, want %d", l.Len(), len(want))
	}
	byIntent := map[string]int{}
	for c := range l.Len() {
		in := l.intent(int32(c))
		if _, ok := want[fmt.Sprint(in)]; !ok {
			t.Fatalf("concept %d has intent %v, which is not closed", c, in.Members())
		}
		if l.cs[c].size != in.Len() {
			t.Fatalf("concept %d: size %d, intent has %d", c, l.cs[c].size, in.Len())
		}
		byIntent[fmt.Sprint(in)] = c
		var ext []int
		for o, b := range objs {
			if in.SubsetOf(b) {
				ext = append(ext, o)
			}
		}
		if got := l.Extent(c); !slices.Equal(got, ext) && !(len(got) == 0 && len(ext) == 0) {
			t.Fatalf("concept %d: extent %v, want %v", c, got, ext)
		}
	}
	if len(byIntent) != l.Len() {
		t.Fatalf("duplicate intents among %d concepts", l.Len())
	}
	strict := func(a, b int) bool {
		return l.cs[a].size < l.cs[b].size && l.intent(int32(a)).SubsetOf(l.intent(int32(b)))
	}
	for a := range l.Len() {
		for b := range l.Len() {
			cover := strict(a, b)
			for c := 0; cover && c < l.Len(); c++ {
				if strict(a, c) && strict(c, b) {
					cover = false
				}
			}
			if got := slices.Contains(l.Parents(b), a); got != cover {
				t.Fatalf("concept %d parent of %d: %v, want %v", a, b, got, cover)
			}
			if got := slices.Contains(l.Children(a), b); got != cover {
				t.Fatalf("concept %d child of %d: %v, want %v", b, a, got, cover)
			}
		}
	}
	if len(l.Parents(l.Top())) != 0 || l.Extent(l.Top()) == nil && len(objs) > 0 || len(l.Extent(l.Top())) != len(objs) {
		t.Fatalf("top %d: parents %v, extent %v", l.Top(), l.Parents(l.Top()), l.Extent(l.Top()))
	}
	if len(l.Children(l.Bottom())) != 0 {
		t.Fatalf("bottom %d has children", l.Bottom())
	}
	for o, b := range objs {
		if g := l.ObjectConcept(o); !l.intent(int32(g)).Equal(b) {
			t.Fatalf("object %d: object concept %d has intent %v, want %v", o, g, l.Intent(g), b.Members())
		}
	}
	for range 20 {
		a, b := rand.IntN(l.Len()), rand.IntN(l.Len())
		j := l.Join(a, b)
		in := l.intent(int32(a)).Clone()
		for i := range in {
			in[i] &= l.intent(int32(b))[i]
		}
		if !l.intent(int32(j)).Equal(in) {
			t.Fatalf("Join(%d, %d) = %d with intent %v, want %v", a, b, j, l.Intent(j), in.Members())
		}
	}
	// Every attribute appears new exactly once, every object exactly once.
	seenA, seenO := map[int]int{}, map[int]int{}
	for c := range l.Len() {
		for _, a := range l.ReducedIntent(c) {
			seenA[a]++
		}
		for _, o := range l.ReducedExtent(c) {
			seenO[o]++
		}
	}
	if len(seenO) != len(objs) || len(seenA) != l.cs[l.Bottom()].size {
		t.Fatalf("reduced labels cover %d objects and %d attributes, want %d and %d", len(seenO), len(seenA), len(objs), l.cs[l.Bottom()].size)
	}
}

// TestLatticeRandom checks Godin's incremental construction against the
// definition on random contexts of many sizes and densities, after every
// added object.
func TestLatticeRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n := 1 + rng.IntN(14)
		m := 1 + rng.IntN(12)
		if trial%10 == 0 {
			m = 60 + rng.IntN(80) // several words per intent
		}
		density := []float64{0.05, 0.2, 0.5, 0.8, 0.95}[trial%5]
		objs := randomIntents(rng, n, m, density)
		l := NewLattice(n, m, Limits{})
		for o, b := range objs {
			if err := l.Add(b); err != nil {
				t.Fatal(err)
			}
			t.Run(fmt.Sprintf("trial%d/n%d-m%d-d%v/obj%d", trial, n, m, density, o), func(t *testing.T) {
				checkLattice(t, l, objs[:o+1], m)
			})
		}
	}
}

func TestLatticeEdgeCases(t *testing.T) {
	// Objects without attributes, before and after others.
	empty := NewBitset(3)
	full := NewBitset(3)
	full.Set(0)
	full.Set(2)
	for _, objs := range [][]Bitset{
		{empty},
		{empty, empty},
		{empty, full},
		{full, empty},
		{full, full, empty, full},
	} {
		l := NewLattice(len(objs), 3, Limits{})
		for _, b := range objs {
			if err := l.Add(b); err != nil {
				t.Fatal(err)
			}
		}
		checkLattice(t, l, objs, 3)
	}
	// No attributes at all.
	l := NewLattice(2, 0, Limits{})
	for range 2 {
		if err := l.Add(NewBitset(0)); err != nil {
			t.Fatal(err)
		}
	}
	if l.Len() != 1 || l.Top() != l.Bottom() {
		t.Errorf("two objects without attributes: %d concepts", l.Len())
	}
	if err := l.Add(NewBitset(0)); err == nil {
		t.Error("Add past the declared object count succeeded")
	}
	if err := NewLattice(1, 70, Limits{}).Add(NewBitset(3)); err == nil {
		t.Error("Add accepted an attribute set of the wrong width")
	}
}

// TestLatticeLimit checks the size guard: a context whose lattice is the
// whole power set stops at the limit with a LimitError, and Similarity falls
// back to bitsets with a notice and the same values.
func TestLatticeLimit(t *testing.T) {
	// Object i lacks attribute i only: every subset of attributes is an
	// intent, 2^m concepts.
	const m = 12
	var objs []Bitset
	for i := range m {
		b := NewBitset(m)
		for a := range m {
			if a != i {
				b.Set(a)
			}
		}
		objs = append(objs, b)
	}
	l := NewLattice(m, m, Limits{MaxConcepts: 1000})
	var err error
	for _, b := range objs {
		if err = l.Add(b); err != nil {
			break
		}
	}
	var le *LimitError
	if !errors.As(err, &le) || le.MaxConcepts != 1000 || le.Objects != m {
		t.Fatalf("error %v, want a LimitError at 1000 concepts", err)
	}
	if l.Len() > 1000 {
		t.Errorf("lattice grew to %d concepts past its limit", l.Len())
	}
	if err2 := l.Add(objs[0]); err2 != err {
		t.Errorf("Add after the limit: %v, want the same error", err2)
	}
	if !strings.Contains(err.Error(), "more than 1000 concepts after") {
		t.Errorf("message %q", err)
	}
	// Unlimited, it is the full power set.
	l = NewLattice(m, m, Limits{MaxConcepts: -1})
	for _, b := range objs {
		if err := l.Add(b); err != nil {
			t.Fatal(err)
		}
	}
	if l.Len() != 1<<m {
		t.Errorf("%d concepts, want %d", l.Len(), 1<<m)
	}
}
