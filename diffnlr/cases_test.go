package diffnlr

import (
	"github.com/difftrace/difftrace/diffnlr/diffnlrtest"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/nlr"
)

// The cases of diffnlrtest under the names the tests use.
var (
	sym             = diffnlrtest.Sym
	loop            = diffnlrtest.Loop
	testLabel       = diffnlrtest.Label
	seq             = diffnlrtest.Seq
	oddevenNormal   = diffnlrtest.OddEvenNormal
	swapFaulty      = diffnlrtest.SwapFaulty
	dlFaulty        = diffnlrtest.DLFaulty
	ilcsNormal      = diffnlrtest.ILCSNormal
	ilcsFaulty      = diffnlrtest.ILCSFaulty
	allreduceNormal = diffnlrtest.AllreduceNormal
	allreduceFaulty = diffnlrtest.AllreduceFaulty
	randomSeq       = diffnlrtest.RandomSeq
	mutate          = diffnlrtest.Mutate
	benchPair       = diffnlrtest.LongPair
)

// describe writes blocks compactly: "common[MPI_Init L1^16] faulty-only[L0^9]".
func describe(blocks []Block) string {
	var b strings.Builder
	for i, bl := range blocks {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(bl.Kind.String())
		b.WriteByte('[')
		for j, e := range bl.Elems {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(testLabel(e))
		}
		b.WriteByte(']')
	}
	return b.String()
}

// mustDiff is Diff for sequences that cannot fail.
func mustDiff(t testing.TB, normal, faulty nlr.Sequence) []Block {
	t.Helper()
	blocks, err := Diff(normal, faulty)
	if err != nil {
		t.Fatal(err)
	}
	return blocks
}
