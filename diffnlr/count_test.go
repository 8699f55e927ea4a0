package diffnlr

import (
	"math"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

// A block of calls [compute, enter, copy, leave] repeated twice, then a
// long run of computes: one iteration fewer is a count that changed, though
// a minimal edit script reads it as the enter, copy and leave missing and,
// far later, one compute of the run missing.
func TestCountSplitAcrossRepeat(t *testing.T) {
	const (
		region trace.Symbol = iota + 1
		threadNum
		compute
		enter
		copyFn
		leave
	)
	names := map[trace.Symbol]string{region: "region", threadNum: "thread_num", compute: "compute",
		enter: "enter", copyFn: "copy", leave: "leave"}
	R := trace.Return
	run := func(blocks int) []trace.Symbol {
		ev := []trace.Symbol{region, threadNum, R}
		for range blocks {
			ev = append(ev, compute, R, enter, R, copyFn, R, leave, R)
		}
		for range 3000 {
			ev = append(ev, compute, R)
		}
		return append(ev, R)
	}
	w := Whole{Normal: run(2), Faulty: run(1)}
	e := ExplainFirst(First{Common: math.MaxUint64}, w, math.MaxUint64, math.MaxUint64)
	text := e.Text(func(s trace.Symbol) string { return names[s] })
	if e.Kind != CountChanged || e.Counts != [2]int{2, 1} || e.Loop == nil || e.Loop.Period != 4 {
		t.Fatalf("%s\nwant the loop of four calls run once instead of twice", text)
	}
	if !strings.Contains(text, "ran once instead of twice") {
		t.Errorf("%s\nwant 'ran once instead of twice'", text)
	}
}

// A master polls (MPI_Iprobe, as often as it takes) before each receive
// and send; the view counts a stretch of polling calls once, so to the
// view every iteration is alike and one iteration fewer reads as the last
// one missing, thousands of calls late. The explanation reads the whole
// traces where they part: one iteration fewer of a loop of equal ones (the
// first iteration's last poll, receive and send, and the next three).
func TestCountAmongPollingCalls(t *testing.T) {
	const (
		master trace.Symbol = iota + 1
		iprobe
		recv
		send
		printf
	)
	names := map[trace.Symbol]string{master: "master", iprobe: "MPI_Iprobe", recv: "MPI_Recv", send: "MPI_Send", printf: "printf"}
	R := trace.Return
	polls := []int{2, 1, 1, 1, 3, 4, 2, 5, 6, 3, 7, 2, 4, 8, 3, 5, 2, 6, 9, 4}
	run := func(skip int) []trace.Symbol {
		ev := []trace.Symbol{master, send, R, send, R}
		for i, k := range polls {
			if i == skip {
				continue
			}
			for range k {
				ev = append(ev, iprobe, R)
			}
			ev = append(ev, recv, R, send, R)
		}
		return append(ev, printf, R, R)
	}
	poll := func(s trace.Symbol) bool { return s == iprobe }
	w := Whole{Normal: run(-1), Faulty: run(2), Poll: poll}
	// The view's reading: every iteration alike, the faulty run one short
	// at the end.
	f := First{Common: commonUnits(w.Normal, w.Faulty, nil, poll)}
	e := ExplainFirst(f, w, f.Common, f.Common)
	text := e.Text(func(s trace.Symbol) string { return names[s] })
	if e.Kind != CountChanged || e.Counts != [2]int{4, 3} || e.Loop == nil || e.Loop.Body != iprobe || e.Loop.Period != 3 {
		t.Fatalf("%s\nwant the loop of (MPI_Iprobe, MPI_Recv, MPI_Send) run 3 times instead of 4", text)
	}
}

// A time loop whose steps differ every third one (output) is no loop of
// equal steps: its loops are groups of steps. The sentence says which call
// of the step function the change is in, as the user counts steps.
func TestStepOrdinalWhereLoopsAreGroups(t *testing.T) {
	const (
		run trace.Symbol = iota + 1
		step
		compute
		output
		limit
	)
	names := map[trace.Symbol]string{run: "run", step: "step", compute: "compute", output: "output", limit: "limit"}
	R := trace.Return
	events := func(skip int) []trace.Symbol {
		ev := []trace.Symbol{run}
		for s := 1; s <= 12; s++ {
			ev = append(ev, step, compute)
			if s != skip {
				ev = append(ev, limit, R)
			}
			ev = append(ev, R)
			if s%3 == 0 {
				ev = append(ev, output, R)
			}
			ev = append(ev, R)
		}
		return append(ev, R)
	}
	w := Whole{Normal: events(0), Faulty: events(8)}
	e := ExplainFirst(First{Common: math.MaxUint64}, w, math.MaxUint64, math.MaxUint64)
	text := e.Text(func(s trace.Symbol) string { return names[s] })
	if e.Kind != Missing || !strings.Contains(text, "in run > step (the 8th of 12) > compute: limit missing") {
		t.Errorf("%s\nwant limit missing in the 8th of 12 calls of step", text)
	}
}

// A rank that skipped its halo exchange in step 5 and then hung in step 8:
// the faulty run, the shorter, reads to an edit script as step 5 added and
// the normal run's later steps missing; the sentence reads inside step 5.
func TestChangeBeforeHang(t *testing.T) {
	const (
		thread trace.Symbol = iota + 1
		step
		kernel
		irecv
		waitall
		allreduce
	)
	names := map[trace.Symbol]string{thread: "thread", step: "step", kernel: "kernel", irecv: "MPI_Irecv", waitall: "MPI_Waitall", allreduce: "MPI_Allreduce"}
	R := trace.Return
	events := func(skip, hang int) []trace.Symbol {
		ev := []trace.Symbol{thread}
		for s := 1; s <= 12; s++ {
			ev = append(ev, step, kernel, R)
			if s == hang {
				return append(ev, irecv, R, waitall) // stops inside MPI_Waitall
			}
			if s != skip {
				ev = append(ev, irecv, R, waitall, R)
			}
			ev = append(ev, allreduce, R, R)
		}
		return append(ev, R)
	}
	w := Whole{Normal: events(0, 0), Faulty: events(5, 8)}
	e := ExplainFirst(First{Common: math.MaxUint64}, w, math.MaxUint64, math.MaxUint64)
	text := e.Text(func(s trace.Symbol) string { return names[s] })
	if e.Kind != Missing || !strings.Contains(text, "iteration 5 of 12 of the loop over step, in thread > step: MPI_Irecv, MPI_Waitall missing") {
		t.Errorf("%s\nwant MPI_Irecv, MPI_Waitall missing in step 5", text)
	}
}

// A rank that called a function the normal run does not call, and hung in
// it: the call is added, the trace ends inside it, and the calls the
// normal run makes there instead are named.
func TestAddedWhereItHung(t *testing.T) {
	const (
		thread trace.Symbol = iota + 1
		exchange
		post
		wait
		token
		recv
	)
	names := map[trace.Symbol]string{thread: "thread", exchange: "exchange", post: "post", wait: "wait", token: "wait_token", recv: "MPI_Recv"}
	R := trace.Return
	normal := []trace.Symbol{thread}
	for range 4 {
		normal = append(normal, exchange, post, R, wait, R, R)
	}
	normal = append(normal, R)
	faulty := []trace.Symbol{thread}
	for range 2 {
		faulty = append(faulty, exchange, post, R, wait, R, R)
	}
	faulty = append(faulty, exchange, token, recv) // stops inside MPI_Recv
	w := Whole{Normal: normal, Faulty: faulty}
	e := ExplainFirst(First{Common: math.MaxUint64}, w, math.MaxUint64, math.MaxUint64)
	text := e.Text(func(s trace.Symbol) string { return names[s] })
	const want = "iteration 3 of 4 of the loop over exchange, in thread > exchange: wait_token added (with the call it makes), and the faulty trace ends inside it, where the normal run goes on with post, wait"
	if e.Kind != Added || !e.Cut || !strings.Contains(text, want) {
		t.Errorf("%s\nwant %q", text, want)
	}
}

// A change every process of the faulty run made alike (its arguments
// parsed) is passed over where the caller names it (Whole.Alike): the
// explanation goes on to the next change.
func TestAlikeSetAside(t *testing.T) {
	const (
		main trace.Symbol = iota + 1
		parse
		arg
		step
		kernel
	)
	names := map[trace.Symbol]string{main: "main", parse: "parse_args", arg: "get_argument", step: "step", kernel: "kernel"}
	R := trace.Return
	events := func(args, skip int) []trace.Symbol {
		ev := []trace.Symbol{main, parse}
		for range args {
			ev = append(ev, arg, R)
		}
		ev = append(ev, R)
		for s := 1; s <= 6; s++ {
			ev = append(ev, step)
			if s != skip {
				ev = append(ev, kernel, R)
			}
			ev = append(ev, R)
		}
		return append(ev, R)
	}
	w := Whole{Normal: events(0, 0), Faulty: events(2, 4)}
	e := ExplainFirst(First{}, w, 0, 0)
	text := e.Text(func(s trace.Symbol) string { return names[s] })
	if e.Kind != Added || !strings.Contains(text, "get_argument, get_argument added") || e.Holder == ([2]uint64{}) {
		t.Fatalf("%s\nwant the parsing first, with its holder", text)
	}
	w.Alike = map[uint64]uint64{e.Holder[1]: e.Holder[0]}
	e = ExplainFirst(First{}, w, 0, 0)
	text = e.Text(func(s trace.Symbol) string { return names[s] })
	if e.Kind != Missing || !strings.Contains(text, "iteration 4 of 6 of the loop over step, in main > step: kernel missing") {
		t.Errorf("%s\nwant kernel missing in the 4th step, the parsing set aside", text)
	}
}

// A call added after one iteration of a loop and before the next lies
// between them: the sentence says so, whichever of the two the reader
// counts it in.
func TestAddedBetweenIterations(t *testing.T) {
	const (
		forces trace.Symbol = iota + 1
		block
		cutoff
		recheck
	)
	names := map[trace.Symbol]string{forces: "forces", block: "block_forces", cutoff: "apply_cutoff", recheck: "recheck_bounds"}
	R := trace.Return
	events := func(extra bool) []trace.Symbol {
		ev := []trace.Symbol{forces}
		for b := 1; b <= 4; b++ {
			ev = append(ev, block, R, cutoff, R)
			if extra && b == 1 {
				ev = append(ev, recheck, R)
			}
		}
		return append(ev, R)
	}
	w := Whole{Normal: events(false), Faulty: events(true)}
	e := ExplainFirst(First{Common: math.MaxUint64}, w, math.MaxUint64, math.MaxUint64)
	text := e.Text(func(s trace.Symbol) string { return names[s] })
	const want = "between iterations 1 and 2 of 4 of the loop over block_forces and 1 more call, in forces: recheck_bounds added"
	if e.Kind != Added || !strings.Contains(text, want) {
		t.Errorf("%s\nwant %q", text, want)
	}
}
