// Package diffnlrtest holds the sequences diffnlr's tests, and those of the
// diffNLR picture (draw/diffgraph), diff: the dissertation's cases
// (seeds/002 Figs 3.5–3.7) named as a comparison's symbol table names
// them, and long random pairs. Tests import it; nothing else may.
package diffnlrtest

import (
	"math/rand/v2"
	"strconv"

	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// Names are the symbols of the cases, as a comparison's symbol table
// numbers them.
var Names = []string{
	"", "MPI_Init", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Finalize",
	"MPI_Send", "MPI_Recv", "MPI_Allreduce", "MPI_Bcast",
	"GOMP_parallel", "GOMP_critical_start", "GOMP_critical_end", "memcpy", "CPU_Exec", "omp_get_thread_num",
}

// Sym is the call of the function named name (one of Names).
func Sym(name string) nlr.Element {
	for i, n := range Names {
		if n == name {
			return nlr.Element{Loop: nlr.NoLoop, Sym: trace.Symbol(i)}
		}
	}
	panic("no test symbol " + name)
}

// Loop is loop id run count times.
func Loop(id, count int32) nlr.Element { return nlr.Element{Loop: id, Count: count} }

// Label names an element: "L1^16" for a loop, its name for a call.
func Label(e nlr.Element) string {
	if e.IsLoop() {
		return "L" + strconv.Itoa(int(e.Loop)) + "^" + strconv.Itoa(int(e.Count))
	}
	if int(e.Sym) < len(Names) {
		return Names[e.Sym]
	}
	return "f" + strconv.Itoa(int(e.Sym))
}

// Seq is a sequence of elements.
func Seq(es ...nlr.Element) nlr.Sequence { return es }

// The odd/even sort of seeds/002 Fig. 3.2 run by 16 processes; trace 5.
// L0 = [MPI_Send, MPI_Recv] (even phase), L1 = [MPI_Recv, MPI_Send].
var (
	OddEvenLegend = []string{"L0 = [MPI_Send, MPI_Recv]", "L1 = [MPI_Recv, MPI_Send]"}
	OddEvenNormal = Seq(Sym("MPI_Init"), Sym("MPI_Comm_rank"), Sym("MPI_Comm_size"), Loop(1, 16), Sym("MPI_Finalize"))
	// SwapFaulty: with swapBug, rank 5 swaps send and receive after the
	// seventh iteration.
	SwapFaulty = Seq(Sym("MPI_Init"), Sym("MPI_Comm_rank"), Sym("MPI_Comm_size"), Loop(1, 7), Loop(0, 9), Sym("MPI_Finalize"))
	// DLFaulty: with dlBug, rank 5 blocks in a receive after the seventh
	// iteration.
	DLFaulty = Seq(Sym("MPI_Init"), Sym("MPI_Comm_rank"), Sym("MPI_Comm_size"), Loop(1, 7), Sym("MPI_Recv"))
)

// ILCS-TSP worker thread 6.4 (seeds/002 §3.4.2, Fig. 3.7a): the faulty run
// calls memcpy without the critical section around it; L0 = [CPU_Exec], and
// its counts differ between runs as ILCS is asynchronous.
var (
	ILCSNormal = Seq(Sym("omp_get_thread_num"), Loop(0, 12),
		Sym("GOMP_critical_start"), Sym("memcpy"), Sym("GOMP_critical_end"),
		Loop(0, 7),
		Sym("GOMP_critical_start"), Sym("memcpy"), Sym("GOMP_critical_end"),
		Loop(0, 4))
	ILCSFaulty = Seq(Sym("omp_get_thread_num"), Loop(0, 12),
		Sym("memcpy"),
		Loop(0, 9),
		Sym("memcpy"),
		Loop(0, 4))
)

// ILCS master process 4 (seeds/002 §3.4.3): process 2 passes a wrong count
// to MPI_Allreduce, and everyone hangs in it.
var (
	AllreduceNormal = Seq(Sym("MPI_Init"), Sym("MPI_Comm_rank"), Sym("MPI_Comm_size"), Sym("GOMP_parallel"),
		Sym("MPI_Allreduce"), Loop(2, 5), Sym("MPI_Allreduce"), Sym("MPI_Bcast"), Sym("MPI_Finalize"))
	AllreduceFaulty = Seq(Sym("MPI_Init"), Sym("MPI_Comm_rank"), Sym("MPI_Comm_size"), Sym("GOMP_parallel"),
		Sym("MPI_Allreduce"))
)

// ManyChanges builds two traces with five one-element changes (L9^i in the
// normal run, L8^i in the faulty one) between six common runs of ten
// elements (Lk^1 … Lk^10 for run k).
func ManyChanges() (normal, faulty nlr.Sequence) {
	for k := range int32(6) {
		if k > 0 {
			normal = append(normal, Loop(9, k))
			faulty = append(faulty, Loop(8, k))
		}
		for j := range int32(10) {
			normal = append(normal, Loop(k, j+1))
			faulty = append(faulty, Loop(k, j+1))
		}
	}
	return normal, faulty
}

// RandomSeq draws n elements from a small alphabet of symbols and loops, so
// that sequences share a lot and differ a lot.
func RandomSeq(r *rand.Rand, n, alphabet int) nlr.Sequence {
	s := make(nlr.Sequence, n)
	for i := range s {
		k := r.IntN(alphabet)
		if k%3 == 0 {
			s[i] = nlr.Element{Loop: int32(k % 4), Count: int32(1 + k%5)}
		} else {
			s[i] = nlr.Element{Loop: nlr.NoLoop, Sym: trace.Symbol(k)}
		}
	}
	return s
}

// Mutate copies s with random deletions, insertions and substitutions.
func Mutate(r *rand.Rand, s nlr.Sequence, edits, alphabet int) nlr.Sequence {
	out := append(nlr.Sequence(nil), s...)
	for range edits {
		pos := 0
		if len(out) > 0 {
			pos = r.IntN(len(out))
		}
		switch r.IntN(3) {
		case 0:
			if len(out) > 0 {
				out = append(out[:pos], out[pos+1:]...)
			}
		case 1:
			out = append(out[:pos], append(RandomSeq(r, 1+r.IntN(3), alphabet), out[pos:]...)...)
		case 2:
			if len(out) > 0 {
				out[pos] = RandomSeq(r, 1, alphabet)[0]
			}
		}
	}
	return out
}

// LongPair is a 100,000-element NLR sequence over 200 distinct elements
// and a copy with the given number of random edits (deletions, insertions
// of one to three elements, substitutions).
func LongPair(edits int) (normal, faulty nlr.Sequence) {
	r := rand.New(rand.NewPCG(5, 6))
	normal = RandomSeq(r, 100_000, 200)
	faulty = Mutate(r, normal, edits, 200)
	return normal, faulty
}
