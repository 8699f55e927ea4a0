package nlr

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/parlot"

	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/trace"
)

// readParLOT decodes one process of a ParLOT run: its .info function table
// (a "+" line opens an image section, the next line is the image, each
// following line a function; IDs count from 1 across sections) and its
// thread-0 trace, interning every name into tab.
func readParLOT(t *testing.T, tab *trace.Table, dir, prefix string) []trace.Symbol {
	t.Helper()
	info, err := os.Open(filepath.Join(dir, prefix+".info"))
	if err != nil {
		t.Fatal(err)
	}
	defer info.Close()
	syms := []trace.Symbol{trace.Return}
	image, inSection, wantImage := "", false, false
	sc := bufio.NewScanner(info)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "+":
			inSection, wantImage = true, true
		case wantImage:
			image, wantImage = line, false
		case inSection && line != "":
			syms = append(syms, tab.Intern(trace.Name{Image: image, Func: line}))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, prefix+".0")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	raw, err := parlot.ReadAll(f, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	events := make([]trace.Symbol, len(raw))
	for i, v := range raw {
		if int(v) >= len(syms) {
			t.Fatalf("%s: event %d is function %d, beyond the %d of %s.info", path, i, v, len(syms)-1, prefix)
		}
		events[i] = syms[v]
	}
	return events
}

