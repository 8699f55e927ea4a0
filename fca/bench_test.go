package fca

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/difftrace/difftrace/draw"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// Symbols of the synthetic MPI runs below.
const (
	bInit trace.Symbol = iota + 1
	bRank
	bSize
	bBarrier
	bAllreduce
	bFinalize
	bIsend
	bIrecv
	bWaitall
	bAbort
	bProbe
	bOptional // bOptional+i: rarely called functions
)

// stencilRun returns the NLRs of an n-rank 2D stencil code on a √n × √n
// grid. Loops: L0 compute, L1…L9 the halo exchange of each grid position
// (corner, edge, interior: their bodies differ in how many neighbours they
// talk to), L10 a convergence loop.
//
// With distinct false the run has the equivalence classes of a real run: the
// 9 grid positions, a few ranks that take more convergence steps and 1% that
// call an extra function. With distinct true each rank's data decides its
// iteration counts (a compute loop with one of 512 counts, a convergence
// loop with one of 16) and some ranks call rarely used functions, so nearly
// every rank has an attribute set of its own under an actual-frequency mode.
func stencilRun(n int, distinct bool, seed uint64) ([]trace.ID, []nlr.Sequence) {
	rng := rand.New(rand.NewPCG(seed, 7))
	side := 1
	for side*side < n {
		side++
	}
	var ids []trace.ID
	var seqs []nlr.Sequence
	for r := range n {
		x, y := r%side, r/side
		pos := 0 // grid position class 0..8
		if x > 0 {
			pos++
			if x == side-1 {
				pos++
			}
		}
		if y > 0 {
			pos += 3
			if y == side-1 {
				pos += 3
			}
		}
		iters, conv := int32(100), int32(8)
		if distinct {
			iters = 1000 + int32(rng.IntN(512))
			conv = 8 + int32(rng.IntN(16))
		} else if r%97 == 5 {
			conv = 9
		}
		s := nlr.Sequence{sym(bInit), sym(bRank), sym(bSize), sym(bBarrier),
			loop(0, iters), loop(int32(1+pos), iters), loop(10, conv), sym(bAllreduce)}
		if distinct {
			for i := range 6 {
				if rng.IntN(10) == 0 {
					s = append(s, sym(bOptional+trace.Symbol(i)), sym(bAllreduce))
				}
			}
		} else if r%100 == 42 {
			s = append(s, sym(bProbe))
		}
		s = append(s, sym(bBarrier), sym(bFinalize))
		ids = append(ids, trace.ID{Proc: r, Thread: 0})
		seqs = append(seqs, s)
	}
	return ids, seqs
}

func benchContext(b *testing.B, n int, distinct bool, m Mode) *Context {
	ids, seqs := stencilRun(n, distinct, 1)
	c, err := NewContext(m, ids, seqs, nil)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

var benchCases = []struct {
	name     string
	distinct bool
	mode     Mode
}{
	{"classes/sing.actual", false, Mode{Freq: Actual}},
	{"distinct/sing.actual", true, Mode{Freq: Actual}},
	{"distinct/sing.log10", true, Mode{Freq: Log10}},
	{"distinct/doub.actual", true, Mode{Double: true, Freq: Actual}},
}

// BenchmarkSimilarity measures lattice + JSM: Similarity (Godin's lattice
// over the classes, the JSM read off it) and the expansion to the dense
// trace × trace matrix.
func BenchmarkSimilarity(b *testing.B) {
	for _, n := range []int{1024, 4096} {
		for _, tc := range benchCases {
			c := benchContext(b, n, tc.distinct, tc.mode)
			b.Run(fmt.Sprintf("n%d/%s", n, tc.name), func(b *testing.B) {
				var concepts int
				for b.Loop() {
					j, l, err := Similarity(c, Limits{})
					if err != nil {
						b.Fatal(err)
					}
					if j.Notice() != "" {
						b.Fatal(j.Notice())
					}
					_ = j.Dense()
					concepts = l.Len()
				}
				b.ReportMetric(float64(c.NumClasses()), "classes")
				b.ReportMetric(float64(concepts), "concepts")
			})
		}
	}
}

// BenchmarkJSM compares reading the class JSM off a built lattice with
// computing it from bitsets, on the hardest case above.
func BenchmarkJSM(b *testing.B) {
	c := benchContext(b, 4096, true, Mode{Freq: Actual})
	l, err := BuildLattice(c, Limits{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("lattice", func(b *testing.B) {
		for b.Loop() {
			if _, err := LatticeJSM(c, l); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bitsets", func(b *testing.B) {
		for b.Loop() {
			BitsetJSM(c)
		}
	})
}

// BenchmarkWriteLattice draws Hasse diagrams as SVG and PNG: a lattice of a
// run's few classes (18 concepts) and a large one (168 concepts).
func BenchmarkWriteLattice(b *testing.B) {
	for _, tc := range []struct {
		name     string
		distinct bool
		mode     Mode
	}{
		{"classes/sing.actual", false, Mode{Freq: Actual}},
		{"distinct/sing.log10", true, Mode{Freq: Log10}},
	} {
		c := benchContext(b, 1024, tc.distinct, tc.mode)
		l, err := BuildLattice(c, Limits{})
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range []draw.Format{draw.SVG, draw.PNG} {
			b.Run(fmt.Sprintf("n1024/%s/%s", tc.name, f), func(b *testing.B) {
				var size int
				for b.Loop() {
					var buf bytes.Buffer
					if err := WriteLattice(&buf, f, c, l); err != nil {
						b.Fatal(err)
					}
					size = buf.Len()
				}
				b.ReportMetric(float64(l.Len()), "concepts")
				b.ReportMetric(float64(size), "bytes")
			})
		}
	}
}
