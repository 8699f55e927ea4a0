// Package fcatest holds the runs fca's tests and benchmarks, and those of
// the pictures drawn from its lattices and matrices, are made of: the
// odd/even sort of seeds/002 Tables 3.2–3.4 and synthetic stencil runs of
// any size. Tests import it; nothing else may.
package fcatest

import (
	"math/rand/v2"

	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// The odd/even sort example's symbols.
const (
	Init trace.Symbol = iota + 1
	Rank
	Size
	Finalize
	Send
	Recv
)

// Names are the odd/even example's function names.
var Names = map[trace.Symbol]string{
	Init: "MPI_Init", Rank: "MPI_Comm_rank", Size: "MPI_Comm_size",
	Finalize: "MPI_Finalize", Send: "MPI_Send", Recv: "MPI_Recv",
}

// Name names a symbol of the odd/even example.
func Name(s trace.Symbol) string { return Names[s] }

func call(s trace.Symbol) nlr.Element { return nlr.Element{Loop: nlr.NoLoop, Sym: s} }

func loop(id, count int32) nlr.Element { return nlr.Element{Loop: id, Count: count} }

// OddEven returns the NLRs of seeds/002 Table 3.3: T0..T3 with L0^2, L1^4,
// L0^4, L1^2 between the setup calls and MPI_Finalize.
func OddEven() ([]trace.ID, []nlr.Sequence) {
	var ids []trace.ID
	var seqs []nlr.Sequence
	for p, l := range []nlr.Element{loop(0, 2), loop(1, 4), loop(0, 4), loop(1, 2)} {
		ids = append(ids, trace.ID{Proc: p, Thread: trace.AllThreads})
		seqs = append(seqs, nlr.Sequence{call(Init), call(Rank), call(Size), l, call(Finalize)})
	}
	return ids, seqs
}

// Symbols of the synthetic MPI runs below.
const (
	bInit trace.Symbol = iota + 1
	bRank
	bSize
	bBarrier
	bAllreduce
	bFinalize
	bIsend
	bIrecv
	bWaitall
	bAbort
	bProbe
	bOptional // bOptional+i: rarely called functions
)

// StencilRun returns the NLRs of an n-rank 2D stencil code on a √n × √n
// grid. Loops: L0 compute, L1…L9 the halo exchange of each grid position
// (corner, edge, interior: their bodies differ in how many neighbours they
// talk to), L10 a convergence loop.
//
// With distinct false the run has the equivalence classes of a real run: the
// 9 grid positions, a few ranks that take more convergence steps and 1% that
// call an extra function. With distinct true each rank's data decides its
// iteration counts (a compute loop with one of 512 counts, a convergence
// loop with one of 16) and some ranks call rarely used functions, so nearly
// every rank has an attribute set of its own under an actual-frequency mode.
func StencilRun(n int, distinct bool, seed uint64) ([]trace.ID, []nlr.Sequence) {
	rng := rand.New(rand.NewPCG(seed, 7))
	side := 1
	for side*side < n {
		side++
	}
	var ids []trace.ID
	var seqs []nlr.Sequence
	for r := range n {
		x, y := r%side, r/side
		pos := 0 // grid position class 0..8
		if x > 0 {
			pos++
			if x == side-1 {
				pos++
			}
		}
		if y > 0 {
			pos += 3
			if y == side-1 {
				pos += 3
			}
		}
		iters, conv := int32(100), int32(8)
		if distinct {
			iters = 1000 + int32(rng.IntN(512))
			conv = 8 + int32(rng.IntN(16))
		} else if r%97 == 5 {
			conv = 9
		}
		s := nlr.Sequence{call(bInit), call(bRank), call(bSize), call(bBarrier),
			loop(0, iters), loop(int32(1+pos), iters), loop(10, conv), call(bAllreduce)}
		if distinct {
			for i := range 6 {
				if rng.IntN(10) == 0 {
					s = append(s, call(bOptional+trace.Symbol(i)), call(bAllreduce))
				}
			}
		} else if r%100 == 42 {
			s = append(s, call(bProbe))
		}
		s = append(s, call(bBarrier), call(bFinalize))
		ids = append(ids, trace.ID{Proc: r, Thread: 0})
		seqs = append(seqs, s)
	}
	return ids, seqs
}