// TestOddEven4 reproduces seeds/002 Table 3.3 from the real 4-process
// ParLOT capture in testdata/parlot/oddeven4.
//
// What the decoded traces contain: every process calls main, MPI_Init,
// MPI_Comm_rank, MPI_Comm_size, oddEvenSort, then findPtr four times (once
// per phase), and after each findPtr whose partner exists an exchange,
// then MPI_Finalize. Each process has its own .info table, and the tables
// differ: pids 3208 and 3213 list MPI_Send before MPI_Recv (IDs 7, 8), pids
// 3216 and 3218 list MPI_Recv first — so the raw sequences of all four
// look alike (7 0 8 0 after each findPtr) while by name ranks 0 and 2
// (3208, 3213) do Send, Recv and ranks 1 and 3 (3216, 3218) do Recv, Send.
// The edge ranks 0 and 3 exchange in phases 0 and 2 only (in phases 1 and
// 3 findPtr finds no partner), the middle ones in all four.
func TestOddEven4(t *testing.T) {
	const dir = "../testdata/parlot/oddeven4"
	rankPid := []int{3208, 3216, 3213, 3218}
	tab := trace.NewTable()
	raw := make([][]trace.Symbol, len(rankPid))
	for r, pid := range rankPid {
		raw[r] = readParLOT(t, tab, dir, fmt.Sprintf("Hdbg.17.node01.%d", pid))
	}
	names := FuncNames(tab)

	// The decoded calls, as described above.
	for r, ev := range raw {
		var calls []string
		for _, s := range ev {
			if s != trace.Return {
				calls = append(calls, names(s))
			}
		}
		ex := "MPI_Send, MPI_Recv"
		if r%2 == 1 {
			ex = "MPI_Recv, MPI_Send"
		}
		var phases []string
		for ph := range 4 {
			if (r == 0 || r == 3) && ph%2 == 1 {
				phases = append(phases, "findPtr")
			} else {
				phases = append(phases, "findPtr, "+ex)
			}
		}
		want := "main, MPI_Init, MPI_Comm_rank, MPI_Comm_size, oddEvenSort, " + strings.Join(phases, ", ") + ", MPI_Finalize"
		if got := strings.Join(calls, ", "); got != want {
			t.Errorf("rank %d decodes to\n  %s\nwant\n  %s", r, got, want)
		}
	}

	mask := filters.MustParse("mpi").Compile(tab)
	inputs := make([]Input, len(raw))
	for r, ev := range raw {
		inputs[r] = Input{ID: trace.ID{Proc: r, Thread: 0}, Symbols: mask.Apply(ev)}
	}
	seqs, loops, err := Recognize(inputs, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	head, tail := "MPI_Init, MPI_Comm_rank, MPI_Comm_size, ", ", MPI_Finalize"
	for r, want := range []string{"L0^2", "L1^4", "L0^4", "L1^2"} {
		if got := seqs[r].Format(names); got != head+want+tail {
			t.Errorf("T%d = %s, want %s", r, got, head+want+tail)
		}
	}
	legend := strings.Join(loops.Legend(names), "; ")
	if want := "L0 = [MPI_Send, MPI_Recv]; L1 = [MPI_Recv, MPI_Send]"; legend != want {
		t.Errorf("legend = %q, want %q", legend, want)
	}
	for r, want := range []uint64{2, 4, 4, 2} {
		if got := loops.Iterations(seqs[r]); got != want {
			t.Errorf("T%d completed %d iterations, want %d", r, got, want)
		}
	}
}

// oddEvenEvents is the trace one rank of examples/oddeven writes (the
// program of seeds/002 Fig. 3.2, as its source in the capture examples
// runs it): main calls MPI_Init, MPI_Comm_rank, MPI_Comm_size and
// oddEvenSort, which for each of size phases calls findPtr and, when the
// rank has a partner, exchanges — Send then Recv on even ranks, Recv then
// Send on odd ones, swapped from phase swapIter on when rank == swapRank.
func oddEvenEvents(tab *trace.Table, rank, size, swapRank, swapIter int) []trace.Symbol {
	app := func(f string) trace.Symbol { return tab.Intern(trace.Name{Image: "oddeven", Func: f}) }
	mpi := func(f string) trace.Symbol { return tab.Intern(trace.Name{Image: "libmpi.so.40", Func: f}) }
	call := func(ev []trace.Symbol, s trace.Symbol) []trace.Symbol { return append(ev, s, trace.Return) }
	ev := []trace.Symbol{app("main")}
	ev = call(ev, mpi("MPI_Init"))
	ev = call(ev, mpi("MPI_Comm_rank"))
	ev = call(ev, mpi("MPI_Comm_size"))
	ev = append(ev, app("oddEvenSort"))
	for i := range size {
		ev = call(ev, app("findPtr"))
		ptr := rank - 1
		if (i%2 == 0) == (rank%2 == 0) {
			ptr = rank + 1
		}
		if ptr < 0 || ptr >= size {
			continue
		}
		sendFirst := rank%2 == 0
		if rank == swapRank && i >= swapIter {
			sendFirst = !sendFirst
		}
		if sendFirst {
			ev = call(call(ev, mpi("MPI_Send")), mpi("MPI_Recv"))
		} else {
			ev = call(call(ev, mpi("MPI_Recv")), mpi("MPI_Send"))
		}
	}
	ev = append(ev, trace.Return)
	ev = call(ev, mpi("MPI_Finalize"))
	return append(ev, trace.Return)
}

// TestSwapBug16 is the swapBug of seeds/002 §3.2.7 with 16 ranks: in the
// faulty run rank 5 swaps its Send/Recv order from phase 7 on. With both
// runs in one comparison, T5 is L1^16 in the normal run and L1^7, L0^9 in
// the faulty one; the odd ranks' Recv Send Recv Send … is L1^16, not
// Recv, L0^15, Send (the reason pass 2 is separate).
func TestSwapBug16(t *testing.T) {
	const size = 16
	tab := trace.NewTable()
	var raw [2][size][]trace.Symbol
	for run := range 2 {
		swap := -1
		if run == 1 {
			swap = 5
		}
		for r := range size {
			raw[run][r] = oddEvenEvents(tab, r, size, swap, 7)
		}
	}
	mask := filters.MustParse("mpi").Compile(tab)
	var inputs []Input
	// Faulty run first and ranks descending: the numbering must not care.
	for run := 1; run >= 0; run-- {
		for r := size - 1; r >= 0; r-- {
			inputs = append(inputs, Input{Run: run, ID: trace.ID{Proc: r}, Symbols: mask.Apply(raw[run][r])})
		}
	}
	seqs, loops, err := Recognize(inputs, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := FuncNames(tab)
	got := map[[2]int]string{}
	for i, in := range inputs {
		got[[2]int{in.Run, in.ID.Proc}] = seqs[i].Format(names)
	}
	head, tail := "MPI_Init, MPI_Comm_rank, MPI_Comm_size, ", ", MPI_Finalize"
	for run := range 2 {
		for r := range size {
			want := "L1^16"
			switch {
			case r == 0:
				want = "L0^8"
			case r == size-1:
				want = "L1^8"
			case r%2 == 0:
				want = "L0^16"
			case run == 1 && r == 5:
				want = "L1^7, L0^9"
			}
			if g := got[[2]int{run, r}]; g != head+want+tail {
				t.Errorf("run %d T%d = %s, want %s", run, r, g, head+want+tail)
			}
		}
	}
	legend := strings.Join(loops.Legend(names), "; ")
	if want := "L0 = [MPI_Send, MPI_Recv]; L1 = [MPI_Recv, MPI_Send]"; legend != want {
		t.Errorf("legend = %q, want %q", legend, want)
	}
}

// TestPassesStaySeparate shows what merging the passes would do to an odd
// rank: with the even body [Send, Recv] known from the start, the two-copy
// rule folds the odd rank's sequence into Recv, L0^15, Send.
func TestPassesStaySeparate(t *testing.T) {
	tab := trace.NewTable()
	oddEv, evenEv := oddEvenEvents(tab, 5, 16, -1, 0), oddEvenEvents(tab, 4, 16, -1, 0)
	mask := filters.MustParse("mpi").Compile(tab)
	odd, even := mask.Apply(oddEv), mask.Apply(evenEv)
	names := FuncNames(tab)

	// Separate passes (Recognize): L1^16.
	seqs, _, err := Recognize([]Input{{ID: trace.ID{Proc: 4}, Symbols: even}, {ID: trace.ID{Proc: 5}, Symbols: odd}}, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := seqs[1].Format(names), "MPI_Init, MPI_Comm_rank, MPI_Comm_size, L1^16, MPI_Finalize"; got != want {
		t.Errorf("odd rank = %s, want %s", got, want)
	}

	// One merged pass, the body [Send, Recv] known in advance.
	shared := newBodies()
	var scratch []byte
	send, _ := tab.Lookup(trace.Name{Image: "libmpi.so.40", Func: "MPI_Send"})
	recv, _ := tab.Lookup(trace.Name{Image: "libmpi.so.40", Func: "MPI_Recv"})
	shared.add([]uint64{symKey(send), symKey(recv)}, &scratch)
	r := newReducer(10, shared)
	for _, s := range odd {
		r.push(symKey(s))
	}
	merged := toSequence(r.stack, []int32{0})
	if got, want := merged.Format(names), "MPI_Init, MPI_Comm_rank, MPI_Comm_size, MPI_Recv, L0^15, MPI_Send, MPI_Finalize"; got != want {
		t.Errorf("merged passes: odd rank = %s, want %s", got, want)
	}
}
