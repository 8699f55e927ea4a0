package rank

import (
	"testing"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/filters"
)

// A pthreads program of one process whose bug flag only the main thread
// parses (tpool, worker 1's 9th tile refined in 4 passes instead of 5):
// no other process can show the parsing alike, so it is set aside because
// the command lines differ and the change is string functions alone; the
// worker is then the suspect rank names, and the first difference is its.
func TestArgumentParsingOfOneProcess(t *testing.T) {
	c := openRuns(t, compare.Options{}, "tpool-normal", "tpool-shortloop")
	rk, err := sweep(c, defaultGrid(t, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rk.RunWide) == 0 {
		t.Error("the main thread's argument parsing is not set aside")
	}
	v := rk.Suggestion
	if v == nil || v.Trace != tid(0, 1) {
		t.Fatalf("suggestion %+v (no clear suspect: %q), want 0.1", v, rk.NoClearSuspect)
	}
	nlrs, err := c.Recognize([]*filters.Filter{filters.MustParse(v.Filter)}, []int{v.K})
	if err != nil {
		t.Fatal(err)
	}
	i, _ := c.Index(tid(0, 1))
	p, ok, _, err := nlrs[0].Explain(i)
	if err != nil || !ok {
		t.Fatalf("explain: %v %v", ok, err)
	}
	const want = "first difference: in worker > process_tile (the 9th of 12) > refine: the loop over bug and 2 more calls ran 4 times instead of 5"
	if p.Text != want {
		t.Errorf("%s\nwant %s", p.Text, want)
	}
}
