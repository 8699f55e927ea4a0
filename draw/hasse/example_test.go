package hasse_test

import (
	"os"

	"github.com/difftrace/difftrace/draw"
	"github.com/difftrace/difftrace/draw/hasse"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// The lattice of seeds/002 Fig. 3.3: four ranks of an odd/even sort share
// their setup calls; ranks 0 and 2 run loop L0, ranks 1 and 3 loop L1.
func ExampleWrite() {
	names := []string{"", "MPI_Init", "MPI_Comm_rank", "MPI_Finalize"}
	call := func(s trace.Symbol) nlr.Element { return nlr.Element{Loop: nlr.NoLoop, Sym: s} }
	var ids []trace.ID
	var seqs []nlr.Sequence
	for p := range 4 {
		ids = append(ids, trace.ID{Proc: p, Thread: trace.AllThreads})
		seqs = append(seqs, nlr.Sequence{call(1), call(2), {Loop: int32(p % 2), Count: 3}, call(3)})
	}
	c, err := fca.NewContext(fca.Mode{}, ids, seqs, func(s trace.Symbol) string { return names[s] })
	if err != nil {
		panic(err)
	}
	l, err := fca.BuildLattice(c, fca.Limits{})
	if err != nil {
		panic(err)
	}
	if err := hasse.Write(os.Stdout, draw.DOT, c, l); err != nil {
		panic(err)
	}
	// Output:
	// digraph lattice {
	// 	graph [label=<Concept lattice (sing.noFreq): 4 traces in 2 classes, 5 attributes, 4 concepts<BR/><FONT POINT-SIZE="10">blue: attributes that first appear at a concept (read down: every concept below has them) · yellow: the traces it stands for (read up: they have every attribute above)</FONT>>, labelloc="t", fontname="Helvetica", fontsize="13", nodesep="0.3", ranksep="0.45", pad="0.25", bgcolor="#ffffff"];
	// 	node [shape="plaintext", fontname="Helvetica", fontsize="10", margin="0", width="0", height="0"];
	// 	edge [dir="none", color="#555555", penwidth="1.2"];
	// 	c2 [label=<<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0" CELLPADDING="3" COLOR="#555555"><TR><TD BGCOLOR="#d6e6f7" ALIGN="LEFT" BALIGN="LEFT">MPI_Init<BR/>MPI_Comm_rank<BR/>MPI_Finalize</TD></TR></TABLE>>, tooltip="4 traces, 3 attributes"];
	// 	c0 [label=<<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0" CELLPADDING="3" COLOR="#555555"><TR><TD BGCOLOR="#d6e6f7" ALIGN="LEFT" BALIGN="LEFT">L0</TD></TR><TR><TD BGCOLOR="#fff0c2" BALIGN="LEFT">0, 2</TD></TR></TABLE>>, tooltip="2 traces, 4 attributes"];
	// 	c3 [label=<<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0" CELLPADDING="3" COLOR="#555555"><TR><TD BGCOLOR="#d6e6f7" ALIGN="LEFT" BALIGN="LEFT">L1</TD></TR><TR><TD BGCOLOR="#fff0c2" BALIGN="LEFT">1, 3</TD></TR></TABLE>>, tooltip="2 traces, 4 attributes"];
	// 	c1 [shape="point", width="0.12", color="#555555", tooltip="0 traces, 5 attributes"];
	// 	c2 -> c0;
	// 	c2 -> c3;
	// 	c0 -> c1;
	// 	c3 -> c1;
	// }
}
