package summary

import (
	"slices"
	"testing"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// encoded returns the pass-1 NLR of calls (symbols of some table) as
// summarize stores it.
func encoded(t *testing.T, calls ...trace.Symbol) []byte {
	t.Helper()
	d, err := nlr.NewDiscoverer(10)
	if err != nil {
		t.Fatal(err)
	}
	d.Push(calls)
	d.Seal()
	b, err := d.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Parts whose processes read different function tables name functions
// otherwise; Open numbers them as reading the whole run would (part by
// part, each name where it first appears) and puts every part's traces and
// loops in those numbers.
func TestOpenJoinsNames(t *testing.T) {
	ret := trace.Name{Func: "<return>"}
	main := trace.Name{Image: trace.Program, Func: "main"}
	send := trace.Name{Image: "libmpi.so.40", Func: "MPI_Send"}
	recv := trace.Name{Image: "libmpi.so.40", Func: "MPI_Recv"}
	names := [][]trace.Name{{ret, main, send}, {ret, main, recv, send}, {ret, main}}
	grid := Grid{Filters: []string{"all"}, Ks: []int{10}}
	dir := t.TempDir()
	for i, ns := range names {
		last := trace.Symbol(len(ns) - 1)
		var funcs []trace.Symbol
		for f := range last {
			funcs = append(funcs, f+1)
		}
		p := &Part{Index: i, Of: len(names), Grid: grid, Names: len(ns), NamesSum: NamesSum(ns),
			Run: decode.Header{Dir: "runs/mpmd", Format: decode.FormatRun, Names: ns, Functions: funcs,
				Procs: []decode.HeaderProcess{{Index: i, Rank: -1, Threads: []decode.HeaderTrace{{Thread: 0}}}}},
			Traces:  []Trace{{ID: trace.ID{Proc: i}, Kept: []uint64{4}, Classes: []int32{0}, End: []trace.Symbol{1, last}}},
			Classes: [][]byte{encoded(t, 1, last, last, last, last)},
		}
		if err := Write(dir, p); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []trace.Name{ret, main, send, recv}; !slices.Equal(s.Run.Names, want) {
		t.Fatalf("names %v, want %v", s.Run.Names, want)
	}
	if want := []trace.Symbol{1, 2, 3}; !slices.Equal(s.Run.Functions, want) {
		t.Errorf("functions %v, want %v", s.Run.Functions, want)
	}
	// Part 1's MPI_Send (its symbol 3) is the run's 2; part 2 ended in main.
	for i, want := range [][]trace.Symbol{{1, 2}, {1, 2}, {1, 1}} {
		p := s.Parts[i]
		if got := p.Traces[0].End; !slices.Equal(got, want) {
			t.Errorf("part %d: ended in %v, want %v", i, got, want)
		}
		if p.Names != len(s.Run.Names) && i == 1 {
			t.Errorf("part %d still counts its own %d names", i, p.Names)
		}
		if got, want := p.Classes[0], encoded(t, want[0], want[1], want[1], want[1], want[1]); !slices.Equal(got, want) {
			t.Errorf("part %d: its loops are not in the run's symbols:\n%v, want\n%v", i, got, want)
		}
	}
}
