package compare

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

// The committed example runs, recorded with "make examples" from
// examples/oddeven.c and examples/ilcs.c.
const runsDir = "../testdata/runs"

// openRuns opens committed runs (normal first) for analysis.
func openRuns(t testing.TB, opts Options, names ...string) *Comparison {
	t.Helper()
	var dirs []string
	for _, n := range names {
		dirs = append(dirs, filepath.Join(runsDir, n))
	}
	c, err := Open(dirs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func tid(p, t int) trace.ID { return trace.ID{Proc: p, Thread: t} }

// TestPairNotes checks the warnings about a pair of runs that looks
// mistaken: given in the wrong order, or of two different programs.
func TestPairNotes(t *testing.T) {
	for _, c := range []struct {
		normal, faulty string
		want           []string
	}{
		{"oddeven-normal", "oddeven-dlbug", nil},
		{"oddeven-normal", "oddeven-swapbug", nil},
		{"oddeven-dlbug", "oddeven-normal", []string{"the normal run ../testdata/runs/oddeven-dlbug ended badly (rank 0: killed by the timeout) but every rank of the faulty run ../testdata/runs/oddeven-normal exited with status 0; if they are swapped, give the normal run first"}},
		{"oddeven-normal", "ilcs-normal", []string{"the runs are of programs with different names (normal: oddeven, faulty: ilcs); their functions are matched by name, which is right for two builds of one program and meaningless for two programs"}},
	} {
		cmp := openRuns(t, Options{Unrelated: true}, c.normal, c.faulty)
		if got := cmp.PairNotes(); !slices.Equal(got, c.want) {
			t.Errorf("%s, %s: notes %q\nwant %q", c.normal, c.faulty, got, c.want)
		}
		for _, w := range c.want {
			if !slices.Contains(cmp.Notes(), w) {
				t.Errorf("%s, %s: Notes() lacks %q", c.normal, c.faulty, w)
			}
		}
	}
}

// Runs of two programs are refused unless Unrelated allows them; runs of
// one program are not, however differently they ended.
func TestUnrelatedRefused(t *testing.T) {
	for _, c := range []struct {
		normal, faulty string
		refused        bool
	}{
		{"oddeven-normal", "ilcs-normal", true},
		{"ilcs-critbug", "oddeven-swapbug", true},
		{"oddeven-normal", "oddeven-dlbug", false},
		{"oddeven4-normal", "oddeven-normal", false},
		{"ilcs-normal", "ilcs-dlbug", false},
	} {
		_, err := Open([]string{filepath.Join("..", "testdata", "runs", c.normal), filepath.Join("..", "testdata", "runs", c.faulty)}, Options{})
		if got := errors.Is(err, ErrUnrelated); got != c.refused {
			t.Errorf("%s, %s: refused %v (%v), want %v", c.normal, c.faulty, got, err, c.refused)
		}
		if c.refused && !strings.Contains(err.Error(), "set Options.Unrelated") {
			t.Errorf("%s, %s: the refusal does not say how to compare anyway: %v", c.normal, c.faulty, err)
		}
	}
}

// TestOpenWaits checks that Open calls Wait with every run directory, in
// order, before it reads any, and stops at Wait's error.
func TestOpenWaits(t *testing.T) {
	dirs := []string{filepath.Join(runsDir, "oddeven-normal"), filepath.Join(t.TempDir(), "missing")}
	var waited []string
	_, err := Open(dirs, Options{Wait: func(dir string) error {
		waited = append(waited, dir)
		if len(waited) == 2 {
			return errors.New("still writing")
		}
		return nil
	}})
	if err == nil || err.Error() != "still writing" || !slices.Equal(waited, dirs) {
		t.Errorf("Open waited for %q and returned %v; want it to wait for %q and return the error of the wait", waited, err, dirs)
	}
}

// Dirs are the runs' directories in the comparison's order.
func TestDirs(t *testing.T) {
	c := openRuns(t, Options{}, "oddeven-normal", "oddeven-dlbug")
	want := []string{filepath.Join(runsDir, "oddeven-normal"), filepath.Join(runsDir, "oddeven-dlbug")}
	if got := c.Dirs(); !slices.Equal(got, want) {
		t.Errorf("Dirs = %q, want %q", got, want)
	}
}
