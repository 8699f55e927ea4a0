package diffnlr

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

func TestDiffDissertationCases(t *testing.T) {
	for _, c := range []struct {
		name           string
		normal, faulty nlr.Sequence
		want           string
	}{
		{
			// Fig. 3.5b: the swap shows as L1^16 against L1^7, L0^9.
			"swapBug", oddevenNormal, swapFaulty,
			"common[MPI_Init MPI_Comm_rank MPI_Comm_size] normal-only[L1^16] faulty-only[L1^7 L0^9] common[MPI_Finalize]",
		},
		{
			// Fig. 3.6: the faulty run stops after L1^7, in a receive,
			// and never reaches MPI_Finalize.
			"dlBug", oddevenNormal, dlFaulty,
			"common[MPI_Init MPI_Comm_rank MPI_Comm_size] normal-only[L1^16 MPI_Finalize] faulty-only[L1^7 MPI_Recv]",
		},
		{
			// Fig. 3.7a: the critical section around memcpy is missing.
			"ILCS critical", ilcsNormal, ilcsFaulty,
			"common[omp_get_thread_num L0^12] normal-only[GOMP_critical_start] common[memcpy] " +
				"normal-only[GOMP_critical_end L0^7 GOMP_critical_start] faulty-only[L0^9] common[memcpy] " +
				"normal-only[GOMP_critical_end] common[L0^4]",
		},
		{
			// Fig. 3.7b: identical up to the MPI_Allreduce that never returns.
			"ILCS allreduce", allreduceNormal, allreduceFaulty,
			"common[MPI_Init MPI_Comm_rank MPI_Comm_size GOMP_parallel MPI_Allreduce] " +
				"normal-only[L2^5 MPI_Allreduce MPI_Bcast MPI_Finalize]",
		},
		{"identical", oddevenNormal, oddevenNormal, "common[MPI_Init MPI_Comm_rank MPI_Comm_size L1^16 MPI_Finalize]"},
		{"both empty", nil, nil, ""},
		{"faulty empty", seq(sym("MPI_Init")), nil, "normal-only[MPI_Init]"},
		{"normal empty", nil, seq(sym("MPI_Init")), "faulty-only[MPI_Init]"},
		{
			// Same loop, other count: a change, not a match.
			"loop counts", seq(loop(1, 16)), seq(loop(1, 7)), "normal-only[L1^16] faulty-only[L1^7]",
		},
		{
			// A loop and a symbol with equal numbers are different elements.
			"loop vs symbol", seq(nlr.Element{Loop: nlr.NoLoop, Sym: 1}), seq(nlr.Element{Loop: 1, Count: 1}),
			"normal-only[MPI_Init] faulty-only[L1^1]",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := describe(mustDiff(t, c.normal, c.faulty))
			if got != c.want {
				t.Errorf("Diff:\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

// lcs is the textbook dynamic program for the length of a longest common
// subsequence, the number of common elements a minimal diff keeps.
func lcs(a, b nlr.Sequence) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// checkBlocks verifies that blocks rebuild both sequences, that no two
// neighbours share a kind, and that normal-only comes before faulty-only.
func checkBlocks(t *testing.T, blocks []Block, normal, faulty nlr.Sequence) (common int) {
	t.Helper()
	var gotN, gotF nlr.Sequence
	for i, b := range blocks {
		if len(b.Elems) == 0 {
			t.Fatalf("block %d (%s) is empty", i, b.Kind)
		}
		if i > 0 {
			prev := blocks[i-1].Kind
			if prev == b.Kind {
				t.Fatalf("blocks %d and %d are both %s", i-1, i, b.Kind)
			}
			if prev == FaultyOnly && b.Kind == NormalOnly {
				t.Fatalf("block %d: normal-only after faulty-only", i)
			}
		}
		switch b.Kind {
		case Common:
			common += len(b.Elems)
			gotN = append(gotN, b.Elems...)
			gotF = append(gotF, b.Elems...)
		case NormalOnly:
			gotN = append(gotN, b.Elems...)
		case FaultyOnly:
			gotF = append(gotF, b.Elems...)
		}
	}
	if !equalSeq(gotN, normal) {
		t.Fatalf("blocks do not rebuild the normal sequence")
	}
	if !equalSeq(gotF, faulty) {
		t.Fatalf("blocks do not rebuild the faulty sequence")
	}
	return common
}

func equalSeq(a, b nlr.Sequence) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The diff is a correct edit script and a minimal one: it keeps as many
// common elements as a longest common subsequence has.
func TestDiffMinimal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 400 {
		alphabet := 2 + r.IntN(12)
		normal := randomSeq(r, r.IntN(60), alphabet)
		var faulty nlr.Sequence
		if i%2 == 0 {
			faulty = mutate(r, normal, r.IntN(10), alphabet)
		} else {
			faulty = randomSeq(r, r.IntN(60), alphabet)
		}
		blocks := mustDiff(t, normal, faulty)
		common := checkBlocks(t, blocks, normal, faulty)
		if want := lcs(normal, faulty); common != want {
			t.Fatalf("case %d: diff keeps %d common elements, a longest common subsequence has %d\nnormal %v\nfaulty %v",
				i, common, want, normal, faulty)
		}
	}
}

// More distinct elements than the runes below the surrogate range: the
// mapping must skip U+D800–U+DFFF and still round-trip every element.
func TestDiffManyDistinct(t *testing.T) {
	const n = 70000
	normal := make(nlr.Sequence, n)
	for i := range normal {
		normal[i] = nlr.Element{Loop: nlr.NoLoop, Sym: trace.Symbol(i)}
	}
	faulty := append(nlr.Sequence(nil), normal...)
	// Change elements around the surrogate boundary (rune 0xD800 = 55296)
	// and past it.
	faulty[55295] = nlr.Element{Loop: 3, Count: 2}
	faulty[55296] = nlr.Element{Loop: 3, Count: 3}
	faulty = append(faulty[:60000], faulty[60001:]...)
	blocks := mustDiff(t, normal, faulty)
	if common := checkBlocks(t, blocks, normal, faulty); common != n-3 {
		t.Fatalf("common = %d, want %d", common, n-3)
	}
	if got, want := kinds(blocks), "common normal-only faulty-only common normal-only common"; got != want {
		t.Fatalf("blocks %s, want %s", got, want)
	}
}

// Beyond MaxDistinct distinct elements there are no runes left: a clear
// error, not a wrong diff.
func TestDiffTooManyDistinct(t *testing.T) {
	normal := make(nlr.Sequence, MaxDistinct)
	for i := range normal {
		normal[i] = nlr.Element{Loop: nlr.NoLoop, Sym: trace.Symbol(i)}
	}
	faulty := nlr.Sequence{{Loop: 0, Count: 1}}
	_, err := Diff(normal, faulty)
	if err == nil || !strings.Contains(err.Error(), "distinct NLR elements") {
		t.Fatalf("err = %v, want too many distinct elements", err)
	}
}

func kinds(blocks []Block) string {
	var s []string
	for _, b := range blocks {
		s = append(s, b.Kind.String())
	}
	return strings.Join(s, " ")
}

func TestDiffDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	normal := randomSeq(r, 3000, 40)
	faulty := mutate(r, normal, 300, 40)
	want := describe(mustDiff(t, normal, faulty))
	for range 3 {
		if got := describe(mustDiff(t, normal, faulty)); got != want {
			t.Fatal("two diffs of the same sequences differ")
		}
	}
}

func TestKindString(t *testing.T) {
	if Common.String() != "common" || NormalOnly.String() != "normal-only" ||
		FaultyOnly.String() != "faulty-only" || Kind(9).String() != "Kind(9)" {
		t.Fatal("Kind.String")
	}
}
