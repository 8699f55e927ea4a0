package nlr_test

import (
	"fmt"

	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// Two ranks of an odd/even sort: each exchanges with its neighbour in a
// loop, rank 1 in the opposite order. Recognize folds each trace's
// repetitions into loops that the traces share in one table.
func ExampleRecognize() {
	names := []string{"", "MPI_Init", "MPI_Send", "MPI_Recv", "MPI_Finalize"}
	const initCall, send, recv, finalize = 1, 2, 3, 4
	rank := func(first, second trace.Symbol) []trace.Symbol {
		s := []trace.Symbol{initCall}
		for range 4 {
			s = append(s, first, second)
		}
		return append(s, finalize)
	}
	seqs, table, err := nlr.Recognize([]nlr.Input{
		{ID: trace.ID{Proc: 0}, Symbols: rank(send, recv)},
		{ID: trace.ID{Proc: 1}, Symbols: rank(recv, send)},
	}, 10, 1)
	if err != nil {
		panic(err)
	}
	name := func(s trace.Symbol) string { return names[s] }
	for i, s := range seqs {
		fmt.Printf("%d: %s\n", i, s.Format(name))
	}
	for _, l := range table.Legend(name, seqs...) {
		fmt.Println(l)
	}
	// Output:
	// 0: MPI_Init, L0^4, MPI_Finalize
	// 1: MPI_Init, L1^4, MPI_Finalize
	// L0 = [MPI_Send, MPI_Recv]
	// L1 = [MPI_Recv, MPI_Send]
}
