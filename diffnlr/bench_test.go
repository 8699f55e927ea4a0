package diffnlr

import (
	"io"
	"math/rand/v2"
	"testing"

	"github.com/difftrace/difftrace/draw"
	"github.com/difftrace/difftrace/nlr"
)

// benchPair is a 100,000-element NLR sequence over 200 distinct elements
// and a copy with the given number of random edits (deletions, insertions
// of one to three elements, substitutions).
func benchPair(edits int) (normal, faulty nlr.Sequence) {
	r := rand.New(rand.NewPCG(5, 6))
	normal = randomSeq(r, 100_000, 200)
	faulty = mutate(r, normal, edits, 200)
	return normal, faulty
}

func benchmarkDiff(b *testing.B, edits int) {
	normal, faulty := benchPair(edits)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Diff(normal, faulty); err != nil {
			b.Fatal(err)
		}
	}
}

// Two 100,000-element traces: identical, 0.1 %, 1 % and 5 % edited.
func BenchmarkDiff100kSame(b *testing.B)     { benchmarkDiff(b, 0) }
func BenchmarkDiff100k100Edits(b *testing.B) { benchmarkDiff(b, 100) }
func BenchmarkDiff100k1kEdits(b *testing.B)  { benchmarkDiff(b, 1_000) }
func BenchmarkDiff100k5kEdits(b *testing.B)  { benchmarkDiff(b, 5_000) }

func benchmarkRender(b *testing.B, f draw.Format, abridge Abridge) {
	normal, faulty := benchPair(1_000)
	blocks, err := Diff(normal, faulty)
	if err != nil {
		b.Fatal(err)
	}
	p := &Picture{Blocks: blocks, Label: testLabel, Abridge: abridge}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := p.Render(io.Discard, f); err != nil {
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

func BenchmarkWriteTextLong(b *testing.B) {
	normal, faulty := benchPair(1_000)
	blocks, err := Diff(normal, faulty)
	if err != nil {
		b.Fatal(err)
	}
	p := &Picture{Blocks: blocks, Label: testLabel, Abridge: Full}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := p.WriteText(io.Discard, true); err != nil {
			b.Fatal(err)
		}
	}
}

// Two unrelated 20,000-element traces, the worst case: D is about as large
// as the traces, and the time grows as (N+M)·D.
func BenchmarkDiff20kUnrelated(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	normal, faulty := randomSeq(r, 20_000, 200), randomSeq(r, 20_000, 200)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Diff(normal, faulty); err != nil {
			b.Fatal(err)
		}
	}
}
