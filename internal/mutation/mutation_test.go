package mutation

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/trace"
)

// build makes a trace from a call tree written "main(a b(c) b(c))": a name
// is a call, parentheses hold its calls. A call left open at the end of
// the text ("main(a b(") is open at the end of the trace.
func build(t testing.TB, tab *trace.Table, spec string) []trace.Symbol {
	t.Helper()
	var ev []trace.Symbol
	spec = strings.NewReplacer("(", " ( ", ")", " ) ").Replace(spec)
	words := strings.Fields(spec)
	for i := 0; i < len(words); i++ {
		switch w := words[i]; w {
		case "(":
			t.Fatalf("%q: a call's parentheses must follow its name", spec)
		case ")":
			ev = append(ev, trace.Return)
		default:
			ev = append(ev, tab.Intern(trace.Name{Func: w}))
			if i+1 < len(words) && words[i+1] == "(" {
				i++ // its calls follow, and its return at ")"
				continue
			}
			ev = append(ev, trace.Return)
		}
	}
	return ev
}

// write turns events back into the notation of build.
func write(tab *trace.Table, ev []trace.Symbol) string {
	var b strings.Builder
	for i, s := range ev {
		switch {
		case s == trace.Return:
			if i > 0 && ev[i-1] != trace.Return {
				continue // a leaf's return
			}
			b.WriteString(")")
		default:
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "(") {
				b.WriteString(" ")
			}
			b.WriteString(tab.Name(s).Func)
			if i+1 < len(ev) && ev[i+1] != trace.Return {
				b.WriteString("(")
			}
		}
	}
	return b.String()
}

func TestBuildWrite(t *testing.T) {
	tab := trace.NewTable()
	for _, spec := range []string{"main(a b(c d) b(c d) e)", "a b c", "main(x(y(z)))"} {
		if got := write(tab, build(t, tab, spec)); got != spec {
			t.Errorf("write(build(%q)) = %q", spec, got)
		}
	}
}

// loops writes the loops of the root and of every call: "main: 1+1x3"
// (from child 1, a body of 1 child, 3 times).
func loops(tab *trace.Table, tr *Tree) string {
	var parts []string
	for n, ls := range tr.Loops {
		for _, l := range ls {
			name := "root"
			if n != Root {
				name = tab.Name(tr.Nodes[n].Sym).Func + fmt.Sprint(tr.Nodes[n].Start)
			}
			parts = append(parts, fmt.Sprintf("%s: %d+%dx%d", name, l.First, l.Period, l.Count))
		}
	}
	return strings.Join(parts, ", ")
}

// Loops of known structure: periods of one and of several calls, nested,
// of any length, compared by whole subtrees, at every level, leftmost.
func TestFindLoops(t *testing.T) {
	long := func(n int) string {
		var w []string
		for i := range n {
			w = append(w, fmt.Sprintf("f%d", i))
		}
		return strings.Join(w, " ")
	}
	b1000 := long(1000)
	for _, c := range []struct{ spec, want string }{
		{"a a a b", "root: 0+1x3"},
		{"a b", ""},
		{"a b a b a b c", "root: 0+2x3"},
		{"c a b a b", "root: 1+2x2"},
		{"b a b a b", "root: 0+2x2"}, // leftmost: [b a]^2 b, not b [a b]^2
		{"x a a b x a a b", "root: 0+4x2, root: 1+1x2, root: 5+1x2"},
		{"s(p q) t s(p q) t s(p r) t", "root: 0+2x2"}, // subtrees differ in the third
		{"main(step(a b) step(a b) step(a b))", "main0: 0+1x3"},
		{"main(step(a a) step(a a))", "main0: 0+1x2, step1: 0+1x2, step7: 0+1x2"},
		{b1000 + " " + b1000 + " " + b1000 + " end", "root: 0+1000x3"},
		{"u v u v w u v u v w", "root: 0+5x2, root: 0+2x2, root: 5+2x2"},
		// The phases of odd/even's rank 0: the repeat that covers most
		// first, not the pairs of f across its iterations.
		{"f s r f f s r f f s r f", "root: 0+4x3"},
		{"a a a a", "root: 0+1x4"}, // as much covered by [a a]^2: the smaller period
	} {
		tab := trace.NewTable()
		tr := NewTree(build(t, tab, c.spec))
		if got := loops(tab, tr); got != c.want {
			t.Errorf("%.60s: loops %q, want %q", c.spec, got, c.want)
		}
	}
}

