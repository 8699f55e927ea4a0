package diffnlr

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/nlr"
)

func text(t *testing.T, p *Picture, color bool) string {
	t.Helper()
	var b bytes.Buffer
	if err := p.WriteText(&b, color); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWriteText(t *testing.T) {
	for _, c := range []struct {
		name           string
		normal, faulty nlr.Sequence
		want           string
	}{
		{"swapBug", oddevenNormal, swapFaulty, `--- normal
+++ faulty
  MPI_Init
  MPI_Comm_rank
  MPI_Comm_size
- L1^16
+ L1^7  (L1 ×16 → ×7)
+ L0^9
  MPI_Finalize
`},
		{"dlBug", oddevenNormal, dlFaulty, `--- normal
+++ faulty
  MPI_Init
  MPI_Comm_rank
  MPI_Comm_size
- L1^16
- MPI_Finalize
+ L1^7  (L1 ×16 → ×7)
+ MPI_Recv  <- faulty trace ends here (hung)
`},
		{"ILCS critical", ilcsNormal, ilcsFaulty, `--- normal
+++ faulty
  omp_get_thread_num
  L0^12
- GOMP_critical_start
  memcpy
- GOMP_critical_end
- L0^7
- GOMP_critical_start
+ L0^9  (L0 ×7 → ×9)
  memcpy
- GOMP_critical_end
  L0^4
`},
		{"ILCS allreduce", allreduceNormal, allreduceFaulty, `--- normal
+++ faulty
  MPI_Init
  MPI_Comm_rank
  MPI_Comm_size
  GOMP_parallel
  MPI_Allreduce  <- faulty trace ends here (hung)
- L2^5
- MPI_Allreduce
- MPI_Bcast
- MPI_Finalize
`},
		{"faulty empty", oddevenNormal[:2], nil, `--- normal
+++ faulty
- MPI_Init
- MPI_Comm_rank
  (the faulty trace is empty)
`},
		{"both empty", nil, nil, `--- normal
+++ faulty
  (both traces are empty)
`},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The hung traces were cut short; the others ended as programs do.
			ended := ""
			if c.name == "dlBug" || c.name == "ILCS allreduce" {
				ended = "hung"
			}
			p := &Picture{Blocks: mustDiff(t, c.normal, c.faulty), Label: testLabel, Ended: ended}
			if got := text(t, p, false); got != c.want {
				t.Errorf("WriteText:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

func TestWriteTextColor(t *testing.T) {
	p := &Picture{Blocks: mustDiff(t, oddevenNormal, dlFaulty), Label: testLabel, Normal: "run-a", Faulty: "run-b", Ended: "hung"}
	want := "\x1b[1m--- run-a\x1b[0m\n" +
		"\x1b[1m+++ run-b\x1b[0m\n" +
		"  MPI_Init\n" +
		"  MPI_Comm_rank\n" +
		"  MPI_Comm_size\n" +
		"\x1b[34m- L1^16\x1b[0m\n" +
		"\x1b[34m- MPI_Finalize\x1b[0m\n" +
		"\x1b[31m+ L1^7\x1b[0m  \x1b[2m(L1 ×16 → ×7)\x1b[0m\n" +
		"\x1b[31m+ MPI_Recv\x1b[0m  \x1b[1;31m<- run-b trace ends here (hung)\x1b[0m\n"
	if got := text(t, p, true); got != want {
		t.Errorf("WriteText with colour:\n%q\nwant\n%q", got, want)
	}
	if got := text(t, p, false); bytes.ContainsRune([]byte(got), 0x1b) {
		t.Errorf("WriteText without colour has escape codes: %q", got)
	}
}

// A long trace: the common runs keep three elements at each end, the long
// changed runs eight, and the end of the faulty run stays marked.
func TestWriteTextAbridged(t *testing.T) {
	var normal, faulty nlr.Sequence
	normal = append(normal, sym("MPI_Init"))
	for i := range 100 {
		normal = append(normal, loop(0, int32(i+1)))
	}
	faulty = append(faulty, normal...)
	for i := range 30 {
		normal = append(normal, loop(1, int32(i+1)))
	}
	normal = append(normal, sym("MPI_Finalize"))
	for i := range 20 {
		faulty = append(faulty, loop(2, int32(i+1)))
	}
	p := &Picture{Blocks: mustDiff(t, normal, faulty), Label: testLabel, Ended: "hung"}
	want := `--- normal
+++ faulty
  … 98 more common …
  L0^98
  L0^99
  L0^100
- L1^1
- L1^2
- L1^3
- L1^4
- … 23 more normal-only …
- L1^28
- L1^29
- L1^30
- MPI_Finalize
+ L2^1
+ L2^2
+ L2^3
+ L2^4
+ … 12 more faulty-only …
+ L2^17
+ L2^18
+ L2^19
+ L2^20  <- faulty trace ends here (hung)
`
	if got := text(t, p, false); got != want {
		t.Errorf("WriteText:\n%s\nwant:\n%s", got, want)
	}
	p.Abridge = Full
	if got := text(t, p, false); bytes.Contains([]byte(got), []byte("more")) {
		t.Errorf("WriteText with Full abridges:\n%s", got)
	}
}

// A loop whose iterations change from some point on is summarised beside
// the change: the counts, the loop that takes over, the iterations it
// covers and how its body differs (from Bodies).
func TestLoopNote(t *testing.T) {
	p := &Picture{Blocks: mustDiff(t, oddevenNormal, swapFaulty), Label: testLabel,
		Bodies: func(a, b int32) string { return fmt.Sprintf("body of L%d against L%d", a, b) }}
	want := "+ L1^7  (L1 ×16 → ×7, then L0 ×9: in iterations 8–16, body of L1 against L0)\n"
	if got := text(t, p, false); !strings.Contains(got, want) {
		t.Errorf("WriteText:\n%s\nwant a line %q", got, want)
	}
	// Without Bodies, the counts alone.
	p.Bodies = nil
	if got := text(t, p, false); !strings.Contains(got, "+ L1^7  (L1 ×16 → ×7)\n") {
		t.Errorf("WriteText:\n%s", got)
	}
}
