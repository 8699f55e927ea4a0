package fca

import (
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// The odd/even sort example of seeds/002 Tables 3.2–3.4.
const (
	symInit trace.Symbol = iota + 1
	symRank
	symSize
	symFinalize
	symSend
	symRecv
)

var symNames = map[trace.Symbol]string{
	symInit: "MPI_Init", symRank: "MPI_Comm_rank", symSize: "MPI_Comm_size",
	symFinalize: "MPI_Finalize", symSend: "MPI_Send", symRecv: "MPI_Recv",
}

func symName(s trace.Symbol) string { return symNames[s] }

func sym(s trace.Symbol) nlr.Element { return nlr.Element{Loop: nlr.NoLoop, Sym: s} }

func loop(id, count int32) nlr.Element { return nlr.Element{Loop: id, Count: count} }

// oddEven returns the NLRs of seeds/002 Table 3.3: T0..T3 with L0^2, L1^4,
// L0^4, L1^2 between the setup calls and MPI_Finalize.
func oddEven() ([]trace.ID, []nlr.Sequence) {
	var ids []trace.ID
	var seqs []nlr.Sequence
	for p, l := range []nlr.Element{loop(0, 2), loop(1, 4), loop(0, 4), loop(1, 2)} {
		ids = append(ids, trace.ID{Proc: p, Thread: trace.AllThreads})
		seqs = append(seqs, nlr.Sequence{sym(symInit), sym(symRank), sym(symSize), l, sym(symFinalize)})
	}
	return ids, seqs
}

// names maps attribute or object numbers through fn.
func names(idx []int, fn func(int) string) []string {
	out := []string{}
	for _, i := range idx {
		out = append(out, fn(i))
	}
	return out
}
