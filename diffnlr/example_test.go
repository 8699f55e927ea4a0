package diffnlr_test

import (
	"os"

	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// The swapBug of seeds/002 Fig. 3.5b: after its seventh exchange rank 5
// swaps its send and receive, so its loop L1^16 becomes L1^7 then L0^9.
func ExampleDiff() {
	names := []string{"", "MPI_Init", "MPI_Comm_rank", "MPI_Finalize"}
	call := func(s trace.Symbol) nlr.Element { return nlr.Element{Loop: nlr.NoLoop, Sym: s} }
	normal := nlr.Sequence{call(1), call(2), {Loop: 1, Count: 16}, call(3)}
	faulty := nlr.Sequence{call(1), call(2), {Loop: 1, Count: 7}, {Loop: 0, Count: 9}, call(3)}
	blocks, err := diffnlr.Diff(normal, faulty)
	if err != nil {
		panic(err)
	}
	p := &diffnlr.Picture{
		Blocks: blocks,
		Label: func(e nlr.Element) string {
			if e.IsLoop() {
				return diffnlr.Label(e)
			}
			return names[e.Sym]
		},
	}
	if err := p.WriteText(os.Stdout, false); err != nil {
		panic(err)
	}
	// Output:
	// --- normal
	// +++ faulty
	//   MPI_Init
	//   MPI_Comm_rank
	// - L1^16
	// + L1^7  (L1 ×16 → ×7)
	// + L0^9
	//   MPI_Finalize
}
