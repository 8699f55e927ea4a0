package diffnlr

import (
	"slices"
	"strings"
	"testing"
)

// processPicture is an ILCS process as sections: the master thread that hung
// in MPI_Allreduce, a worker whose critical sections went missing, and a
// worker that exists in the normal run only.
func processPicture(t testing.TB) *Picture {
	return &Picture{
		Title: "diffNLR(4)",
		Label: testLabel,
		Ended: "hung",
		Sections: []Section{
			{Title: "thread 4.0", Blocks: mustDiff(t, allreduceNormal, allreduceFaulty)},
			{Title: "thread 4.1", Blocks: mustDiff(t, ilcsNormal, ilcsFaulty)},
			{Title: "thread 4.2", Blocks: mustDiff(t, seq(sym("omp_get_thread_num"), loop(0, 3)), nil)},
		},
	}
}

func TestSectionsText(t *testing.T) {
	got := text(t, processPicture(t), false)
	want := `--- normal
+++ faulty
@@ thread 4.0 @@
  MPI_Init
  MPI_Comm_rank
  MPI_Comm_size
  GOMP_parallel
  MPI_Allreduce  <- faulty trace ends here (hung)
- L2^5
- MPI_Allreduce
- MPI_Bcast
- MPI_Finalize
@@ thread 4.1 @@
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
@@ thread 4.2: the faulty trace is empty @@
- omp_get_thread_num
- L0^3
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Sections replace Blocks.
	p := processPicture(t)
	p.Blocks = mustDiff(t, oddevenNormal, swapFaulty)
	if text(t, p, false) != want {
		t.Error("Blocks changed a picture with sections")
	}
}

// Each section is abridged on its own: a long common run in one section
// does not swallow the next heading.
func TestSectionsAbridged(t *testing.T) {
	long := seq()
	for range 40 {
		long = append(long, sym("MPI_Send"))
	}
	p := &Picture{Label: testLabel, Sections: []Section{
		{Title: "thread 0.0", Blocks: mustDiff(t, long, append(slices.Clone(long), sym("MPI_Recv")))},
		{Title: "thread 0.1", Blocks: mustDiff(t, long, append(slices.Clone(long), sym("MPI_Bcast")))},
	}}
	got := text(t, p, false)
	if strings.Count(got, "… 37 more common …") != 2 || !strings.Contains(got, "@@ thread 0.1 @@") {
		t.Errorf("sections not abridged one by one:\n%s", got)
	}
}

// Sections without changes share one heading, and a section whose diff is
// that of an earlier one names it; --full (Full) shows them all.
func TestSectionsUnchangedAndSame(t *testing.T) {
	steady := seq(sym("omp_get_thread_num"), loop(0, 3))
	p := &Picture{Label: testLabel, Sections: []Section{
		{Title: "thread 4.0", Blocks: mustDiff(t, steady, steady)},
		{Title: "thread 4.1", Blocks: mustDiff(t, ilcsNormal, ilcsFaulty)},
		{Title: "thread 4.2", Blocks: mustDiff(t, steady, steady)},
		{Title: "thread 4.3", Blocks: mustDiff(t, steady, steady)},
		{Title: "thread 4.4", Blocks: mustDiff(t, ilcsNormal, ilcsFaulty)},
		{Title: "thread 4.5", Blocks: mustDiff(t, nil, nil)},
	}}
	got := text(t, p, false)
	for _, want := range []string{
		"@@ thread 4.0: unchanged @@\n@@ thread 4.1 @@\n",
		"@@ threads 4.2, 4.3: unchanged @@\n@@ thread 4.4: the same as thread 4.1 @@\n@@ thread 4.5: both traces are empty @@\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if strings.Count(got, "GOMP_critical_start") != 2 {
		t.Errorf("thread 4.4 repeats thread 4.1:\n%s", got)
	}
	p.Abridge = Full
	got = text(t, p, false)
	if strings.Contains(got, "unchanged") || strings.Contains(got, "the same as") || strings.Count(got, "GOMP_critical_start") != 4 {
		t.Errorf("Full abridges sections:\n%s", got)
	}
	if s := joinTitles([]string{"a 1", "b 2"}); s != "a 1, b 2" {
		t.Errorf("joinTitles of different words: %q", s)
	}
	if s := joinTitles([]string{"t 1", "t 2", "t 3", "t 4", "t 5", "t 6", "t 7", "t 8"}); s != "ts 1, 2, 3, 4, 5, 6 and 2 more" {
		t.Errorf("joinTitles of 8: %q", s)
	}
}