// A place has the loops around it at every level, outermost first, with
// its iteration of each, and the call stack of its callers.
func TestAround(t *testing.T) {
	tab := trace.NewTable()
	tr := NewTree(build(t, tab, "main(init step(a x x b) step(a x x b) step(a x x b) fin)"))
	var x int32 = -1 // the second x of the third step
	seen := 0
	for id, n := range tr.Nodes {
		if n.Sym != 0 && tab.Name(n.Sym).Func == "x" {
			if seen++; seen == 6 {
				x = int32(id)
			}
		}
	}
	got := iterCounts(tr.AroundCall(x))
	if want := []IterCount{{3, 3}, {2, 2}}; !slices.Equal(got, want) {
		t.Errorf("loops around the last x: %v, want %v", got, want)
	}
	if st := joinStack(labels(tab, tr.Stack(x))); st != "main > step" {
		t.Errorf("stack %q", st)
	}
}

// The answer a deletion expects: a call missing where it was, or where it
// is one of a run of calls just like it, one iteration fewer of their loop.
func TestWantDeleted(t *testing.T) {
	tab := trace.NewTable()
	name := func(s trace.Symbol) string { return tab.Name(s).Func }
	tr := NewTree(build(t, tab, "main(s(a b) s(a b) s(a b) c c c d)"))
	main := tr.Child(Root, 0)
	s2 := tr.Child(main, 1)
	want, ok := tr.wantDeleted(s2, 1)
	if got := want.Format(name); !ok || got != "missing b in 2/3 at main > s" {
		t.Errorf("b of the second s: %q", got)
	}
	want, ok = tr.wantDeleted(main, 4)
	if got := want.Format(name); !ok || got != "count changed c in 3/3 at main" {
		t.Errorf("the second c: %q", got)
	}
	// The next call is of the same function with other calls inside:
	// ambiguous, not drawn.
	tr = NewTree(build(t, tab, "main(f(a) f(b) g)"))
	if _, ok := tr.wantDeleted(tr.Child(Root, 0), 0); ok {
		t.Errorf("f(a) before f(b): drawn")
	}
}

// Every kind of mutation makes exactly the change it says, and the answer
// it expects names a call of the trace at a place of the trace.
func TestMutationsChangeWhatTheySay(t *testing.T) {
	tab := trace.NewTable()
	name := func(s trace.Symbol) string { return tab.Name(s).Func }
	base := build(t, tab, "main(init(a) step(x(p q) y z z) step(x(p q) y z z) step(x(p q) y z z) step(x(p q) y z z) fin)")
	tr := NewTree(base)
	for _, op := range Ops {
		for k := range 200 {
			m, err := tr.Mutate(rng(7, stream(0, op, k)), op, name)
			if err != nil {
				t.Fatalf("%s: %v", op, err)
			}
			got := Apply(m, base)
			if slices.Equal(got, base) {
				t.Fatalf("%s: the trace did not change", m.What)
			}
			calls := func(ev []trace.Symbol) (n int) {
				for _, s := range ev {
					if s != trace.Return {
						n++
					}
				}
				return n
			}
			switch op {
			case OpDelete, OpDeleteFrom:
				if !balanced(got) || calls(got) >= calls(base) || m.Want.Kind != Missing && m.Want.Kind != CountChanged {
					t.Fatalf("%s: %s", m.What, write(tab, got))
				}
			case OpInsert:
				if !balanced(got) || len(m.Splices) != 1 || len(got) != len(base)+m.Splices[0].Ins[0][1]-m.Splices[0].Ins[0][0] {
					t.Fatalf("%s: %s", m.What, write(tab, got))
				}
			case OpSwap:
				a, b := slices.Clone(got), slices.Clone(base)
				slices.Sort(a)
				slices.Sort(b)
				if !balanced(got) || !slices.Equal(a, b) || m.Want.Kind != Reordered {
					t.Fatalf("%s: %s", m.What, write(tab, got))
				}
			case OpCount:
				if !balanced(got) || m.Want.Kind != CountChanged {
					t.Fatalf("%s: %s", m.What, write(tab, got))
				}
			case OpCut:
				if !slices.Equal(got, base[:len(got)]) || got[len(got)-1] != m.Want.Call {
					t.Fatalf("%s: %s", m.What, write(tab, got))
				}
			}
		}
	}
}

func balanced(ev []trace.Symbol) bool {
	d := 0
	for _, s := range ev {
		if s == trace.Return {
			d--
		} else {
			d++
		}
		if d < 0 {
			return false
		}
	}
	return d == 0
}

