package fca_test

import (
	"fmt"

	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// The odd/even sort of seeds/002 Tables 3.3–3.5: four ranks share their
// setup calls, ranks 0 and 2 run loop L0, ranks 1 and 3 loop L1. Their
// Jaccard similarity is 1 within each pair and 4/6 across.
func ExampleSimilarity() {
	names := []string{"", "MPI_Init", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Finalize"}
	call := func(s trace.Symbol) nlr.Element { return nlr.Element{Loop: nlr.NoLoop, Sym: s} }
	var ids []trace.ID
	var seqs []nlr.Sequence
	for p := range 4 {
		ids = append(ids, trace.ID{Proc: p, Thread: trace.AllThreads})
		loop := nlr.Element{Loop: int32(p % 2), Count: int32(2 + 2*(p/2))}
		seqs = append(seqs, nlr.Sequence{call(1), call(2), call(3), loop, call(4)})
	}
	c, err := fca.NewContext(fca.Mode{}, ids, seqs, func(s trace.Symbol) string { return names[s] })
	if err != nil {
		panic(err)
	}
	jsm, lattice, err := fca.Similarity(c, fca.Limits{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d traces in %d classes, %d concepts\n", c.Len(), c.NumClasses(), lattice.Len())
	for a := range 4 {
		for b := range 4 {
			fmt.Printf(" %.2f", jsm.At(a, b))
		}
		fmt.Println()
	}
	// Output:
	// 4 traces in 2 classes, 4 concepts
	//  1.00 0.67 1.00 0.67
	//  0.67 1.00 0.67 1.00
	//  1.00 0.67 1.00 0.67
	//  0.67 1.00 0.67 1.00
}
