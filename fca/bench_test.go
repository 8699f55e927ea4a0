package fca

import (
	"fmt"
	"testing"

	"github.com/difftrace/difftrace/fca/fcatest"
)

func benchContext(b *testing.B, n int, distinct bool, m Mode) *Context {
	ids, seqs := fcatest.StencilRun(n, distinct, 1)
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

// BenchmarkColumnsRow measures the similarities of a few classes to every
// class of a large lazily computed JSM (what a farthest-first choice of
// representatives reads): 64 rows over the classes of 65,536 traces that
// each call one of many loops a varying number of times.
func BenchmarkColumnsRow(b *testing.B) {
	c := benchContext(b, 65536, true, Mode{Freq: Actual})
	j := LazyJSM(c)
	all := make([]int, c.NumClasses())
	for p := range all {
		all[p] = p
	}
	cols := j.Columns(all)
	var dst []float64
	for b.Loop() {
		for p := 0; p < 64; p++ {
			dst = cols.Row(dst, p*len(all)/64)
		}
	}
	b.ReportMetric(float64(c.NumClasses()), "classes")
	b.ReportMetric(float64(c.NumAttrs()), "attributes")
}
