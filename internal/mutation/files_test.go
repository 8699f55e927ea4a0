package mutation

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/trace"
)

// The in-memory explanation says what difftrace diffnlr's path through run
// directories says: for mutations of every kind in several runs, the run
// written with the mutated trace and explained through rank.Open gives the
// same sentence, under the filters all and mpi.
func TestExplainSameAsFiles(t *testing.T) {
	bs := openBases(t)
	for _, b := range bs {
		if len(b.IDs) > 16 {
			continue // ilcs: 40 traces, as well covered by the others
		}
		views := []View{{filters.MustParse("all"), 10}, {filters.MustParse("mpi"), 10}}
		var exps []*Explainer
		for _, v := range views {
			e, err := b.Explainer(v)
			if err != nil {
				t.Fatal(err)
			}
			exps = append(exps, e)
		}
		for _, op := range Ops {
			i := 1 % len(b.IDs)
			m, err := b.Draw(3, i, op, 0)
			if err != nil {
				t.Fatalf("%s %s: %v", b.Dir, op, err)
			}
			faulty := filepath.Join(t.TempDir(), "faulty")
			if err := b.WriteRun(faulty, i, m); err != nil {
				t.Fatal(err)
			}
			for x, v := range views {
				mem, err := exps[x].Explain(i, Apply(m, b.Events[i]))
				if err != nil {
					t.Fatal(err)
				}
				files, err := ExplainRuns(b.Dir, faulty, b.IDs[i], &v)
				if err != nil {
					t.Fatal(err)
				}
				if mem.Text != files.Text || fmt.Sprint(Read(mem, b.Name)) != fmt.Sprint(Read(files, b.Name)) {
					t.Errorf("%s %s, %s under %s:\n in memory: %s\n files:     %s", b.Dir, b.IDs[i], m.What, v, mem.Text, files.Text)
				}
			}
		}
	}
}

// The view rank suggests, through the files: a full sweep and
// rank.Suggest, for one mutation of each kind in the C++ stencil.
func TestExplainSuggested(t *testing.T) {
	if testing.Short() {
		t.Skip("a rank sweep per mutation")
	}
	b := openBases(t)[2]
	var s Score
	for _, op := range Ops {
		i := 3
		m, err := b.Draw(5, i, op, 0)
		if err != nil {
			t.Fatal(err)
		}
		faulty := filepath.Join(t.TempDir(), "faulty")
		if err := b.WriteRun(faulty, i, m); err != nil {
			t.Fatal(err)
		}
		ex, err := ExplainRuns(b.Dir, faulty, b.IDs[i], nil)
		if err != nil {
			t.Fatalf("%s: %v", m.What, err)
		}
		got := Read(ex, b.Name)
		s.Add(Outcome{Base: b.Dir, Trace: b.IDs[i], View: ex.View, M: m, Got: got, Text: ex.Text, OK: Compare(m.Want, got)})
		t.Logf("%s\n  view %s: %s", m.What, ex.View, ex.Text)
	}
}

// A faulty run whose every process also makes a call the normal run does
// not (a bug's flag parsed on every rank) is read as well as one without:
// rank sets the run-wide change aside, and the sentence still reads the
// mutated trace as recorded. Each run's mutations of every kind through run
// directories, under the filter all. A mutation among main's first calls
// mingles with the planted change (a swap of the call copied, say), so
// the bar is below the harness's; a sentence read from the view alone, as
// it was for such traces, is right in about a quarter of the cases.
func TestRunWideSetAside(t *testing.T) {
	var s Score
	for _, base := range openBases(t) {
		if len(base.IDs) > 16 {
			continue // ilcs: 40 traces, as well covered by the others
		}
		b := *base
		b.RunWide = true
		v := View{filters.MustParse("all"), 10}
		for _, op := range Ops {
			for k := range 2 {
				i := (k + 1) % len(b.IDs)
				m, err := b.Draw(11, i, op, k)
				if err != nil {
					continue // no place for this kind in this trace
				}
				faulty := filepath.Join(t.TempDir(), "faulty")
				if err := b.WriteRun(faulty, i, m); err != nil {
					t.Fatal(err)
				}
				ex, err := ExplainRuns(b.Dir, faulty, b.IDs[i], &v)
				if err != nil {
					t.Fatal(err)
				}
				got := Read(ex, b.Name)
				s.Add(Outcome{Base: b.Dir, Trace: b.IDs[i], View: ex.View, M: m, Got: got, Text: ex.Text, OK: Compare(m.Want, got)})
			}
		}
	}
	var tab, misses strings.Builder
	s.WriteTable(&tab)
	s.WriteMisses(&misses, 3)
	t.Logf("with a run-wide change, under all:\n%s\n%s", tab.String(), misses.String())
	var passed, n int
	for _, op := range Ops {
		passed, n = passed+s.Passed[op][CheckAll], n+s.N[op]
	}
	if n == 0 || float64(passed) < 0.85*float64(n) {
		t.Errorf("%d of %d mutations explained right with a run-wide change; want at least 85%%", passed, n)
	}
}

// A rank that hangs in MPI_Finalize after making every call of its normal
// run changes no view's calls: rank still suggests the diffNLR of the hang
// analysis's culprit, under the broadest view, and it says where the rank
// stopped.
func TestSuggestedStoppedInLastCall(t *testing.T) {
	normal := "../../testdata/runs/oddeven-normal"
	b, err := OpenBase(normal)
	if err != nil {
		t.Fatal(err)
	}
	id := trace.ID{Proc: 4}
	i, _ := b.Index(id)
	tr := b.Tree(i)
	mainCall := tr.Nodes[Root].Children[len(tr.Nodes[Root].Children)-1]
	kids := tr.Nodes[mainCall].Children
	final := tr.Nodes[kids[len(kids)-1]]
	if b.Name(final.Sym) != "MPI_Finalize" {
		t.Fatalf("the last call of main is %s, want MPI_Finalize", b.Name(final.Sym))
	}
	dir := filepath.Join(t.TempDir(), "faulty")
	if err := b.WriteRun(dir, i, &Mutation{Op: OpCut, Cut: final.Start + 1}); err != nil {
		t.Fatal(err)
	}
	ex, err := ExplainRuns(normal, dir, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "first difference: in main: the faulty trace ends here, inside MPI_Finalize, which the normal run returns from"; ex.Text != want {
		t.Errorf("under %s: %q, want %q", ex.View, ex.Text, want)
	}
}
