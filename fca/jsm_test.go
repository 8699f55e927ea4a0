package fca

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/fca/fcatest"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// TestJSMOddEven checks the JSM of the odd/even example (seeds/002 Fig. 3.4):
// traces of one parity are identical, and traces of different parity share
// the four setup calls out of six attributes.
func TestJSMOddEven(t *testing.T) {
	ids, seqs := oddEven()
	c, err := NewContext(Mode{}, ids, seqs, symName)
	if err != nil {
		t.Fatal(err)
	}
	j, l, err := Similarity(c, Limits{})
	if err != nil || l == nil || j.Notice() != "" {
		t.Fatalf("Similarity: %v, lattice %v, notice %q", err, l, j.Notice())
	}
	want := [4][4]float64{
		{1, 4.0 / 6, 1, 4.0 / 6},
		{4.0 / 6, 1, 4.0 / 6, 1},
		{1, 4.0 / 6, 1, 4.0 / 6},
		{4.0 / 6, 1, 4.0 / 6, 1},
	}
	d := j.Dense()
	for a := range 4 {
		for b := range 4 {
			if j.At(a, b) != want[a][b] || d.At(a, b) != want[a][b] {
				t.Errorf("JSM[%d][%d] = %v (dense %v), want %v", a, b, j.At(a, b), d.At(a, b), want[a][b])
			}
		}
	}
	// With frequencies, the loop counts tell the edge ranks from the inner
	// ones: sing.actual has L0:2, L1:4, L0:4, L1:2, so no two traces are
	// identical and T0–T2 share 4 of 6 attributes.
	c, _ = NewContext(Mode{Freq: Actual}, ids, seqs, symName)
	j, _, _ = Similarity(c, Limits{})
	if got := j.At(0, 2); got != 4.0/6 {
		t.Errorf("sing.actual JSM[0][2] = %v, want 4/6", got)
	}
	if got := j.At(0, 1); got != 4.0/6 {
		t.Errorf("sing.actual JSM[0][1] = %v, want 4/6", got)
	}
	var b strings.Builder
	if err := WriteCSV(&b, false, JSMPanel("JSM", j)); err != nil {
		t.Fatal(err)
	}
	wantCSV := "trace,0,1,2,3\n0,1,0.666667,0.666667,0.666667\n1,0.666667,1,0.666667,0.666667\n2,0.666667,0.666667,1,0.666667\n3,0.666667,0.666667,0.666667,1\n"
	if b.String() != wantCSV {
		t.Errorf("CSV:\n%s\nwant:\n%s", b.String(), wantCSV)
	}
	// Two matrices in one table: a first column names each row's matrix.
	b.Reset()
	if err := WriteCSV(&b, true, JSMPanel("JSM_normal (run a)", j), JSMPanel("JSM_faulty", j)); err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSuffix(wantCSV, "\n"), "\n")
	wantNamed := "matrix," + rows[0] + "\n"
	for _, name := range []string{"JSM_normal", "JSM_faulty"} {
		for _, r := range rows[1:] {
			wantNamed += name + "," + r + "\n"
		}
	}
	if b.String() != wantNamed {
		t.Errorf("named CSV:\n%s\nwant:\n%s", b.String(), wantNamed)
	}
}

