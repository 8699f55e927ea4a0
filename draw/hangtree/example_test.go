package hangtree_test

import (
	"fmt"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/draw/hangtree"
	"github.com/difftrace/difftrace/hang"
)

// The tree of where the ranks of the committed stencil run stopped: rank 3
// skipped its halo exchange in step 6, its neighbours wait for it.
func ExampleDOT() {
	c, err := compare.Open([]string{"../../testdata/runs/stencil-normal", "../../testdata/runs/stencil-skipbug"}, compare.Options{})
	if err != nil {
		panic(err)
	}
	rep, err := hang.Analyze(c, hang.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Print(string(hangtree.DOT(rep)))
	// Output:
	// digraph hang {
	// 	graph [rankdir="TB", fontname="Helvetica"];
	// 	node [shape="box", style="rounded,filled", fillcolor="#eef3fb", color="#4a6fa5", fontname="Helvetica", fontsize="11"];
	// 	edge [color="#4a6fa5", fontname="Helvetica", fontsize="10"];
	// 	n0 [label="all traces\n[0-7]"];
	// 	n1 [label="main\ndriver::Simulation::run\ndriver::Simulation::step\n[0-7]"];
	// 	n2 [label="driver::Simulation::diagnose\ndiag::Monitor::global_residual\nMPI_Allreduce\n[0-1,3,5-7]", fillcolor="#fde2e1", color="#b3261e"];
	// 	n1 -> n2 [label="6"];
	// 	n3 [label="driver::Simulation::exchange\nhalo::Exchanger::exchange\nMPI_Waitall\n[2,4]", fillcolor="#fde2e1", color="#b3261e"];
	// 	n1 -> n3 [label="2"];
	// 	n0 -> n1 [label="8"];
	// }
}
