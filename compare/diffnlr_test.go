package compare

import (
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/trace"
)

// diffNLROf returns the diffNLR of id under filter spec, K 10.
func diffNLROf(t *testing.T, c *Comparison, spec string, id trace.ID) *DiffNLR {
	t.Helper()
	res, err := c.Recognize([]*filters.Filter{filters.MustParse(spec)}, []int{10})
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.DiffNLR(res[0], id, diffnlr.Abridge{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Fig. 3.5b: the diffNLR of swapBug's rank 5 parts in iteration 8 of its
// loop; its picture is titled with the runs and the view, and its legend
// defines the two loops it shows.
func TestDiffNLRSwapBug(t *testing.T) {
	c := openRuns(t, Options{}, "oddeven-normal", "oddeven-swapbug")
	d := diffNLROf(t, c, "mpi", trace.ID{Proc: 5}.Process())
	if !slices.Equal(d.Threads, []trace.ID{{Proc: 5}}) || len(d.Empty) != 0 || len(d.Blocks) != 1 {
		t.Errorf("threads %v, empty %v, %d diffs", d.Threads, d.Empty, len(d.Blocks))
	}
	if want := "diffNLR(5): oddeven-normal vs oddeven-swapbug · filter mpi, K 10"; d.Picture.Title != want {
		t.Errorf("title %q, want %q", d.Picture.Title, want)
	}
	if len(d.Partings) != 1 || !strings.HasPrefix(d.Partings[0].Text, "first difference: iteration 8 of 16 ") || !slices.Equal(d.Picture.Notes, []string{d.Partings[0].Text}) {
		t.Errorf("partings %+v, notes %q", d.Partings, d.Picture.Notes)
	}
	loops := []string{"L0 = [MPI_Send, MPI_Recv]", "L1 = [MPI_Recv, MPI_Send]"}
	if !slices.Equal(d.Loops, loops) || !slices.Equal(d.Picture.Legend, loops) {
		t.Errorf("loops %q, legend %q, want %q", d.Loops, d.Picture.Legend, loops)
	}
	if d.Picture.Bodies == nil || d.Picture.Bodies(1, 0) != "the same calls in another order: [MPI_Recv, MPI_Send] then [MPI_Send, MPI_Recv]" {
		t.Errorf("bodies: %q", d.Picture.Bodies(1, 0))
	}
}

// A process's diffNLR has one section per thread, each first difference
// naming its thread; a thread whose calls the filter drops in both runs
// is left out of the picture and named in Empty.
func TestDiffNLRProcess(t *testing.T) {
	c := openRuns(t, Options{}, "ilcs-normal", "ilcs-critbug")
	d := diffNLROf(t, c, "mem+omp.crit+cust=CPU_Exec", trace.ID{Proc: 6}.Process())
	if len(d.Threads) != 5 || len(d.Picture.Sections) != 5-len(d.Empty) {
		t.Fatalf("%d threads, %d sections, empty %v", len(d.Threads), len(d.Picture.Sections), d.Empty)
	}
	for _, p := range d.Partings {
		if !strings.HasPrefix(p.Text, "first difference in "+p.Trace.String()+": ") {
			t.Errorf("%s: %q", p.Trace, p.Text)
		}
	}
	if len(d.Partings) != 4 || d.Partings[3].Trace != (trace.ID{Proc: 6, Thread: 4}) {
		t.Errorf("partings: %+v", d.Partings)
	}
}

// A trace in neither run, or in one run only, has no diffNLR.
func TestDiffTracesErrors(t *testing.T) {
	c := openRuns(t, Options{}, "oddeven-normal", "oddeven4-normal")
	for _, x := range []struct {
		id   trace.ID
		want string
	}{
		{trace.ID{Proc: 99}.Process(), "process 99: not in "},
		{trace.ID{Proc: 99}, "trace 99.0: not in "},
		{trace.ID{Proc: 15}, "trace 15.0 exists only in the normal run"},
	} {
		if _, err := c.DiffTraces(x.id); err == nil || !strings.Contains(err.Error(), x.want) {
			t.Errorf("DiffTraces(%s): %v, want %q", x.id, err, x.want)
		}
	}
}
