package diffnlr

import (
	"io"
	"math/rand/v2"
	"testing"
)

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
