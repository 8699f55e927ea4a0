package diffgraph

import (
	"io"
	"testing"

	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/diffnlr/diffnlrtest"
	"github.com/difftrace/difftrace/draw"
)

func benchmarkRender(b *testing.B, f draw.Format, abridge diffnlr.Abridge) {
	normal, faulty := diffnlrtest.LongPair(1_000)
	blocks, err := diffnlr.Diff(normal, faulty)
	if err != nil {
		b.Fatal(err)
	}
	p := &diffnlr.Picture{Blocks: blocks, Label: diffnlrtest.Label, Abridge: abridge}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := Render(io.Discard, p, f); err != nil {
			b.Fatal(err)
		}
	}
}

// The diff of two 100,000-element traces with 1,000 edits (≈ 950 changes),
// abridged by default (20 changes shown) or to 100 changes.
func BenchmarkRenderLongSVG(b *testing.B) { benchmarkRender(b, draw.SVG, Abridge{}) }
func BenchmarkRenderLongPNG(b *testing.B) { benchmarkRender(b, draw.PNG, Abridge{}) }
func BenchmarkRenderLongDOT(b *testing.B) { benchmarkRender(b, draw.DOT, Abridge{}) }
func BenchmarkRenderLong100ChangesSVG(b *testing.B) {
	benchmarkRender(b, draw.SVG, Abridge{Changes: 100})
}
func BenchmarkRenderLong100ChangesPNG(b *testing.B) {
	benchmarkRender(b, draw.PNG, Abridge{Changes: 100})
}
