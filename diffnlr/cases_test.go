package diffnlr

import (
	"strconv"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// The symbols of the test cases, as a comparison's symbol table numbers them.
var testNames = []string{
	"", "MPI_Init", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Finalize",
	"MPI_Send", "MPI_Recv", "MPI_Allreduce", "MPI_Bcast",
	"GOMP_parallel", "GOMP_critical_start", "GOMP_critical_end", "memcpy", "CPU_Exec", "omp_get_thread_num",
}

func sym(name string) nlr.Element {
	for i, n := range testNames {
		if n == name {
			return nlr.Element{Loop: nlr.NoLoop, Sym: trace.Symbol(i)}
		}
	}
	panic("no test symbol " + name)
}

func loop(id, count int32) nlr.Element { return nlr.Element{Loop: id, Count: count} }

func testLabel(e nlr.Element) string {
	if e.IsLoop() {
		return "L" + strconv.Itoa(int(e.Loop)) + "^" + strconv.Itoa(int(e.Count))
	}
	if int(e.Sym) < len(testNames) {
		return testNames[e.Sym]
	}
	return "f" + strconv.Itoa(int(e.Sym))
}

func seq(es ...nlr.Element) nlr.Sequence { return es }

// The odd/even sort of seeds/002 Fig. 3.2 run by 16 processes; trace 5.
// L0 = [MPI_Send, MPI_Recv] (even phase), L1 = [MPI_Recv, MPI_Send].
var (
	oddevenLegend = []string{"L0 = [MPI_Send, MPI_Recv]", "L1 = [MPI_Recv, MPI_Send]"}
	oddevenNormal = seq(sym("MPI_Init"), sym("MPI_Comm_rank"), sym("MPI_Comm_size"), loop(1, 16), sym("MPI_Finalize"))
	// swapBug: rank 5 swaps send and receive after the seventh iteration.
	swapFaulty = seq(sym("MPI_Init"), sym("MPI_Comm_rank"), sym("MPI_Comm_size"), loop(1, 7), loop(0, 9), sym("MPI_Finalize"))
	// dlBug: rank 5 blocks in a receive after the seventh iteration.
	dlFaulty = seq(sym("MPI_Init"), sym("MPI_Comm_rank"), sym("MPI_Comm_size"), loop(1, 7), sym("MPI_Recv"))
)

// ILCS-TSP worker thread 6.4 (seeds/002 §3.4.2, Fig. 3.7a): the faulty run
// calls memcpy without the critical section around it; L0 = [CPU_Exec], and
// its counts differ between runs as ILCS is asynchronous.
var (
	ilcsNormal = seq(sym("omp_get_thread_num"), loop(0, 12),
		sym("GOMP_critical_start"), sym("memcpy"), sym("GOMP_critical_end"),
		loop(0, 7),
		sym("GOMP_critical_start"), sym("memcpy"), sym("GOMP_critical_end"),
		loop(0, 4))
	ilcsFaulty = seq(sym("omp_get_thread_num"), loop(0, 12),
		sym("memcpy"),
		loop(0, 9),
		sym("memcpy"),
		loop(0, 4))
)

// ILCS master process 4 (seeds/002 §3.4.3): process 2 passes a wrong count
// to MPI_Allreduce, and everyone hangs in it.
var (
	allreduceNormal = seq(sym("MPI_Init"), sym("MPI_Comm_rank"), sym("MPI_Comm_size"), sym("GOMP_parallel"),
		sym("MPI_Allreduce"), loop(2, 5), sym("MPI_Allreduce"), sym("MPI_Bcast"), sym("MPI_Finalize"))
	allreduceFaulty = seq(sym("MPI_Init"), sym("MPI_Comm_rank"), sym("MPI_Comm_size"), sym("GOMP_parallel"),
		sym("MPI_Allreduce"))
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

type (
	nlrElement = nlr.Element
	symbol     = trace.Symbol
)
