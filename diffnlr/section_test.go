package diffnlr

import (
	"encoding/xml"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/draw"
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

// In the picture each section starts with a heading box on the stem, joined
// to the section before it by invisible edges only, and each section marks
// its own faulty trace's end.
func TestSectionsDOT(t *testing.T) {
	p := processPicture(t)
	got := parseDOT(t, dotOf(t, p))
	var heads []string
	for _, n := range got.nodes {
		if strings.Contains(n, "<B>thread") {
			heads = append(heads, n)
		}
	}
	if len(heads) != 3 {
		t.Fatalf("want 3 heading nodes, got %q", got.nodes)
	}
	for _, h := range []string{"<B>thread 4.0</B>", "<B>thread 4.2</B><BR/><FONT POINT-SIZE=\"10\">the faulty trace is empty</FONT>"} {
		a, ok := got.attrs[h]
		if !ok {
			t.Errorf("no heading %q in %q", h, got.nodes)
			continue
		}
		if a["fillcolor"] != fillHead || a["group"] != "stem" || a["fontcolor"] != "white" {
			t.Errorf("heading %q: %v", h, a)
		}
	}
	for _, e := range got.edges {
		if strings.Contains(e, "-> <B>thread") && !strings.HasSuffix(e, "invis)") {
			t.Errorf("visible edge into a heading: %s", e)
		}
	}
	// Only thread 4.0 ends differently: one end mark, below its last event
	// and above the next heading.
	src := string(dotOf(t, p))
	if n := strings.Count(src, `penwidth="2.6"`); n != 1 {
		t.Errorf("%d end marks, want 1 (thread 4.0)", n)
	}
	var endEdges []string
	for _, e := range got.edges {
		if strings.Contains(e, "faulty trace ends here") {
			endEdges = append(endEdges, e)
		}
	}
	if len(endEdges) != 2 || !strings.HasPrefix(endEdges[0], "MPI_Allreduce -> ") || !strings.Contains(endEdges[1], "-> <B>thread 4.1</B>") {
		t.Errorf("end mark edges: %q", endEdges)
	}
	// The summary counts every section.
	if !strings.Contains(got.label, "normal: 21 elements · faulty: 11 elements · 5 changes") {
		t.Errorf("summary: %s", got.label)
	}
	// And it draws.
	svg := render(t, p, draw.SVG)
	if err := xml.Unmarshal(svg, new(struct{})); err != nil {
		t.Fatalf("SVG does not parse: %v", err)
	}
	for _, s := range []string{"thread 4.0", "thread 4.1", "thread 4.2", "the faulty trace is empty"} {
		if !strings.Contains(string(svg), s) {
			t.Errorf("SVG lacks %q", s)
		}
	}
}
