package fca

import (
	"slices"
	"testing"

	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// attrNames returns the attribute names of every object of a context.
func attrNames(c *Context) [][]string {
	var out [][]string
	for o := range c.Len() {
		got := names(c.Attrs(o), c.AttrName)
		slices.Sort(got)
		out = append(out, got)
	}
	return out
}

// Two normal runs of a worker: its loop L0 ran 3 and 5 times, and it once
// called MPI_Send after the loop and once MPI_Recv. The loop's frequency
// varies (it reads L0:*), MPI_Send and MPI_Recv come and go (left out), and
// MPI_Init, the same in both, stays exact.
func TestLooseVary(t *testing.T) {
	ids := []trace.ID{{Proc: 1}}
	run1 := []nlr.Sequence{{sym(symInit), loop(0, 3), sym(symSend)}}
	run2 := []nlr.Sequence{{sym(symInit), loop(0, 5), sym(symRecv)}}
	var l Loose
	l.Vary(Mode{Freq: Actual}, [][]nlr.Sequence{run1, run2})
	if freq, noise := l.Counts(); freq != 1 || noise != 2 {
		t.Errorf("Counts() = %d, %d; want 1 varying frequency (L0), 2 attributes that come and go", freq, noise)
	}
	for _, run := range [][]nlr.Sequence{run1, run2, {{sym(symInit), loop(0, 9), sym(symSend)}}} {
		c, err := NewLooseContext(Mode{Freq: Actual}, ids, run, symName, &l)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := attrNames(c)[0], []string{"L0:*", "MPI_Init:1"}; !slices.Equal(got, want) {
			t.Errorf("attributes %v, want %v", got, want)
		}
	}
	// A third run whose MPI_Init is called twice: that frequency was the
	// same in the normal runs, so the change shows.
	c, err := NewLooseContext(Mode{Freq: Actual}, ids, []nlr.Sequence{{sym(symInit), sym(symInit), loop(0, 4)}}, symName, &l)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := attrNames(c)[0], []string{"L0:*", "MPI_Init:2"}; !slices.Equal(got, want) {
		t.Errorf("attributes %v, want %v", got, want)
	}
}

// Pairs vary as pairs; a trace missing from a run (nil) is not compared;
// under noFreq only presence can vary.
func TestLooseVaryPairs(t *testing.T) {
	run1 := []nlr.Sequence{{sym(symInit), sym(symSend), sym(symRecv)}, nil}
	run2 := []nlr.Sequence{{sym(symInit), sym(symSend), sym(symRecv), sym(symSend), sym(symRecv)}, {sym(symFinalize)}}
	var l Loose
	l.Vary(Mode{Double: true}, [][]nlr.Sequence{run1, run2})
	if freq, noise := l.Counts(); freq != 0 || noise != 1 {
		t.Errorf("noFreq: Counts() = %d, %d; want 0, 1 ((MPI_Recv, MPI_Send) comes and goes)", freq, noise)
	}
	var la Loose
	la.Vary(Mode{Double: true, Freq: Actual}, [][]nlr.Sequence{run1, run2})
	if freq, noise := la.Counts(); freq != 1 || noise != 1 {
		t.Errorf("actual: Counts() = %d, %d; want 1 ((MPI_Send, MPI_Recv) 1 and 2 times), 1", freq, noise)
	}
	c, err := NewLooseContext(Mode{Double: true, Freq: Actual}, []trace.ID{{Proc: 0}}, run2[:1], symName, &la)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := attrNames(c)[0], []string{"(MPI_Init, MPI_Send):1", "(MPI_Send, MPI_Recv):*"}; !slices.Equal(got, want) {
		t.Errorf("attributes %v, want %v", got, want)
	}
}

// A free symbol (a polling call) carries no frequency in any attribute,
// and a nil Loose changes nothing.
func TestLooseFree(t *testing.T) {
	ids := []trace.ID{{Proc: 0}}
	seqs := []nlr.Sequence{{sym(symInit), sym(symRecv), sym(symRecv), loop(2, 7)}}
	var l Loose
	l.FreeSymbol(symRecv)
	l.FreeLoop(2)
	c, err := NewLooseContext(Mode{Freq: Log10}, ids, seqs, symName, &l)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := attrNames(c)[0], []string{"L2:*", "MPI_Init:0", "MPI_Recv:*"}; !slices.Equal(got, want) {
		t.Errorf("attributes %v, want %v", got, want)
	}
	plain, err := NewContext(Mode{Freq: Log10}, ids, seqs, symName)
	if err != nil {
		t.Fatal(err)
	}
	nilLoose, err := NewLooseContext(Mode{Freq: Log10}, ids, seqs, symName, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(attrNames(plain)[0], attrNames(nilLoose)[0]) || !slices.Contains(attrNames(plain)[0], "MPI_Recv:0") {
		t.Errorf("nil Loose: %v, NewContext: %v", attrNames(nilLoose)[0], attrNames(plain)[0])
	}
}
