package nlr

import (
	"strings"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

// letters interns one-letter functions: "ABAB" is A, B, A, B.
type letters struct{ tab *trace.Table }

func newLetters() letters { return letters{trace.NewTable()} }

func (l letters) seq(s string) []trace.Symbol {
	out := make([]trace.Symbol, 0, len(s))
	for _, c := range strings.ReplaceAll(s, " ", "") {
		out = append(out, l.tab.Intern(trace.Name{Func: string(c)}))
	}
	return out
}

// nlr runs Recognize over the traces (run 0, IDs 0, 1, …) and returns each
// NLR as text and the legend.
func (l letters) nlr(t *testing.T, k int, traces ...string) ([]string, string) {
	t.Helper()
	in := make([]Input, len(traces))
	for i, s := range traces {
		in[i] = Input{ID: trace.ID{Proc: i}, Symbols: l.seq(s)}
	}
	seqs, tab, err := Recognize(in, k, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(seqs))
	for i, s := range seqs {
		out[i] = s.Format(FuncNames(l.tab))
		back, err := tab.Expand(nil, s)
		if err != nil {
			t.Fatal(err)
		}
		if !symbolsEqual(back, in[i].Symbols) {
			t.Errorf("Expand(%s) does not give back %s", out[i], traces[i])
		}
		if c := tab.Calls(s); c != uint64(len(back)) {
			t.Errorf("Calls(%s) = %d, want %d", out[i], c, len(back))
		}
	}
	return out, strings.Join(tab.Legend(FuncNames(l.tab)), "; ")
}

func symbolsEqual(a, b []trace.Symbol) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRules(t *testing.T) {
	for _, tc := range []struct {
		k              int
		traces         []string
		want           []string
		legend         string
		iterations     []uint64
		loopIterations [][]uint64
	}{
		// Three copies make a loop; a following copy extends it.
		{10, []string{"AAA"}, []string{"L0^3"}, "L0 = [A]", []uint64{3}, nil},
		{10, []string{"XABABABABY"}, []string{"X, L0^4, Y"}, "L0 = [A, B]", []uint64{4}, nil},
		// Two copies alone are no loop.
		{10, []string{"ABAB", "AA"}, []string{"A, B, A, B", "A, A"}, "", []uint64{0, 0}, nil},
		// …unless another trace found the body: pass 2 folds them.
		{10, []string{"XABABY", "ABABAB"}, []string{"X, L0^2, Y", "L0^3"}, "L0 = [A, B]", []uint64{2, 3}, nil},
		// Pass 1 prefers a flat body to two copies of a known one…
		{10, []string{"ABABAB", "CABABCABABCABAB"}, []string{"L0^3", "L1^3"}, "L0 = [A, B]; L1 = [C, A, B, A, B]", []uint64{3, 3}, nil},
		// …but when K keeps it from that, pass 2 folds the copies and then
		// finds the outer loop around them.
		{3, []string{"ABABAB", "CABABCABABCABAB"}, []string{"L0^3", "L1^3"}, "L0 = [A, B]; L1 = [C, L0^2]", []uint64{3, 9},
			[][]uint64{{3, 0}, {6, 3}}},
		// Nested loops: (A (B C)^5 D)^4. Inner loops are numbered first.
		{10, []string{strings.Repeat("A"+strings.Repeat("BC", 5)+"D", 4)}, []string{"L1^4"},
			"L0 = [B, C]; L1 = [A, L0^5, D]", []uint64{24}, [][]uint64{{20, 4}}},
		// Loops with different counts are different elements.
		{10, []string{"A BBB A BBBB A BBB"}, []string{"A, L0^3, A, L0^4, A, L0^3"}, "L0 = [B]", []uint64{10}, nil},
		// K bounds the body: a 3-long body needs K ≥ 3.
		{2, []string{"ABCABCABC"}, []string{"A, B, C, A, B, C, A, B, C"}, "", []uint64{0}, nil},
		{3, []string{"ABCABCABC"}, []string{"L0^3"}, "L0 = [A, B, C]", []uint64{3}, nil},
		// The smallest body wins: AAAAAA is A^6, not (AA)^3 or (AAA)^2.
		{10, []string{"AAAAAA"}, []string{"L0^6"}, "L0 = [A]", []uint64{6}, nil},
		// Empty traces are fine.
		{10, []string{"", "A"}, []string{"", "A"}, "", []uint64{0, 0}, nil},
	} {
		l := newLetters()
		got, legend := l.nlr(t, tc.k, tc.traces...)
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("K=%d %q: T%d = %q, want %q", tc.k, tc.traces, i, got[i], tc.want[i])
			}
		}
		if legend != tc.legend {
			t.Errorf("K=%d %q: legend %q, want %q", tc.k, tc.traces, legend, tc.legend)
		}
		in := make([]Input, len(tc.traces))
		for i, s := range tc.traces {
			in[i] = Input{ID: trace.ID{Proc: i}, Symbols: l.seq(s)}
		}
		seqs, tab, _ := Recognize(in, tc.k, 1)
		for i, s := range seqs {
			if n := tab.Iterations(s); n != tc.iterations[i] {
				t.Errorf("K=%d %q: T%d completed %d iterations, want %d", tc.k, tc.traces, i, n, tc.iterations[i])
			}
			if tc.loopIterations != nil {
				per := tab.LoopIterations(s)
				if !slicesEqual(per, tc.loopIterations[i]) {
					t.Errorf("K=%d %q: T%d loop iterations %v, want %v", tc.k, tc.traces, i, per, tc.loopIterations[i])
				}
			}
		}
	}
}