// randomContext returns a context of n traces whose attribute sets are
// random subsets of m symbols with the given density, with repeats (so
// classes hold several traces) and some empty sets.
func randomContext(t testing.TB, rng *rand.Rand, n, m int, density float64) *Context {
	var ids []trace.ID
	var seqs []nlr.Sequence
	for i := range n {
		ids = append(ids, trace.ID{Proc: i, Thread: 0})
		if i > 0 && rng.IntN(5) == 0 {
			seqs = append(seqs, seqs[rng.IntN(i)])
			continue
		}
		var s nlr.Sequence
		for a := range m {
			if rng.Float64() < density {
				s = append(s, sym(trace.Symbol(a+1)))
			}
		}
		seqs = append(seqs, s)
	}
	c, err := NewContext(Mode{}, ids, seqs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestJSMRandom is the property test: on random contexts of many sizes and
// densities, the JSM read off the lattice equals Jaccard on bitsets and
// Jaccard on plain attribute lists, trace by trace.
func TestJSMRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 120 {
		n := 1 + rng.IntN(60)
		if trial%8 == 0 {
			n = 150 + rng.IntN(150) // several workers, several words of extent
		}
		m := 1 + rng.IntN(30)
		if trial%6 == 0 {
			m = 64 + rng.IntN(100)
		}
		density := []float64{0.02, 0.1, 0.3, 0.6, 0.9}[trial%5]
		if n > 16 && density > 0.1 {
			// Dense wide contexts of many objects have lattices of
			// millions of concepts (up to 2^m); keep such trials narrow.
			m = min(m, 16)
		}
		c := randomContext(t, rng, n, m, density)
		name := fmt.Sprintf("n%d-m%d-d%v", n, m, density)
		l, err := BuildLattice(c, Limits{MaxConcepts: 300_000})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		lj, err := LatticeJSM(c, l)
		if err != nil {
			t.Fatal(err)
		}
		bj := BitsetJSM(c)
		sets := make([]map[int]bool, n)
		for a := range n {
			sets[a] = map[int]bool{}
			for _, x := range c.Attrs(a) {
				sets[a][x] = true
			}
		}
		for a := range n {
			for b := range n {
				want := jaccard(sets[a], sets[b])
				if lj.At(a, b) != want || bj.At(a, b) != want {
					t.Fatalf("%s: JSM[%d][%d]: lattice %v, bitsets %v, want %v", name, a, b, lj.At(a, b), bj.At(a, b), want)
				}
			}
		}
	}
}

// jaccard is |A∩B|/|A∪B|, 1 for two empty sets.
func jaccard(a, b map[int]bool) float64 {
	n := 0
	for x := range b {
		if a[x] {
			n++
		}
	}
	u := len(a) + len(b) - n
	if u == 0 {
		return 1
	}
	return float64(n) / float64(u)
}

// TestSimilarityFallback checks that a lattice past its limit gives way to
// bitsets, with a notice and the same matrix.
func TestSimilarityFallback(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	c := randomContext(t, rng, 80, 20, 0.5)
	j, l, err := Similarity(c, Limits{MaxConcepts: 50})
	if err != nil {
		t.Fatal(err)
	}
	if l != nil || !strings.Contains(j.Notice(), "limit of 50 concepts") || !strings.Contains(j.Notice(), "bitsets") {
		t.Fatalf("lattice %v, notice %q", l, j.Notice())
	}
	full, l, err := Similarity(c, Limits{MaxConcepts: -1})
	if err != nil || l == nil || full.Notice() != "" {
		t.Fatalf("unlimited: %v, %v, %q", err, l, full.Notice())
	}
	for a := range c.Len() {
		for b := range c.Len() {
			if j.At(a, b) != full.At(a, b) {
				t.Fatalf("JSM[%d][%d]: fallback %v, lattice %v", a, b, j.At(a, b), full.At(a, b))
			}
		}
	}
	// A lattice of the wrong context is refused.
	if _, err := LatticeJSM(randomContext(t, rng, 5, 3, 0.5), l); err == nil {
		t.Error("LatticeJSM accepted a lattice of another context")
	}
}

// TestJSMEmpty checks a context without traces and one whose traces have no
// attributes (two empty sets are identical).
func TestJSMEmpty(t *testing.T) {
	c, err := NewContext(Mode{}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	j, l, err := Similarity(c, Limits{})
	if err != nil || l.Len() != 0 || j.SymmetricDim() != 0 || j.Dense().SymmetricDim() != 0 {
		t.Fatalf("empty context: %v, %d concepts, %d traces", err, l.Len(), j.SymmetricDim())
	}
	var b strings.Builder
	if err := WriteCSV(&b, false, JSMPanel("JSM", j)); err != nil || b.String() != "trace\n" {
		t.Errorf("CSV of nothing: %q, %v", b.String(), err)
	}
	ids := []trace.ID{{Proc: 0, Thread: 0}, {Proc: 1, Thread: 0}, {Proc: 2, Thread: 0}}
	c, _ = NewContext(Mode{Double: true}, ids, []nlr.Sequence{{}, {sym(1)}, {sym(1), sym(2)}}, nil)
	j, _, _ = Similarity(c, Limits{})
	if j.At(0, 1) != 1 || j.At(0, 2) != 0 || j.At(2, 2) != 1 {
		t.Errorf("JSM with empty sets: %v %v %v; want 1 0 1", j.At(0, 1), j.At(0, 2), j.At(2, 2))
	}
}

// TestJSMStencil checks lattice-JSM == bitset JSM on the synthetic MPI runs of
// the benchmarks, in every attribute mode.
func TestJSMStencil(t *testing.T) {
	for _, distinct := range []bool{false, true} {
		ids, seqs := fcatest.StencilRun(300, distinct, 9)
		for _, m := range Modes() {
			c, err := NewContext(m, ids, seqs, nil)
			if err != nil {
				t.Fatal(err)
			}
			j, l, err := Similarity(c, Limits{})
			if err != nil || l == nil {
				t.Fatalf("%v: %v", m, err)
			}
			bj := BitsetJSM(c)
			for p := range c.NumClasses() {
				for q := range c.NumClasses() {
					if j.ClassAt(p, q) != bj.ClassAt(p, q) {
						t.Fatalf("%v distinct=%v: classes %d, %d: lattice %v, bitsets %v", m, distinct, p, q, j.ClassAt(p, q), bj.ClassAt(p, q))
					}
				}
			}
		}
	}
}

// TestJSMCores checks that the JSM does not depend on the number of cores.
func TestJSMCores(t *testing.T) {
	ids, seqs := fcatest.StencilRun(700, true, 4)
	c, err := NewContext(Mode{Freq: Actual}, ids, seqs, nil)
	if err != nil {
		t.Fatal(err)
	}
	csv := func(procs int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		j, _, err := Similarity(c, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		WriteCSV(&b, false, JSMPanel("JSM", j))
		return b.String()
	}
	if one, four := csv(1), csv(4); one != four {
		t.Error("the JSM differs between 1 and 4 cores")
	}
}

// LazyJSM computes, when asked, the values BitsetJSM stores.
func TestLazyJSMSameAsBitset(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 3))
		c := randomContext(t, rng, 5+rng.IntN(60), 1+rng.IntN(20), 0.3)
		want, got := BitsetJSM(c), LazyJSM(c)
		for a := range c.Len() {
			for b := range c.Len() {
				if got.At(a, b) != want.At(a, b) {
					t.Fatalf("seed %d: At(%d, %d) = %v, want %v", seed, a, b, got.At(a, b), want.At(a, b))
				}
			}
		}
	}
}

