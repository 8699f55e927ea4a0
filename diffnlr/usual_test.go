package diffnlr

import (
	"strings"
	"testing"

	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// letters turns a string into calls, one symbol per letter.
func letters(s string) []trace.Symbol {
	out := make([]trace.Symbol, len(s))
	for i, c := range s {
		out[i] = trace.Symbol(c - 'a')
	}
	return out
}

// A change whose faulty side makes only call pairs the normal runs make is
// one line when Usual is set and it is longer than Abridge.Changed; a
// change that makes a new pair stays, and so does everything without Usual
// or with Full.
func TestUsualChanges(t *testing.T) {
	// Two normal runs that differ by themselves: after "s", either "xy"
	// or "z" (a task goes one way or the other). The faulty run leaves
	// out "v" between "u" and "w", a pair ("u", "w") no normal run makes,
	// and further on takes the other way at "s".
	normal1 := letters("abcuvwdefsxyghi")
	normal2 := letters("abcuvwdefszghi")
	faulty := letters("abcuwdefszghi")
	seqs, table, err := nlr.Recognize([]nlr.Input{{Run: 0, Symbols: normal1}, {Run: 1, Symbols: normal2}, {Run: 2, Symbols: faulty}}, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPairs(table)
	p.Add(seqs[0])
	p.Add(seqs[1])
	blocks, err := Diff(seqs[0], seqs[2])
	if err != nil {
		t.Fatal(err)
	}
	name := func(e nlr.Element) string { return string(rune('a' + e.Sym)) }
	text := func(pic *Picture) string {
		pic.Label = name
		var b strings.Builder
		if err := pic.WriteText(&b, false); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	with := text(&Picture{Blocks: blocks, Usual: p, Abridge: Abridge{Context: 1, Changed: 2}})
	if !strings.Contains(with, "- v") {
		t.Errorf("the change that makes a new pair is not shown:\n%s", with)
	}
	if strings.Contains(with, "- x") || !strings.Contains(with, "a change as between normal runs: 2 normal-only, 1 faulty-only element") {
		t.Errorf("the change like those between normal runs is not one line:\n%s", with)
	}
	for _, pic := range []*Picture{
		{Blocks: blocks, Abridge: Abridge{Context: 1, Changed: 2}},
		{Blocks: blocks, Usual: p, Abridge: Full},
		{Blocks: blocks, Usual: p, Abridge: Abridge{Context: 1, Changed: 3}}, // no longer than a change shown
	} {
		if out := text(pic); !strings.Contains(out, "- x") || strings.Contains(out, "between normal runs") {
			t.Errorf("without Usual, with Full, or for a short change, every change is shown:\n%s", out)
		}
	}

	// A loop that ran a different number of times is no change like
	// those between normal runs, whatever its pairs.
	loopN := letters("abababababcd")
	loopF := letters("ababababcd")
	seqs, table, err = nlr.Recognize([]nlr.Input{{Run: 0, Symbols: loopN}, {Run: 1, Symbols: loopF}}, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	p = NewPairs(table)
	p.Add(seqs[0])
	blocks, err = Diff(append(nlr.Sequence{{Sym: 25}}, seqs[0]...), append(nlr.Sequence{{Sym: 25}}, seqs[1]...))
	if err != nil {
		t.Fatal(err)
	}
	pic := &Picture{Blocks: blocks, Usual: p, Abridge: Abridge{Changed: 1}, Label: func(e nlr.Element) string {
		return e.Format(func(s trace.Symbol) string { return string(rune('a' + s)) })
	}}
	var b strings.Builder
	if err := pic.WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "between normal runs") {
		t.Errorf("a loop count that changed is hidden:\n%s", b.String())
	}
}
