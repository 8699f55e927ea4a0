package report

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

// The page's runs, verdict, diffNLRs and precomputed rows are pinned for
// swapBug (a clear suspect) and the stencil's hang (the hang analysis's
// suspect), over a small grid.
func TestNewPageGolden(t *testing.T) {
	for _, p := range []struct{ name, normal, faulty string }{
		{"swapbug", "oddeven-normal", "oddeven-swapbug"},
		{"stencil", "stencil-normal", "stencil-skipbug"},
	} {
		t.Run(p.name, func(t *testing.T) {
			c, err := compare.Open([]string{filepath.Join(runsDir, p.normal), filepath.Join(runsDir, p.faulty)}, compare.Options{})
			if err != nil {
				t.Fatal(err)
			}
			g := rank.Grid{Filters: []*filters.Filter{filters.MustParse("mpi"), filters.MustParse("all")},
				Ks: []int{10}, Modes: fca.Modes(), Linkages: rank.DefaultLinkages}
			rk, hung, err := rank.Sweep(c, g)
			if err != nil {
				t.Fatal(err)
			}
			rpt, err := NewPage(c, rk, hung, PageOptions{Version: "test", Rows: 1, Diffs: 2,
				RowCommands: func(r Row) []string {
					return []string{fmt.Sprintf("row %s %d %s %s", r.Filter, r.K, r.Attrs, r.Linkage)}
				},
				DiffCommand: func(id trace.ID, filter string, k int) string { return fmt.Sprintf("diff %s %s %d", id, filter, k) }})
			if err != nil {
				t.Fatal(err)
			}
			for _, cb := range rpt.Combinations {
				if !slices.Equal(cb.Commands, rpt.Rows[cb.Row].Commands) || len(cb.Commands) != 1 {
					t.Errorf("combination of row %d: commands %q", cb.Row, cb.Commands)
				}
			}
			if rpt.Title != p.normal+" vs "+p.faulty || rpt.Version != "test" || (hung != nil) != (rpt.Hang != nil) {
				t.Errorf("title %q, version %q, hang %v", rpt.Title, rpt.Version, rpt.Hang)
			}
			part := struct {
				Runs        []Run   `json:"runs"`
				Verdict     Verdict `json:"verdict"`
				Precomputed string  `json:"precomputed"`
				Diffs       []Diff  `json:"diffs"`
			}{rpt.Runs, rpt.Verdict, rpt.Precomputed, rpt.Diffs}
			b, err := json.MarshalIndent(part, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "page-"+p.name+".json", append(b, '\n'))
		})
	}
}

func TestPrecomputedText(t *testing.T) {
	for _, c := range []struct {
		n, total, best, suggested int
		noise                     bool
		want                      string
	}{
		{0, 5, 0, -1, false, "No row's matrices, dendrograms and lattices are precomputed (--rows 0, and no suggested view); a click on another row shows the commands that draw its pictures (difftrace jsm and difftrace lattice)."},
		{5, 5, 8, 2, false, "The matrices, dendrograms and lattices are precomputed for all 5 rows."},
		{3, 10, 2, 6, false, "The matrices, dendrograms and lattices are precomputed for 3 of the 10 rows: the 2 best and row 7, the suggested view's; a click on another row shows the commands that draw its pictures (difftrace jsm and difftrace lattice)."},
		{1, 10, 0, 6, true, "The matrices, dendrograms and lattices are precomputed for row 7 of the 10, the suggested view's; a click on another row shows the commands that draw its pictures (difftrace jsm and difftrace lattice). The page's matrices leave out what varies between the normal runs, as the ranking does; difftrace jsm, which takes one pair of runs, does not."},
		{2, 10, 2, 1, false, "The matrices, dendrograms and lattices are precomputed for the 2 best of the 10 rows; a click on another row shows the commands that draw its pictures (difftrace jsm and difftrace lattice)."},
	} {
		if got := precomputedText(c.n, c.total, c.best, c.suggested, c.noise); got != c.want {
			t.Errorf("precomputedText(%d, %d, %d, %d, %v) =\n%s\nwant\n%s", c.n, c.total, c.best, c.suggested, c.noise, got, c.want)
		}
	}
}

// Invocation.Page is the sweep, the page and its commands, as the parts
// make them.
func TestInvocationPage(t *testing.T) {
	normal, faulty := filepath.Join(runsDir, "oddeven-normal"), filepath.Join(runsDir, "oddeven-swapbug")
	c, err := compare.Open([]string{normal, faulty}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := rank.Grid{Filters: []*filters.Filter{filters.MustParse("mpi")}, Ks: []int{10}, Modes: fca.Modes(), Linkages: rank.DefaultLinkages}
	inv := &Invocation{Normal: normal, Faulty: faulty, GridSpec: rank.GridSpec{Filters: []string{"mpi"}, Ks: []int{10}}, Rows: 1, Diffs: 1}
	got, err := inv.Page(c, g, "test")
	if err != nil {
		t.Fatal(err)
	}
	rk, hung, err := rank.Sweep(c, g)
	if err != nil {
		t.Fatal(err)
	}
	want, err := NewPage(c, rk, hung, PageOptions{Version: "test", Rows: 1, Diffs: 1, RowCommands: inv.RowCommands, DiffCommand: inv.DiffCommand})
	if err != nil {
		t.Fatal(err)
	}
	want.Commands = inv.Commands(want, rk, hung != nil)
	gb, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	wb, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Commands) == 0 || string(gb) != string(wb) {
		t.Errorf("Invocation.Page differs from NewPage with the invocation's commands:\n%s\nwant\n%s", gb, wb)
	}
}

// Ranking.Sweep fills the ranking, the hang analysis and the header's
// counts and cut; Outliers.Analyze the one-run analysis.
func TestRankingSweep(t *testing.T) {
	c, err := compare.Open([]string{filepath.Join(runsDir, "stencil-normal"), filepath.Join(runsDir, "stencil-skipbug")}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := rank.Grid{Filters: []*filters.Filter{filters.MustParse("mpi")}, Ks: []int{10}, Modes: fca.Modes(), Linkages: rank.DefaultLinkages, SuspectShare: 0.7}
	d, err := (&Ranking{Shown: 3}).Sweep(c, g)
	if err != nil {
		t.Fatal(err)
	}
	rk, hung, err := rank.Sweep(c, g)
	if err != nil {
		t.Fatal(err)
	}
	if d.Shown != 3 || d.Traces != len(c.IDs) || d.Processes != len(c.Processes()) || d.SuspectShare != 0.7 ||
		len(d.Rows) != len(rk.Rows) || (d.Suggestion == nil) != (rk.Suggestion == nil) || (d.Hang == nil) != (hung == nil) {
		t.Errorf("Sweep: shown %d, %d traces, %d processes, cut %v, %d rows, suggestion %v, hang %v; want %d traces, %d processes, %d rows, suggestion %v, hang %v",
			d.Shown, d.Traces, d.Processes, d.SuspectShare, len(d.Rows), d.Suggestion != nil, d.Hang != nil, len(c.IDs), len(c.Processes()), len(rk.Rows), rk.Suggestion != nil, hung != nil)
	}
	one, err := compare.Open([]string{filepath.Join(runsDir, "stencil-normal")}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o, err := (&Outliers{TopN: 2}).Analyze(one, g)
	if err != nil {
		t.Fatal(err)
	}
	if o.TopN != 2 || o.Analysis == nil {
		t.Errorf("Analyze: top %d, analysis %v", o.TopN, o.Analysis)
	}
}