// Small cases whose answer is known, each mutation applied and checked.
func TestMutationCases(t *testing.T) {
	tab := trace.NewTable()
	name := func(s trace.Symbol) string { return tab.Name(s).Func }
	for _, c := range []struct {
		op         Op
		spec       string
		want, then string
	}{
		// The only two different neighbours: a and b.
		{OpSwap, "main(a b)", "reordered a at main", "main(b a)"},
		// The only loop: z z in a step of the step loop.
		{OpCount, "main(s(z z) s(z z))", "", ""},
	} {
		base := build(t, tab, c.spec)
		tr := NewTree(base)
		m, err := tr.Mutate(rand.New(rand.NewPCG(1, 2)), c.op, name)
		if err != nil {
			t.Fatal(err)
		}
		got := write(tab, Apply(m, base))
		if c.want == "" {
			// Count: one z more or fewer in one step.
			switch got {
			case "main(s(z) s(z z))", "main(s(z z) s(z))":
				if m.Want.Format(name) != "count changed z in 1/2 2/2 at main > s" && m.Want.Format(name) != "count changed z in 2/2 2/2 at main > s" {
					t.Errorf("%s: want %s", got, m.Want.Format(name))
				}
			case "main(s(z z z) s(z z))", "main(s(z z) s(z z z))":
				if !strings.HasSuffix(m.Want.Format(name), " 3/3 at main > s") {
					t.Errorf("%s: want %s", got, m.Want.Format(name))
				}
			default:
				if got != "main(s(z z) s(z z) s(z z))" && got != "main(s(z z))" { // the outer loop's count
					t.Errorf("count: %s", got)
				}
			}
			continue
		}
		if m.Want.Format(name) != c.want || got != c.then {
			t.Errorf("%s of %s: %s, want %s; got %s, want %s", c.op, c.spec, m.Want.Format(name), c.want, got, c.then)
		}
	}
}

// The adapter reads the explanation's fields, and takes a sentence that
// does not say them for Other.
func TestRead(t *testing.T) {
	tab := trace.NewTable()
	a, b := tab.Intern(trace.Name{Func: "a"}), tab.Intern(trace.Name{Func: "b"})
	m := tab.Intern(trace.Name{Func: "main"})
	loop := &diffnlr.LoopPlace{Body: a, Period: 1, Iteration: 4, Count: 4}
	for _, c := range []struct {
		x     diffnlr.Explanation
		want  Kind
		call  trace.Symbol
		loops []IterCount
	}{
		{diffnlr.Explanation{Kind: diffnlr.Missing, Normal: []trace.Symbol{a}}, Missing, a, nil},
		{diffnlr.Explanation{Kind: diffnlr.Added, Faulty: []trace.Symbol{b}}, Added, b, nil},
		{diffnlr.Explanation{Kind: diffnlr.Replaced, Normal: []trace.Symbol{a}, Faulty: []trace.Symbol{b}}, Replaced, a, nil},
		{diffnlr.Explanation{Kind: diffnlr.Reordered, Normal: []trace.Symbol{a, b}, Faulty: []trace.Symbol{b, a}}, Reordered, a, nil},
		{diffnlr.Explanation{Kind: diffnlr.EndsHere, Normal: []trace.Symbol{b}, Stack: []trace.Symbol{m}}, EndsHere, b, nil},
		{diffnlr.Explanation{Kind: diffnlr.NormalEnds, Faulty: []trace.Symbol{b}}, Other, b, nil},
		{diffnlr.Explanation{Kind: diffnlr.CountChanged, Normal: []trace.Symbol{a}, Loop: loop, Counts: [2]int{4, 3},
			Loops: []diffnlr.LoopPlace{{Body: b, Period: 2, Iteration: 2, Count: 5}}}, CountChanged, a, []IterCount{{2, 5}, {4, 4}}},
	} {
		c.x.Whole = true
		ex := Explanation{Parted: true, Ex: c.x, Stack: c.x.Stack, Text: c.x.Text(tab.Label)}
		got := Read(ex, tab.Label)
		if got.Kind != c.want || got.Call != c.call || !slices.Equal(got.Loops, c.loops) {
			t.Errorf("%q: read %v %v %v, want %v %v %v", ex.Text, got.Kind, got.Call, got.Loops, c.want, c.call, c.loops)
		}
		// A sentence that names another call is not this answer.
		ex.Text = strings.ReplaceAll(ex.Text, "a", "z")
		if got := Read(ex, tab.Label); got.Kind != Other && c.call == a {
			t.Errorf("%q read as %v", ex.Text, got.Kind)
		}
	}
	if got := Read(Explanation{}, tab.Label); got.Kind != None {
		t.Errorf("no difference: %v", got.Kind)
	}
}
