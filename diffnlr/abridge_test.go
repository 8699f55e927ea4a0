package diffnlr

import (
	"github.com/difftrace/difftrace/diffnlr/diffnlrtest"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/nlr"
)

func TestAbridgeChanges(t *testing.T) {
	normal, faulty := diffnlrtest.ManyChanges()
	blocks := mustDiff(t, normal, faulty)
	for _, c := range []struct {
		name    string
		abridge Abridge
		want    string
	}{
		{"first and last", Abridge{Changes: 2}, `--- normal
+++ faulty
  … 7 more common …
  L0^8
  L0^9
  L0^10
- L9^1
+ L8^1
  L1^1
  L1^2
  L1^3
@@ … 3 more changes (34 common, 3 normal-only, 3 faulty-only elements) … @@
  L4^8
  L4^9
  L4^10
- L9^5
+ L8^5
  L5^1
  L5^2
  L5^3
  … 7 more common …
`},
		{"last only", Abridge{Changes: 1, Context: 2}, `--- normal
+++ faulty
  L0^1
  L0^2
@@ … 4 more changes (46 common, 4 normal-only, 4 faulty-only elements) … @@
  L4^9
  L4^10
- L9^5
+ L8^5
  L5^1
  L5^2
  … 8 more common …
`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &Picture{Blocks: blocks, Label: testLabel, Abridge: c.abridge}
			if got := text(t, p, false); got != c.want {
				t.Errorf("WriteText:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// The faulty run's end stays visible and marked when the changes before it
// are hidden.
func TestAbridgeKeepsEndMark(t *testing.T) {
	normal, faulty := diffnlrtest.ManyChanges()
	normal = append(normal, sym("MPI_Finalize"))
	p := &Picture{Blocks: mustDiff(t, normal, faulty), Label: testLabel, Abridge: Abridge{Changes: 2, Context: 1}, Ended: "hung"}
	want := `--- normal
+++ faulty
  … 9 more common …
  L0^10
- L9^1
+ L8^1
  L1^1
@@ … 4 more changes (48 common, 4 normal-only, 4 faulty-only elements) … @@
  L5^10  <- faulty trace ends here (hung)
- MPI_Finalize
`
	if got := text(t, p, false); got != want {
		t.Errorf("WriteText:\n%s\nwant:\n%s", got, want)
	}
}

func TestAbridgeDefaults(t *testing.T) {
	got := Abridge{}.withDefaults()
	if got != (Abridge{Context: 3, Changed: 4, Changes: 20}) {
		t.Fatalf("defaults = %+v", got)
	}
	if Full.withDefaults() != Full {
		t.Fatal("Full changes under defaults")
	}
}

// repeatedChange builds a step of six calls, run six times; from the third
// step on the faulty run leaves out MPI_Allreduce (a change the NLR did not
// fold into a loop, as when K is too small for the step). It ends with
// MPI_Finalize, or, cut, with the faulty run's last step.
func repeatedChange(cut bool) (normal, faulty nlr.Sequence) {
	step := seq(sym("MPI_Send"), sym("MPI_Recv"), sym("memcpy"), sym("CPU_Exec"), sym("MPI_Allreduce"), sym("MPI_Bcast"))
	normal = seq(sym("MPI_Init"))
	faulty = seq(sym("MPI_Init"))
	for i := range 6 {
		normal = append(normal, step...)
		for _, e := range step {
			if i >= 2 && e == sym("MPI_Allreduce") {
				continue
			}
			faulty = append(faulty, e)
		}
	}
	normal = append(normal, sym("MPI_Finalize"))
	if !cut {
		faulty = append(faulty, sym("MPI_Finalize"))
	} else {
		faulty = faulty[:len(faulty)-2]
	}
	return normal, faulty
}

// Identical changes in a row are shown once, then summarised in one line.
func TestAbridgeSameChanges(t *testing.T) {
	normal, faulty := repeatedChange(false)
	p := &Picture{Blocks: mustDiff(t, normal, faulty), Label: testLabel, Abridge: Abridge{Context: 2}}
	want := `--- normal
+++ faulty
  … 15 more common …
  memcpy
  CPU_Exec
- MPI_Allreduce
  MPI_Bcast
  MPI_Send
@@ … the same change 3 more times, each after the same 5 common elements … @@
  MPI_Bcast
  MPI_Finalize
`
	if got := text(t, p, false); got != want {
		t.Errorf("WriteText:\n%s\nwant:\n%s", got, want)
	}
	// Full shows them all.
	p.Abridge = Full
	if got := text(t, p, false); strings.Count(got, "- MPI_Allreduce") != 4 {
		t.Errorf("Full:\n%s", got)
	}
	// A run cut short keeps its last change, where its end is marked.
	normal, faulty = repeatedChange(true)
	p = &Picture{Blocks: mustDiff(t, normal, faulty), Label: testLabel, Abridge: Abridge{Context: 2}, Ended: "hung"}
	got := text(t, p, false)
	if !strings.Contains(got, "the same change 2 more times") || !strings.Contains(got, "<- faulty trace ends here (hung)") {
		t.Errorf("cut short:\n%s", got)
	}
	// Changes that differ are not summarised.
	other := slices.Clone(faulty)
	other[len(other)-3] = sym("MPI_Comm_rank")
	p.Blocks = mustDiff(t, normal, other)
	if got := text(t, p, false); strings.Contains(got, "the same change") && !strings.Contains(got, "2 more times") {
		t.Errorf("different changes summarised:\n%s", got)
	}
}

// A changed run too long to show whole is one line naming its outermost
// calls, how many elements each holds, and repeats of the same calls as a
// count; the faulty run's last element stays a line of its own.
func TestAbridgeOutermost(t *testing.T) {
	normal := seq(sym("MPI_Init"), sym("MPI_Comm_rank"), sym("MPI_Finalize"))
	faulty := seq(sym("MPI_Init"), sym("MPI_Comm_rank"),
		sym("GOMP_parallel"), sym("MPI_Send"), sym("MPI_Recv"),
		sym("GOMP_parallel"), sym("MPI_Send"), sym("MPI_Recv"),
		sym("CPU_Exec"), sym("MPI_Allreduce"),
		sym("MPI_Finalize"))
	// Depths among the kept calls: MPI_Init (main, say) 0, the others 1,
	// the MPI calls inside GOMP_parallel and CPU_Exec 2.
	depth := func(s nlr.Sequence) []int {
		d := []int{0}
		for _, e := range s[1:] {
			switch e {
			case sym("MPI_Send"), sym("MPI_Recv"), sym("MPI_Allreduce"):
				d = append(d, 2)
			default:
				d = append(d, 1)
			}
		}
		return d
	}
	dn, df := depth(normal), depth(faulty)
	p := &Picture{Blocks: mustDiff(t, normal, faulty), Label: testLabel, Abridge: Abridge{Changed: 1},
		Depth: func(section int, side Kind, at int) int {
			if section != 0 {
				t.Fatalf("section %d of a picture without sections", section)
			}
			if side == NormalOnly {
				return dn[at]
			}
			return df[at]
		}}
	want := `--- normal
+++ faulty
  MPI_Init
  MPI_Comm_rank
+ … 8 faulty-only: GOMP_parallel (+2 inside) ×2, CPU_Exec (+1 inside) …
  MPI_Finalize
`
	if got := text(t, p, false); got != want {
		t.Errorf("WriteText:\n%s\nwant:\n%s", got, want)
	}
	shown := p.Shown()
	if !slices.Contains(shown, sym("GOMP_parallel")) || !slices.Contains(shown, sym("CPU_Exec")) || slices.Contains(shown, sym("MPI_Allreduce")) {
		t.Errorf("Shown = %v: want the outermost calls named, not those inside them", shown)
	}

	// Cut short inside the stretch: the last element keeps its marker.
	p.Blocks = mustDiff(t, normal, faulty[:len(faulty)-1])
	p.Ended = "hung"
	df = df[:len(df)-1]
	want = `--- normal
+++ faulty
  MPI_Init
  MPI_Comm_rank
- MPI_Finalize
+ … 7 faulty-only: GOMP_parallel (+2 inside) ×2, CPU_Exec …
+ MPI_Allreduce  <- faulty trace ends here (hung)
`
	if got := text(t, p, false); got != want {
		t.Errorf("cut short:\n%s\nwant:\n%s", got, want)
	}

	// Without depths, the run shows its ends.
	p.Depth = nil
	if got := text(t, p, false); !strings.Contains(got, "+ … 6 more faulty-only …") {
		t.Errorf("without depths:\n%s", got)
	}
}

// Tighter starts from the abridgement asked for and only ever shows less.
func TestAbridgeTighter(t *testing.T) {
	if got := (Abridge{}).Tighter(); len(got) != 1 {
		t.Fatalf("without Lines: %+v, want the abridgement alone", got)
	}
	steps := Abridge{Context: 5, Changed: -1, Lines: 20}.Tighter()
	if steps[0] != (Abridge{Context: 5, Changed: -1, Changes: 20, Lines: 20}) {
		t.Fatalf("first step %+v: want the abridgement asked for", steps[0])
	}
	for i := 1; i < len(steps); i++ {
		a, b := steps[i-1], steps[i]
		looser := func(x, y int) bool { return y < 0 && x >= 0 || x >= 0 && y > x }
		if looser(a.Context, b.Context) || looser(a.Changed, b.Changed) || looser(a.Changes, b.Changes) || b == a {
			t.Errorf("step %d %+v does not tighten %+v", i, b, a)
		}
	}
	if last := steps[len(steps)-1]; last.Context != 1 || last.Changed != 1 {
		t.Errorf("last step %+v: want one element at each end", last)
	}
}
