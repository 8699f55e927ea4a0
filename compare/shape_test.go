package compare

import (
	"strings"
	"testing"

	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// shaped recognises the loops of the traces (calls written as letters,
// one per symbol) and returns each one's view through a shaper, with the
// loops whose bodies are listed in noisy marked as varying, written with
// the loops' bodies inline.
func shaped(t *testing.T, noisy []string, traces ...string) []string {
	t.Helper()
	tab := trace.NewTable()
	var in []nlr.Input
	for r, tr := range traces {
		var s []trace.Symbol
		for _, c := range strings.Fields(tr) {
			s = append(s, tab.Intern(trace.Name{Func: c}))
		}
		in = append(in, nlr.Input{Run: r, Symbols: s})
	}
	seqs, table, err := nlr.Recognize(in, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	name := func(s trace.Symbol) string { return tab.Name(s).Func }
	marks := make([]bool, table.Len())
	for _, body := range noisy {
		found := false
		for id := range int32(table.Len()) {
			if table.Body(id).Format(name) == body {
				marks[id], found = true, true
			}
		}
		if !found {
			t.Fatalf("no loop [%s] among %s", body, strings.Join(table.Legend(name, seqs...), "; "))
		}
	}
	sh := newShaper(table, marks, nil)
	var out []string
	for _, s := range seqs {
		out = append(out, table.Inline(sh.view(s), name))
	}
	return out
}

func TestShaperRotation(t *testing.T) {
	// The same cycle folded from two places: [a, b, c] and [b, c, a].
	got := shaped(t, []string{"z"},
		"x a b c a b c a b c y z z z",
		"x b c a b c a b c a y z z")
	want := []string{
		"x, [a, b, c]^3, y, [z]^3",
		"x, b, c, [a, b, c]^2, a, y, [z]^2",
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("trace %d: got %s, want %s", i, got[i], want[i])
		}
	}
}

func TestShaperCoincidence(t *testing.T) {
	// Three tasks of three chunks each fold into a loop only because the
	// chunk counts, which vary, happened to repeat; a task with one chunk
	// is the chunk loop once.
	got := shaped(t, []string{"c"},
		"s c c c e s c c c e s c c c e",
		"s c c e s c e s c c c c e")
	want := []string{
		"s, [c]^3, e, s, [c]^3, e, s, [c]^3, e",
		"s, [c]^2, e, s, [c]^1, e, s, [c]^4, e",
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("trace %d: got %s, want %s", i, got[i], want[i])
		}
	}
}

func TestShaperShapes(t *testing.T) {
	// Loops whose bodies differ only in a count that varies are one loop,
	// written here with the first one's counts; too long to write out,
	// they stay folded.
	got := shaped(t, []string{"c"},
		strings.Repeat("a c c c c b ", 100),
		strings.Repeat("a c c c b ", 100))
	for i, g := range got {
		if g != "[a, [c]^4, b]^100" {
			t.Errorf("trace %d: got %s", i, g)
		}
	}
	// Written out, they are their iterations.
	got = shaped(t, []string{"c"}, "a c c b a c c b", "a c c c b a c c c b")
	if got[0] != "a, [c]^2, b, a, [c]^2, b" || got[1] != "a, [c]^3, b, a, [c]^3, b" {
		t.Errorf("got %q", got)
	}
}

func TestShaperSwaps(t *testing.T) {
	// Two normal runs unpack two halos in either order, each after an
	// MPI_Waitany (w): learnt from the diff of the runs, the swap reads
	// both the same.
	tab := trace.NewTable()
	seq := func(s string) []trace.Symbol {
		var out []trace.Symbol
		for _, c := range strings.Fields(s) {
			out = append(out, tab.Intern(trace.Name{Func: c}))
		}
		return out
	}
	runs := []string{
		"init w north copy w south calc end",
		"init w south w north copy calc end",
		"init w south calc end", // the faulty run: north never unpacked
	}
	var in []nlr.Input
	for r, s := range runs {
		in = append(in, nlr.Input{Run: r, Symbols: seq(s)})
	}
	seqs, table, err := nlr.Recognize(in, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	name := func(s trace.Symbol) string { return tab.Name(s).Func }
	base := newShaper(table, make([]bool, table.Len()), nil)
	swaps := learnSwaps(base, [][]nlr.Sequence{{base.view(seqs[0])}, {base.view(seqs[1])}})
	if len(swaps) != 1 {
		t.Fatalf("learnt %d swaps, want 1", len(swaps))
	}
	sh := newShaper(table, make([]bool, table.Len()), swaps)
	v0, v1, v2 := sh.view(seqs[0]), sh.view(seqs[1]), sh.view(seqs[2])
	if !v0.Equal(v1) {
		t.Errorf("the normal runs read differently: %s / %s", v0.Format(name), v1.Format(name))
	}
	if got := v2.Format(name); got != "init, w, south, calc, end" {
		t.Errorf("faulty run reads %s", got)
	}
	// The same swap inside loop bodies: steps folded in either order are
	// one loop.
	step := func(order string) string { return strings.Repeat("step "+order+" calc ", 3) }
	in = []nlr.Input{
		{Run: 0, Symbols: seq(step("w north copy w south"))},
		{Run: 1, Symbols: seq(step("w south w north copy"))},
	}
	seqs, table, err = nlr.Recognize(in, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	base = newShaper(table, make([]bool, table.Len()), nil)
	swaps = learnSwaps(base, [][]nlr.Sequence{{base.view(seqs[0])}, {base.view(seqs[1])}})
	sh = newShaper(table, make([]bool, table.Len()), swaps)
	if v0, v1 := sh.view(seqs[0]), sh.view(seqs[1]); !v0.Equal(v1) || len(v0) != 1 {
		t.Errorf("steps in either order: %s / %s, want one loop", table.Inline(v0, name), table.Inline(v1, name))
	}
}
