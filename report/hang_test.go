package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/hang"
)

// hangOf analyses the last of the committed runs given (normal runs
// first).
func hangOf(t *testing.T, runs ...string) *hang.Report {
	t.Helper()
	var dirs []string
	for _, r := range runs {
		dirs = append(dirs, filepath.Join(runsDir, r))
	}
	c, err := compare.Open(dirs, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := hang.Analyze(c, hang.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// The hang analysis's text and JSON are pinned for the stencil's hang
// against its normal run (the waits, the progress cut at three rows),
// ilcs's deadlock alone (every row) and a run that did not hang.
func TestHangGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		runs []string
		rows int
	}{
		{"stencil", []string{"stencil-normal", "stencil-skipbug"}, 3},
		{"ilcs-dlbug", []string{"ilcs-dlbug"}, 0},
		{"oddeven-dlbug", []string{"oddeven-normal", "oddeven-dlbug"}, 20},
		{"normal", []string{"oddeven-normal"}, 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := &HangAnalysis{Analysis: hangOf(t, c.runs...), Rows: c.rows}
			checkGolden(t, "hang-"+c.name+".txt", write(t, d, Options{}))
			checkGolden(t, "hang-"+c.name+".json", write(t, d, Options{Format: JSON}))
			checkGolden(t, "hang-"+c.name+".brief.txt", write(t, &HangBrief{Analysis: d.Analysis}, Options{}))
		})
	}
}

// The classes' tree shows where the stencil's ranks parted: most in
// MPI_Allreduce, ranks 2 and 4 in MPI_Waitall.
func TestHangTree(t *testing.T) {
	rep := hangOf(t, "stencil-normal", "stencil-skipbug")
	var b strings.Builder
	hangTree(&b, rep.Classes, "", true, true)
	for _, l := range []string{"  all traces [0-7]\n", "MPI_Allreduce [0-1,3,5-7]   6 traces\n", "MPI_Waitall [2,4]   2 traces\n"} {
		if !strings.Contains(b.String(), l) {
			t.Errorf("tree lacks %q:\n%s", l, b.String())
		}
	}
}
