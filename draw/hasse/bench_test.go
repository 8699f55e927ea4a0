package hasse

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/difftrace/difftrace/draw"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/fca/fcatest"
)

// BenchmarkWrite draws Hasse diagrams as SVG and PNG: a lattice of a
// run's few classes (18 concepts) and a large one (168 concepts).
func BenchmarkWrite(b *testing.B) {
	for _, tc := range []struct {
		name     string
		distinct bool
		mode     fca.Mode
	}{
		{"classes/sing.actual", false, fca.Mode{Freq: fca.Actual}},
		{"distinct/sing.log10", true, fca.Mode{Freq: fca.Log10}},
	} {
		ids, seqs := fcatest.StencilRun(1024, tc.distinct, 1)
		c, err := fca.NewContext(tc.mode, ids, seqs, nil)
		if err != nil {
			b.Fatal(err)
		}
		l, err := fca.BuildLattice(c, fca.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range []draw.Format{draw.SVG, draw.PNG} {
			b.Run(fmt.Sprintf("n1024/%s/%s", tc.name, f), func(b *testing.B) {
				var size int
				for b.Loop() {
					var buf bytes.Buffer
					if err := Write(&buf, f, c, l); err != nil {
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
