package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

// The documents of rank, nlr, jsm, lattice and filter are pinned byte for
// byte by the files of testdata/golden (the outputs of the commands on the
// committed runs). DIFFTRACE_UPDATE_GOLDEN=1 rewrites them.

// goldenDoc writes d in o's format and compares it with the golden file.
func goldenDoc(t *testing.T, file string, d Document, o Options) {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, d, o); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	path := filepath.Join("testdata", "golden", file)
	if os.Getenv("DIFFTRACE_UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (DIFFTRACE_UPDATE_GOLDEN=1 writes it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("%s: the output changed:\n%s\nwant:\n%s", file, b.Bytes(), want)
	}
}

// openPair opens committed runs, the normal one first.
func openPair(t *testing.T, dirs ...string) *compare.Comparison {
	t.Helper()
	var paths []string
	for _, d := range dirs {
		paths = append(paths, filepath.Join("..", "testdata", d))
	}
	c, err := compare.Open(paths, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// rankDoc ranks the runs over rank's default grid, with the hang
// analysis, as "difftrace rank" does.
func rankDoc(t *testing.T, share float64, dirs ...string) *Ranking {
	t.Helper()
	c := openPair(t, dirs...)
	fs, err := rank.DefaultFilters("")
	if err != nil {
		t.Fatal(err)
	}
	g := rank.Grid{Filters: fs, Ks: rank.DefaultKs, Modes: fca.Modes(), Linkages: rank.DefaultLinkages, Prune: true, SuspectShare: share}
	rk, hung, err := rank.Sweep(c, g)
	if err != nil {
		t.Fatal(err)
	}
	return &Ranking{Ranking: rk, Hang: hung, Traces: len(c.IDs), Processes: len(c.Processes()), SuspectShare: share,
		Shown: 20, TopN: 5, AllRows: "--rows 0", AlsoNormal: "--also-normal"}
}

func TestRankingGolden(t *testing.T) {
	dl := rankDoc(t, 0, "runs/oddeven-normal", "runs/oddeven-dlbug")
	goldenDoc(t, "rank-oddeven-dlbug.txt", dl, Options{})
	goldenDoc(t, "rank-oddeven-dlbug.csv", dl, Options{Format: CSV})
	swap := rankDoc(t, 0, "runs/oddeven-normal", "runs/oddeven-swapbug")
	swap.Shown, swap.TopN = 0, 0
	goldenDoc(t, "rank-oddeven-swapbug-all.txt", swap, Options{Format: Text})
	goldenDoc(t, "rank-oddeven-swapbug.json", swap, Options{Format: JSON})
	goldenDoc(t, "rank-ilcs-dlbug.txt", rankDoc(t, 0, "runs/ilcs-normal", "runs/ilcs-dlbug"), Options{})
	goldenDoc(t, "rank-ilcs-maxbug.txt", rankDoc(t, 0, "runs/ilcs-normal", "runs/ilcs-maxbug"), Options{})
	goldenDoc(t, "rank-oddeven-shapes.txt", rankDoc(t, 0, "runs/oddeven-normal", "runs/oddeven4-normal"), Options{})
	goldenDoc(t, "rank-farm-floors.txt", rankDoc(t, 0, "noise/farm-1", "noise/farm-skipverify", "noise/farm-2"), Options{})
	goldenDoc(t, "rank-farm-unclear.txt", rankDoc(t, 0, "noise/farm-1", "noise/farm-2"), Options{})
	// Another suspect cut is named in the heading and the JSON.
	low := rankDoc(t, 0.2, "runs/oddeven-normal", "runs/oddeven-dlbug")
	low.Shown = 4
	goldenDoc(t, "rank-oddeven-dlbug-share.txt", low, Options{})
	var b bytes.Buffer
	if err := Write(&b, low, Options{Format: JSON}); err != nil || !bytes.Contains(b.Bytes(), []byte(`"suspect_share": 0.2,`)) {
		t.Errorf("the JSON of a ranking at share 0.2 does not say so (%v)", err)
	}
}

// TestRankingTextBranches: the parts of the table no committed pair of
// runs shows — filters left out for keeping the calls of another, notes
// (escaped), a tie in the consensus, and each way of suggesting a view or
// none.
func TestRankingTextBranches(t *testing.T) {
	sus := func(ids ...string) []rank.Suspect {
		var out []rank.Suspect
		for _, s := range ids {
			id, err := trace.ParseID(s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, rank.Suspect{ID: id, Score: 0.5})
		}
		return out
	}
	id := func(s string) trace.ID { return sus(s)[0].ID }
	base := func() *rank.Ranking {
		return &rank.Ranking{
			Normal: "normal/", Faulty: "faulty/", Filters: []string{"mpi", "all"}, Ks: []int{10}, Attrs: []string{"sing.noFreq"}, Links: []string{"ward"},
			Dropped: []rank.Dropped{{Filter: "omp"}, {Filter: "mpi.sr", SameAs: "mpi"}, {Filter: "mpi.col", SameAs: "mpi"}, {Filter: "str", SameAs: "all"}},
			Rows: []rank.Row{
				{Filter: "mpi", K: 10, Attrs: "sing.noFreq", Linkage: "ward", BScore: 0.25, Threads: sus("3.0", "2.0"), Processes: sus("3", "2")},
				{Filter: "all", K: 10, Attrs: "sing.noFreq", Linkage: "ward", BScore: 0.5, Threads: sus("2.0", "3.0"), Processes: sus("2", "3")},
			},
			ThreadVotes:  []rank.Vote{{ID: id("2.0"), First: 1, Listed: 2}, {ID: id("3.0"), First: 1, Listed: 2}},
			ProcessVotes: []rank.Vote{{ID: id("2"), First: 1, Listed: 2}, {ID: id("3"), First: 1, Listed: 2}},
			Notes:        []string{"a note with an escape \x1b[31m in it"},
		}
	}
	views := map[string]func(rk *rank.Ranking){
		"stopped": func(rk *rank.Ranking) {
			rk.Suggestion = &rank.View{Trace: id("3.0"), Filter: "all", K: 10, Why: "stopped", Culprit: "stopped in MPI_Finalize"}
		},
		"parted": func(rk *rank.Ranking) {
			rk.Suggestion = &rank.View{Trace: id("2.0"), Filter: "mpi", K: 10, Changes: 1, Why: "listed", Parted: true}
		},
		"counts": func(rk *rank.Ranking) {
			rk.Suggestion = &rank.View{Trace: id("2.0"), Filter: "mpi", K: 10, Changes: 4, Why: "first", CountsOnly: true}
		},
		"unchanged": func(rk *rank.Ranking) {},
		"none": func(rk *rank.Ranking) {
			rk.ThreadVotes, rk.ProcessVotes = nil, nil
			for i := range rk.Rows {
				rk.Rows[i].Threads, rk.Rows[i].Processes = nil, nil
			}
		},
		"unclear-floors": func(rk *rank.Ranking) {
			rk.AlsoNormal = []string{"normal-2/", "normal-3/"}
			rk.NoClearSuspect = "2.0 and 3.0 lead in one row each"
		},
	}
	for name, set := range views {
		rk := base()
		set(rk)
		goldenDoc(t, "rank-branch-"+name+".txt", &Ranking{Ranking: rk, Traces: 4, Processes: 4, Shown: 1, TopN: 1, AllRows: "--rows 0", AlsoNormal: "--also-normal"}, Options{})
	}
}

func TestNLRsGolden(t *testing.T) {
	mpi := filters.MustParse("mpi")
	for _, tc := range []struct {
		file string
		runs []string
		ids  []string
	}{
		{"nlr-oddeven4", []string{"runs/oddeven4-normal"}, nil},
		{"nlr-oddeven-swapbug", []string{"runs/oddeven-normal", "runs/oddeven-swapbug"}, []string{"4.0", "5.0"}},
		{"nlr-oddeven-shapes", []string{"runs/oddeven4-normal", "runs/oddeven-normal"}, []string{"0.0", "7.0"}},
	} {
		c := openPair(t, tc.runs...)
		res, err := c.Recognize([]*filters.Filter{mpi}, []int{10})
		if err != nil {
			t.Fatal(err)
		}
		ids := c.IDs
		if tc.ids != nil {
			ids = nil
			for _, s := range tc.ids {
				id, _ := trace.ParseID(s)
				ids = append(ids, id)
			}
		}
		d := NewNLRs(c, res[0], ids)
		goldenDoc(t, tc.file+".txt", d, Options{})
		goldenDoc(t, tc.file+".json", d, Options{Format: JSON})
	}
}

func TestKeptGolden(t *testing.T) {
	c := openPair(t, "runs/ilcs-normal")
	flt := filters.MustParse("omp.crit+mem")
	ids, err := c.Runs[compare.Normal].Select("1,2.3")
	if err != nil {
		t.Fatal(err)
	}
	kept, err := c.Filter(flt, compare.Normal, ids)
	if err != nil {
		t.Fatal(err)
	}
	d := &Kept{Filter: flt.Name(), Traces: ids, Calls: kept, Symbols: c.Symbols}
	goldenDoc(t, "filter-ilcs.txt", d, Options{})
	goldenDoc(t, "filter-ilcs.json", d, Options{Format: JSON})
	d.Counts = true
	goldenDoc(t, "filter-ilcs-count.txt", d, Options{})
	if d.Total() == 0 {
		t.Error("no call kept")
	}
}

// similarityOf measures the runs' traces under mpi, K 10, mode at level.
func similarityOf(t *testing.T, mode string, level compare.Level, runs ...string) (*compare.Similarity, fca.Mode) {
	t.Helper()
	c := openPair(t, runs...)
	res, err := c.Recognize([]*filters.Filter{filters.MustParse("mpi")}, []int{10})
	if err != nil {
		t.Fatal(err)
	}
	m, err := fca.ParseMode(mode)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := res[0].Similarity(m, level)
	if err != nil {
		t.Fatal(err)
	}
	return sim, m
}

func TestJSMGolden(t *testing.T) {
	sim, m := similarityOf(t, "sing.noFreq", compare.Threads, "runs/oddeven4-normal")
	one := NewJSM(sim, "mpi", 10, m)
	goldenDoc(t, "jsm-oddeven4.txt", one, Options{})
	goldenDoc(t, "jsm-oddeven4.csv", one, Options{Format: CSV})
	goldenDoc(t, "jsm-oddeven4.json", one, Options{Format: JSON})
	sim, m = similarityOf(t, "sing.actual", compare.Processes, "runs/oddeven-normal", "runs/oddeven-swapbug")
	two := NewJSM(sim, "mpi", 10, m)
	goldenDoc(t, "jsm-oddeven-swapbug.txt", two, Options{})
	goldenDoc(t, "jsm-oddeven-swapbug.csv", two, Options{Format: CSV})
}

func TestConceptsGolden(t *testing.T) {
	for _, tc := range []struct {
		file, run, mode string
		level           compare.Level
	}{
		{"lattice-oddeven4", "runs/oddeven4-normal", "sing.noFreq", compare.Threads},
		{"lattice-ilcs-process", "runs/ilcs-normal", "doub.log10", compare.Processes},
	} {
		sim, m := similarityOf(t, tc.mode, tc.level, tc.run)
		d := NewConcepts(sim.Ctx[compare.Normal], sim.Lattice[compare.Normal], "mpi", 10, m, tc.level)
		goldenDoc(t, tc.file+".txt", d, Options{})
		goldenDoc(t, tc.file+".json", d, Options{Format: JSON})
	}
}
