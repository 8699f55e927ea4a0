package diffnlr

import (
	"strings"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

// Under a filter that keeps only the OpenMP runtime's calls, two parallel
// regions a step read alike: a kernel left out in step 5 reads, to the
// view, as the last region missing at the end, and its anchor then lies in
// the kernel's region in one run and in the update's in the other. The
// explanation reads the whole traces from the start instead, and passes
// over what the view cannot see: the faulty run's argument parsing (a
// bug's flag), which calls nothing the filter keeps.
func TestAnchorsInCallsOfDifferentFunctions(t *testing.T) {
	const (
		mainFn trace.Symbol = iota + 1
		getarg
		exchange
		kernel
		update
		energy
		parallel
		region
		threadNum
		sendrecv
	)
	names := map[trace.Symbol]string{mainFn: "main", getarg: "getarg", exchange: "exchange", kernel: "kernel",
		update: "update", energy: "energy", parallel: "GOMP_parallel", region: "fn._omp_fn.0",
		threadNum: "omp_get_thread_num", sendrecv: "MPI_Sendrecv"}
	R := trace.Return
	omp := []trace.Symbol{parallel, region, threadNum, R, R, R}
	run := func(args bool, skip int) []trace.Symbol {
		ev := []trace.Symbol{mainFn}
		if args {
			ev = append(ev, getarg, R, getarg, R)
		}
		for step := 1; step <= 12; step++ {
			ev = append(ev, exchange, sendrecv, R, R)
			if step != skip {
				ev = append(append(ev, kernel), append(omp, R)...)
			}
			ev = append(append(ev, update), append(omp, R)...)
			ev = append(ev, energy, R)
		}
		return append(ev, R)
	}
	keep := func(s trace.Symbol) bool { return s == parallel || s == threadNum }
	w := Whole{Normal: run(false, 0), Faulty: run(true, 5), Keep: keep, Filter: "omp"}
	// The view's reading: 23 regions in common (2 kept calls each), the
	// normal run's 24th missing.
	f := First{Common: 46, Normal: []trace.Symbol{parallel, threadNum}, FaultyEnded: true}
	e := ExplainFirst(f, w, f.Common, f.Common)
	text := e.Text(func(s trace.Symbol) string { return names[s] })
	if e.Kind != Missing || len(e.Normal) != 1 || e.Normal[0] != kernel {
		t.Fatalf("kind %v, normal %v: %s; want the kernel missing", e.Kind, e.Normal, text)
	}
	if !strings.Contains(text, "iteration 5 of 12 ") {
		t.Errorf("%s\nwant it in iteration 5 of 12", text)
	}
}