func slicesEqual(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Loop numbering follows normal before faulty, then trace IDs, then
// position — whatever order the inputs come in.
func TestNumbering(t *testing.T) {
	l := newLetters()
	ab, ba, c := l.seq("ABABAB"), l.seq("BABABA"), l.seq("CCC")
	in := []Input{
		{Run: 1, ID: trace.ID{Proc: 0, Thread: 0}, Symbols: c},  // faulty: last
		{Run: 0, ID: trace.ID{Proc: 2, Thread: 0}, Symbols: ab}, // normal, P2
		{Run: 0, ID: trace.ID{Proc: 1, Thread: 3}, Symbols: ba}, // normal, P1.3
		{Run: 0, ID: trace.ID{Proc: 1, Thread: 0}, Symbols: append(l.seq("X"), c...)},
	}
	seqs, tab, err := Recognize(in, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := FuncNames(l.tab)
	if got, want := strings.Join(tab.Legend(names), "; "), "L0 = [C]; L1 = [B, A]; L2 = [A, B]"; got != want {
		t.Errorf("legend %q, want %q", got, want)
	}
	if got := seqs[0].Format(names); got != "L0^3" {
		t.Errorf("faulty T0 = %q, want L0^3 (the same L0 as the normal run)", got)
	}
	if got := seqs[3].Format(names); got != "X, L0^3" {
		t.Errorf("normal T1.0 = %q", got)
	}
}

func TestErrors(t *testing.T) {
	if _, err := NewDiscoverer(0); err == nil || !strings.Contains(err.Error(), "K = 0") {
		t.Errorf("NewDiscoverer(0): %v", err)
	}
	if _, _, err := Recognize(nil, -1, 0); err == nil {
		t.Error("Recognize with K = -1: no error")
	}
	l := newLetters()
	_, _, err := Recognize([]Input{{ID: trace.ID{Proc: 3}, Symbols: l.seq("A")}, {ID: trace.ID{Proc: 3}, Symbols: l.seq("B")}}, 10, 0)
	if err == nil || !strings.Contains(err.Error(), "trace 3.0 appears twice in run 0") {
		t.Errorf("duplicate trace: %v", err)
	}
	d10, _ := NewDiscoverer(10)
	d5, _ := NewDiscoverer(5)
	_, _, err = Fold([]Discovered{{ID: trace.ID{Proc: 0}, D: d10}, {ID: trace.ID{Proc: 1}, D: d5}}, 0)
	if err == nil || !strings.Contains(err.Error(), "one comparison uses one K") {
		t.Errorf("mixed K: %v", err)
	}
	d, _ := NewDiscoverer(10)
	if _, _, err := Fold([]Discovered{{D: d}}, 0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Fold([]Discovered{{D: d}}, 0); err == nil || !strings.Contains(err.Error(), "already folded") {
		t.Errorf("folding a spent Discoverer: %v", err)
	}
	seqs, tab, _ := Recognize([]Input{{Symbols: l.seq("AAA")}}, 10, 0)
	if _, err := tab.Expand(nil, Sequence{{Loop: 7, Count: 2}}); err == nil {
		t.Error("Expand of an unknown loop: no error")
	}
	if _, err := tab.Expand(nil, seqs[0]); err != nil {
		t.Error(err)
	}
}

// Streaming symbols into a Discoverer in chunks gives what Recognize gives.
func TestDiscovererChunks(t *testing.T) {
	l := newLetters()
	s := l.seq(strings.Repeat("XY"+strings.Repeat("ABC", 4)+"Z", 9) + "QQ")
	want, wantTab, err := Recognize([]Input{{Symbols: s}}, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{1, 2, 5, 13} {
		d, _ := NewDiscoverer(10)
		for i := 0; i < len(s); i += size {
			d.Push(s[i:min(i+size, len(s))])
		}
		if d.Len() != len(want[0]) {
			t.Errorf("chunks of %d: pass 1 holds %d elements, want %d", size, d.Len(), len(want[0]))
		}
		got, tab, err := Fold([]Discovered{{D: d}}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !got[0].Equal(want[0]) || tab.Len() != wantTab.Len() {
			t.Errorf("chunks of %d: %v, want %v", size, got[0], want[0])
		}
	}
}

func TestTableLookupAndEqual(t *testing.T) {
	l := newLetters()
	seqs, tab, _ := Recognize([]Input{{Symbols: l.seq(strings.Repeat("A"+strings.Repeat("BC", 3)+"D", 3))}}, 10, 0)
	for id := range int32(tab.Len()) {
		got, ok := tab.Lookup(tab.Body(id))
		if !ok || got != id {
			t.Errorf("Lookup(Body(%d)) = %d, %v", id, got, ok)
		}
	}
	if _, ok := tab.Lookup(Sequence{{Loop: NoLoop, Sym: 99}}); ok {
		t.Error("Lookup of an unknown body succeeds")
	}
	a := Element{Loop: 1, Count: 3}
	if !a.Equal(Element{Loop: 1, Count: 3, Sym: 5}) || a.Equal(Element{Loop: 1, Count: 4}) ||
		a.Equal(Element{Loop: NoLoop, Sym: 1}) || !(Element{Loop: NoLoop, Sym: 2}).Equal(Element{Loop: NoLoop, Sym: 2, Count: 9}) {
		t.Error("Element.Equal")
	}
	if !seqs[0].Equal(seqs[0]) || seqs[0].Equal(seqs[0][:0]) {
		t.Error("Sequence.Equal")
	}
}
