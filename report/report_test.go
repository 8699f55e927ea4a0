package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/cluster"
	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

const runsDir = "../testdata/runs"

// sweep ranks a committed pair of runs over a small grid.
func sweep(t *testing.T, normal, faulty string, specs ...string) (*compare.Comparison, *rank.Ranking) {
	t.Helper()
	c, err := compare.Open([]string{filepath.Join(runsDir, normal), filepath.Join(runsDir, faulty)}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := rank.Grid{Ks: []int{10}, Modes: fca.Modes(), Linkages: rank.DefaultLinkages}
	for _, s := range specs {
		g.Filters = append(g.Filters, filters.MustParse(s))
	}
	rk, _, err := rank.Sweep(c, g)
	if err != nil {
		t.Fatal(err)
	}
	return c, rk
}

// pageOf builds the report of a ranking with every row precomputed.
func pageOf(t *testing.T, c *compare.Comparison, rk *rank.Ranking) *Report {
	t.Helper()
	rpt := &Report{Title: "test", Version: "test", Traces: len(c.IDs), Processes: len(c.Processes())}
	FromRanking(rpt, rk)
	fs := make([]*filters.Filter, len(rk.Filters))
	for i, f := range rk.Filters {
		fs[i] = filters.MustParse(f)
	}
	nlrs, err := c.Recognize(fs, rk.Ks)
	if err != nil {
		t.Fatal(err)
	}
	var rows []int
	for i := range rpt.Rows {
		rows = append(rows, i)
	}
	err = Precompute(rpt, rows, func(f string, k int) (*compare.NLR, error) {
		for _, n := range nlrs {
			if n.Filter.Name() == f && n.K == k {
				return n, nil
			}
		}
		return nil, fmt.Errorf("no NLR for %s, %d", f, k)
	})
	if err != nil {
		t.Fatal(err)
	}
	return rpt
}

// TestDendrogramsCutAsTheBScore checks that the page's dendrograms are
// the ranking's: the Fowlkes–Mallows index of their flat clusters, read
// back onto the traces, is each row's B-score, for every row of the ilcs
// and the stencil pairs (the dendrograms are drawn on every class there).
func TestDendrogramsCutAsTheBScore(t *testing.T) {
	for _, p := range []struct {
		normal, faulty string
		specs          []string
	}{
		{"ilcs-normal", "ilcs-critbug", []string{"omp", "mem+omp.crit", "all"}},
		{"stencil-normal", "stencil-skipbug", []string{"mpi", "mem", "all"}},
	} {
		c, rk := sweep(t, p.normal, p.faulty, p.specs...)
		rpt := pageOf(t, c, rk)
		nlrs := map[string]*compare.NLR{}
		for _, f := range p.specs {
			n, err := nlrOf(c, f, 10)
			if err != nil {
				t.Fatal(err)
			}
			nlrs[f] = n
		}
		for i, r := range rpt.Rows {
			cb := rpt.Combinations[r.Combination]
			v := rpt.Views[cb.View]
			if cb.Row != i || v.Filter != r.Filter || v.K != r.K || v.Attrs != r.Attrs {
				t.Fatalf("row %d: combination of row %d, view %s %d %s", i, cb.Row, v.Filter, v.K, v.Attrs)
			}
			n := nlrs[r.Filter]
			m, _ := fca.ParseMode(r.Attrs)
			var labels [2][]int
			for run := range 2 {
				ctx, err := n.Context(run, m, compare.Threads)
				if err != nil {
					t.Fatal(err)
				}
				dg := cb.Dendrograms[run]
				if dg.Note != "" {
					t.Fatalf("%s: %s", dg.Title, dg.Note)
				}
				for o := range ctx.Len() {
					labels[run] = append(labels[run], dg.Leaves[ctx.Class(o)].Cluster)
				}
			}
			b, err := cluster.FowlkesMallows(labels[0], labels[1])
			if err != nil {
				t.Fatal(err)
			}
			if b != r.BScore {
				t.Errorf("%s vs %s, row %d (%s, %s, %s): the dendrograms' clusters give B-score %v, the ranking %v",
					p.normal, p.faulty, i+1, r.Filter, r.Attrs, r.Linkage, b, r.BScore)
			}
		}
	}
}

func nlrOf(c *compare.Comparison, f string, k int) (*compare.NLR, error) {
	ns, err := c.Recognize([]*filters.Filter{filters.MustParse(f)}, []int{k})
	if err != nil {
		return nil, err
	}
	return ns[0], nil
}

// TestHeatmapsAreTheJSMs checks the cells of a page's matrices against
// the similarity the jsm command computes (read off the lattice), and that
// the suspects are marked.
func TestHeatmapsAreTheJSMs(t *testing.T) {
	c, rk := sweep(t, "ilcs-normal", "ilcs-critbug", "omp")
	rpt := pageOf(t, c, rk)
	n, err := nlrOf(c, "omp", 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range rpt.Views {
		m, _ := fca.ParseMode(v.Attrs)
		sim, err := n.Similarity(m, compare.Threads)
		if err != nil {
			t.Fatal(err)
		}
		h := v.Heatmaps
		if h.Side != 40 || h.Block != 1 || h.Samples != 0 || len(h.Labels) != 40 {
			t.Fatalf("%s: side %d, block %d, samples %d; want every pair of the 40 traces", v.Attrs, h.Side, h.Block, h.Samples)
		}
		d := sim.DiffMatrix()
		for a := range 40 {
			for b := range 40 {
				want := [3]float64{sim.JSM[compare.Normal].At(a, b), sim.JSM[compare.Faulty].At(a, b), d[a*40+b]}
				for p := range 3 {
					if got := h.Panels[p].Values[a*40+b]; got != want[p] {
						t.Fatalf("%s, %s[%d][%d] = %v, want %v", v.Attrs, h.Panels[p].Title, a, b, got, want[p])
					}
				}
			}
		}
		if len(h.Marks) != 1 || h.Marks[0].Label != "6.4" || h.Labels[h.Marks[0].Index] != "6.4" {
			t.Errorf("%s: marks %v, want 6.4", v.Attrs, h.Marks)
		}
	}
}

// TestHeatmapsOfManyTraces checks the summarised matrices of a run too
// large for one cell per pair: 256 blocks a side, the suspect's block
// marked and lit in JSM_D although it is one trace among several.
func TestHeatmapsOfManyTraces(t *testing.T) {
	const n = 1000
	ids := make([]trace.ID, n)
	normal := make([]nlr.Sequence, n)
	faulty := make([]nlr.Sequence, n)
	for i := range ids {
		ids[i] = trace.ID{Proc: i / 4, Thread: i % 4}
		s := nlr.Sequence{{Loop: nlr.NoLoop, Sym: trace.Symbol(1 + i%4)}, {Loop: nlr.NoLoop, Sym: 9}}
		normal[i], faulty[i] = s, s
	}
	const odd = 517
	faulty[odd] = nlr.Sequence{{Loop: nlr.NoLoop, Sym: 7}}
	sym := func(s trace.Symbol) string { return fmt.Sprint("f", s) }
	cn, err := fca.NewContext(fca.Mode{}, ids, normal, sym)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := fca.NewContext(fca.Mode{}, ids, faulty, sym)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHeatmaps(ids, fca.BitsetJSM(cn), fca.BitsetJSM(cf), []trace.ID{ids[odd]})
	if h.Side != SummarySide || h.Block != 4 || h.Samples != 16 || len(h.Labels) != SummarySide || h.Note == "" {
		t.Fatalf("side %d, block %d, samples %d, note %q; want %d blocks of 4 traces", h.Side, h.Block, h.Samples, h.Note, SummarySide)
	}
	if len(h.Marks) != 1 || h.Marks[0].Label != "129.1" || !strings.Contains(h.Labels[h.Marks[0].Index], "129.") {
		t.Fatalf("marks %v (label %q), want 129.1", h.Marks, h.Labels[h.Marks[0].Index])
	}
	row := h.Marks[0].Index
	for b := range h.Side {
		got := h.Panels[2].Values[row*h.Side+b]
		if got < 1.0/3 {
			t.Errorf("JSM_D block (%d, %d) = %v, want 1/3 or more: 129.1 shares nothing with anyone in the faulty run", row, b, got)
			break
		}
	}
	for a := range h.Side {
		for b := range h.Side {
			if a != row && b != row && h.Panels[2].Values[a*h.Side+b] != 0 {
				t.Fatalf("JSM_D block (%d, %d) = %v, want 0", a, b, h.Panels[2].Values[a*h.Side+b])
			}
		}
	}
}

// TestWriteEscapesNames checks that names from traces reach the page as
// text: no tag, attribute or script of theirs survives, in the HTML or in
// the SVG drawn here.
func TestWriteEscapesNames(t *testing.T) {
	evil := `<script>alert(1)</script>"'&<img src=x onerror=alert(2)>`
	rpt := &Report{
		Title: evil, Version: "t",
		Runs:    []Run{{Role: "normal", Dir: evil, Program: evil, Command: evil, Endings: []Ending{{How: evil, Ranks: "rank 0"}}}},
		Verdict: Verdict{Suspect: "1.0", Headline: evil, First: []string{"first difference: " + evil}, Why: []string{evil}, Diff: 0},
		Grid:    Grid{Filters: []string{"cust=" + evil}, Ks: []int{10}, Attrs: []string{"sing.noFreq"}, Linkages: []string{"ward"}, RunWide: []RunWide{{Filter: evil, K: 10, Changes: []string{evil}}}},
		Rows:    []Row{{Filter: "cust=" + evil, K: 10, Attrs: "sing.noFreq", Linkage: "ward", Threads: []rank.Suspect{{ID: trace.ID{Proc: 1}}}, Combination: 0, Commands: []string{evil}}},
		Hang: &Hang{Ended: evil, Classes: &Class{Frames: evil, Traces: "[0-1]", Count: 2, Children: []*Class{{Frames: evil, Traces: "[1]", Count: 1, Ended: 1}}},
			Waits: []string{evil}, Suspects: []HangSuspect{{Trace: "1.0", Reason: evil}}, Progress: []HangProgress{{Trace: "1.0", Where: evil, StoppedIn: evil}}, Loops: []string{evil}},
		Views: []View{{Filter: evil, K: 10, Attrs: "sing.noFreq",
			Heatmaps: &Heatmaps{Traces: 2, Side: 2, Block: 1, Labels: []string{evil, "1.0"},
				Panels: [3]Panel{{Title: evil, Values: []float64{1, 0, 0, 1}}, {Title: "f", Values: []float64{1, 0, 0, 1}}, {Title: "d", Values: []float64{0, 0, 0, 0}}},
				Marks:  []Mark{{Index: 0, Label: evil}}},
			Lattices: [2]*Lattice{{Title: evil, Concepts: []Concept{{Attrs: []string{evil}, Traces: evil, Extent: 2, Children: []int{1}}, {Traces: "[1]", Extent: 1, Intent: 1, Children: []int{}}}}}}},
		Combinations: []Combination{{Row: 0, View: 0, Dendrograms: [2]Dendrogram{
			{Title: evil, Leaves: []Leaf{{Traces: evil, Count: 1, Cluster: 1}, {Traces: "[1]", Count: 1, Cluster: 2}}, Merges: []Merge{{A: 0, B: 1, Height: 1}}, K: 2, Clusters: 2, Cut: 0.5},
			{Title: "faulty"}}, Commands: []string{evil}}},
		Diffs: []Diff{{Trace: "1.0", Header: evil, First: []string{evil}, Notes: []string{evil},
			Lines:   []DiffLine{{Kind: "normal", Sign: "- ", Text: "L0^2", Note: evil, End: evil, Body: []Node{{Text: evil}, {Text: "L1^3", Body: []Node{{Text: evil}}}}}},
			Loops:   []string{evil},
			Command: evil}},
		Commands: []Command{{What: evil, Line: evil}},
		Notes:    []string{evil},
	}
	var b bytes.Buffer
	if err := Write(&b, rpt, Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script>alert", "<img src=x", `"'&<img`} {
		if strings.Contains(page, bad) {
			i := strings.Index(page, bad)
			t.Errorf("the page holds %q: …%s…", bad, page[max(i-80, 0):min(i+80, len(page))])
		}
	}
	if n := strings.Count(page, "<script>"); n != 1 {
		t.Errorf("%d <script> elements, want the page's own", n)
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the names are not on the page as text")
	}
	if !strings.Contains(page, `Content-Security-Policy" content="default-src 'none'`) {
		t.Error("the page does not forbid loading anything")
	}
	// Nothing to fetch: no URL but data: ones.
	if m := regexp.MustCompile(`(?i)(src|href)="(https?:|//)`).FindString(page); m != "" {
		t.Errorf("the page loads %s", m)
	}
}

// TestWriteIsDeterministic: the same report gives the same bytes, and
// JSON holds the same values.
func TestWriteIsDeterministic(t *testing.T) {
	c, rk := sweep(t, "oddeven-normal", "oddeven-swapbug", "mpi")
	var pages [2]bytes.Buffer
	for i := range pages {
		if err := Write(&pages[i], pageOf(t, c, rk), Options{Format: HTML}); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(pages[0].Bytes(), pages[1].Bytes()) {
		t.Error("two pages of the same ranking differ")
	}
	var js bytes.Buffer
	rpt := pageOf(t, c, rk)
	if err := Write(&js, rpt, Options{Format: JSON}); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Rows) != len(rk.Rows) || back.Rows[0].BScore != rk.Rows[0].BScore || len(back.Combinations) != len(rk.Rows) {
		t.Errorf("JSON: %d rows (first B-score %v), %d combinations; want %d, %v, %d", len(back.Rows), back.Rows[0].BScore, len(back.Combinations), len(rk.Rows), rk.Rows[0].BScore, len(rk.Rows))
	}
	if err := Write(&js, rpt, Options{Format: "pdf"}); err == nil {
		t.Error("format pdf: no error")
	}
}

// TestLatticeLevels: every concept lies below all its parents, and the
// top alone on the first level.
func TestLatticeLevels(t *testing.T) {
	c, rk := sweep(t, "ilcs-normal", "ilcs-critbug", "omp")
	rpt := pageOf(t, c, rk)
	drawn := 0
	for _, v := range rpt.Views {
		for _, l := range v.Lattices {
			if l == nil {
				continue
			}
			drawn++
			lv := l.levels()
			for k, cpt := range l.Concepts {
				if (lv[k] == 0) != (k == l.Top) {
					t.Errorf("%s: concept %d on level %d (top %d)", l.Title, k, lv[k], l.Top)
				}
				for _, ch := range cpt.Children {
					if lv[ch] <= lv[k] {
						t.Errorf("%s: child %d on level %d, not below its parent %d on level %d", l.Title, ch, lv[ch], k, lv[k])
					}
				}
			}
			if svg := string(latticeSVG(l)); strings.Count(svg, "<path") < len(l.Concepts)-1 {
				t.Errorf("%s: %d edges drawn for %d concepts", l.Title, strings.Count(svg, "<path"), len(l.Concepts))
			}
		}
	}
	if drawn == 0 {
		t.Fatal("no lattice drawn")
	}
}