// A row of Columns is ClassAt, bit for bit, for stored and lazy JSMs, with
// attribute words most classes use (held dense) and words few use.
func TestColumnsSameAsClassAt(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 5))
		density := 0.2
		if seed%2 == 1 {
			density = 0.01
		}
		c := randomContext(t, rng, 5+rng.IntN(60), 1+rng.IntN(1000), density)
		k := c.NumClasses()
		var qs []int
		for range 1 + rng.IntN(2*k) {
			qs = append(qs, rng.IntN(k))
		}
		for _, j := range []*JSM{BitsetJSM(c), LazyJSM(c)} {
			cols := j.Columns(qs)
			var row []float64
			for p := range k {
				row = cols.Row(row, p)
				for y, q := range qs {
					if row[y] != j.ClassAt(p, q) {
						t.Fatalf("seed %d: row %d, column %d (class %d): %v, ClassAt %v", seed, p, y, q, row[y], j.ClassAt(p, q))
					}
				}
			}
		}
	}
}

// Leaves: every class when they are few; otherwise at most the bound, the
// classes asked for first, each class on a nearest leaf, the weights the
// objects they stand for, the distances 1 − ClassAt between the leaves.
func TestLeaves(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 13))
		c := randomContext(t, rng, 20+rng.IntN(60), 1+rng.IntN(300), 0.05)
		j := LazyJSM(c)
		k := c.NumClasses()
		most := 1 + rng.IntN(k+2)
		first := []int{rng.IntN(k)}
		l := j.Leaves(most, first)
		if len(l.Classes) > most || k <= most && len(l.Classes) != k || k > most && l.Classes[0] != first[0] {
			t.Fatalf("seed %d: %d classes, at most %d: leaves %v (first %v)", seed, k, most, l.Classes, first)
		}
		total := 0
		for _, w := range l.Weight {
			total += w
		}
		if total != c.Len() {
			t.Fatalf("seed %d: leaves weigh %d objects of %d", seed, total, c.Len())
		}
		for p := range k {
			best := 2.0
			for _, q := range l.Classes {
				best = min(best, 1-j.ClassAt(p, q))
			}
			if d := 1 - j.ClassAt(p, l.Classes[l.Of[p]]); d != best {
				t.Fatalf("seed %d: class %d on a leaf at %v, the nearest at %v", seed, p, d, best)
			}
		}
		x := 0
		for a := range l.Classes {
			for b := a + 1; b < len(l.Classes); b++ {
				if l.Dist[x] != 1-j.ClassAt(l.Classes[a], l.Classes[b]) {
					t.Fatalf("seed %d: distance %d is %v", seed, x, l.Dist[x])
				}
				x++
			}
		}
	}
}
