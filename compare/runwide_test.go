package compare

import (
	"strings"
	"testing"

	"github.com/difftrace/difftrace/filters"
)

// A Fortran code whose bug flag every rank parses, hung: under the all
// filter the parsing and the hang's effects fall in one stretch of each
// process's NLR, so the view sets nothing aside; on the call trees, every
// process parsed its arguments alike, and the sentence goes on to rank 1's
// own change.
func TestArgumentParsingWhereTheRunHung(t *testing.T) {
	c := openRuns(t, Options{}, "poisson-normal", "poisson-hang")
	nlrs, err := c.Recognize([]*filters.Filter{filters.MustParse("all")}, []int{10})
	if err != nil {
		t.Fatal(err)
	}
	i, _ := c.Index(tid(1, 0))
	p, ok, _, err := nlrs[0].Explain(i)
	if err != nil || !ok {
		t.Fatalf("explain: %v %v", ok, err)
	}
	const want = "in main > MAIN__ > time_step.0 (the 5th of 10) > cg_mod::cg_solve: comm_mod::wait_token added (with the call it makes), and the faulty trace ends inside it"
	if !strings.Contains(p.Text, want) || !strings.Contains(p.Text, "iteration 4 of 8 ") {
		t.Errorf("%s\nwant %s, in CG iteration 4 of 8", p.Text, want)
	}
}
