package diffgraph

import (
	"testing"

	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/diffnlr/diffnlrtest"
	_ "github.com/difftrace/difftrace/draw/graphviz" // draw in this process, not with the helper
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// The pictures drawn are diffnlr's, of the cases diffnlrtest holds; the
// names below keep the tests short.
type (
	Picture    = diffnlr.Picture
	Section    = diffnlr.Section
	Abridge    = diffnlr.Abridge
	nlrElement = nlr.Element
	symbol     = trace.Symbol
)

var (
	sym             = diffnlrtest.Sym
	loop            = diffnlrtest.Loop
	seq             = diffnlrtest.Seq
	testLabel       = diffnlrtest.Label
	oddevenLegend   = diffnlrtest.OddEvenLegend
	oddevenNormal   = diffnlrtest.OddEvenNormal
	swapFaulty      = diffnlrtest.SwapFaulty
	dlFaulty        = diffnlrtest.DLFaulty
	ilcsNormal      = diffnlrtest.ILCSNormal
	ilcsFaulty      = diffnlrtest.ILCSFaulty
	allreduceNormal = diffnlrtest.AllreduceNormal
	allreduceFaulty = diffnlrtest.AllreduceFaulty
)

// mustDiff is diffnlr.Diff for sequences that cannot fail.
func mustDiff(t testing.TB, normal, faulty nlr.Sequence) []diffnlr.Block {
	t.Helper()
	blocks, err := diffnlr.Diff(normal, faulty)
	if err != nil {
		t.Fatal(err)
	}
	return blocks
}
