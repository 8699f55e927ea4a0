package fca

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

func TestParseMode(t *testing.T) {
	for _, m := range Modes() {
		got, err := ParseMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if len(Modes()) != 6 {
		t.Fatalf("%d modes, want 6", len(Modes()))
	}
	if m, err := ParseMode(" DOUB.Log10 "); err != nil || m != (Mode{Double: true, Freq: Log10}) {
		t.Errorf("ParseMode is not case- and space-tolerant: %v, %v", m, err)
	}
	_, err := ParseMode("single.freq")
	if err == nil {
		t.Fatal("ParseMode accepted single.freq")
	}
	for _, want := range []string{`"single.freq"`, "sing.noFreq", "sing.actual", "sing.log10", "doub.noFreq", "doub.actual", "doub.log10"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}

// TestTable34 checks the formal context of the odd/even example against
// seeds/002 Table 3.4.
func TestTable34(t *testing.T) {
	ids, seqs := oddEven()
	c, err := NewContext(Mode{}, ids, seqs, symName)
	if err != nil {
		t.Fatal(err)
	}
	table34 := map[string][]string{
		"0": {"MPI_Init", "MPI_Comm_size", "MPI_Comm_rank", "L0", "MPI_Finalize"},
		"1": {"MPI_Init", "MPI_Comm_size", "MPI_Comm_rank", "L1", "MPI_Finalize"},
		"2": {"MPI_Init", "MPI_Comm_size", "MPI_Comm_rank", "L0", "MPI_Finalize"},
		"3": {"MPI_Init", "MPI_Comm_size", "MPI_Comm_rank", "L1", "MPI_Finalize"},
	}
	if c.NumAttrs() != 6 {
		t.Errorf("%d attributes, want the 6 columns of Table 3.4", c.NumAttrs())
	}
	for o := range c.Len() {
		got := names(c.Attrs(o), c.AttrName)
		want := table34[c.ID(o).String()]
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("trace %v: attributes %v, want %v", c.ID(o), got, want)
		}
		for a := range c.NumAttrs() {
			if c.Has(o, a) != slices.Contains(want, c.AttrName(a)) {
				t.Errorf("trace %v: Has(%s) = %v", c.ID(o), c.AttrName(a), c.Has(o, a))
			}
		}
	}
	// Even and odd ranks are two equivalence classes.
	if c.NumClasses() != 2 || !slices.Equal(c.Members(c.Class(0)), []int{0, 2}) || !slices.Equal(c.Members(c.Class(1)), []int{1, 3}) {
		t.Errorf("classes: %d, %v, %v; want {0,2} and {1,3}", c.NumClasses(), c.Members(0), c.Members(1))
	}
	var b strings.Builder
	if err := c.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	want := `trace  MPI_Init  MPI_Comm_rank  MPI_Comm_size  L0  MPI_Finalize  L1
0         ×            ×              ×        ×        ×
1         ×            ×              ×                 ×        ×
2         ×            ×              ×        ×        ×
3         ×            ×              ×                 ×        ×
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestModes checks every attribute mode on a hand-worked sequence:
//
//	A, L0^3, B, A, L0^12, A, L1^2
//
// Single entries: A ×3, L0 3+12 = 15 iterations, B ×1, L1 2 iterations.
// Pairs: (A,L0) ×2, (L0,B), (B,A), (L0,A), (A,L1) ×1.
func TestModes(t *testing.T) {
	const a, b trace.Symbol = 1, 2
	n := map[trace.Symbol]string{a: "A", b: "B"}
	seq := nlr.Sequence{sym(a), loop(0, 3), sym(b), sym(a), loop(0, 12), sym(a), loop(1, 2)}
	want := map[string][]string{
		"sing.noFreq": {"A", "L0", "B", "L1"},
		"sing.actual": {"A:3", "L0:15", "B:1", "L1:2"},
		"sing.log10":  {"A:0", "L0:1", "B:0", "L1:0"},
		"doub.noFreq": {"(A, L0)", "(L0, B)", "(B, A)", "(L0, A)", "(A, L1)"},
		"doub.actual": {"(A, L0):2", "(L0, B):1", "(B, A):1", "(L0, A):1", "(A, L1):1"},
		"doub.log10":  {"(A, L0):0", "(L0, B):0", "(B, A):0", "(L0, A):0", "(A, L1):0"},
	}
	for _, m := range Modes() {
		c, err := NewContext(m, []trace.ID{{Proc: 0, Thread: 0}}, []nlr.Sequence{seq}, func(s trace.Symbol) string { return n[s] })
		if err != nil {
			t.Fatal(err)
		}
		got := names(c.Attrs(0), c.AttrName)
		if !slices.Equal(got, want[m.String()]) {
			t.Errorf("%v: %v, want %v", m, got, want[m.String()])
		}
	}
	// log10 buckets by decade, exactly at powers of ten.
	for f, want := range map[int64]int64{1: 0, 9: 0, 10: 1, 99: 1, 100: 2, 999: 2, 1000: 3, 1_000_000: 6} {
		if got := floorLog10(f); got != want {
			t.Errorf("floorLog10(%d) = %d, want %d", f, got, want)
		}
	}
	// Frequencies separate traces that noFreq merges.
	ids, seqs := oddEven()
	for m, classes := range map[string]int{"sing.noFreq": 2, "sing.actual": 4, "sing.log10": 2, "doub.noFreq": 2, "doub.actual": 2} {
		mode, _ := ParseMode(m)
		c, err := NewContext(mode, ids, seqs, symName)
		if err != nil {
			t.Fatal(err)
		}
		if c.NumClasses() != classes {
			t.Errorf("odd/even under %s: %d classes, want %d", m, c.NumClasses(), classes)
		}
	}
}

func TestContextErrors(t *testing.T) {
	id := func(p int) trace.ID { return trace.ID{Proc: p, Thread: 0} }
	for _, tc := range []struct {
		ids  []trace.ID
		seqs []nlr.Sequence
		want string
	}{
		{[]trace.ID{id(0)}, nil, "1 trace IDs but 0 NLR sequences"},
		{[]trace.ID{id(0), id(0)}, []nlr.Sequence{nil, nil}, "trace 0.0 appears twice"},
		{[]trace.ID{id(3)}, []nlr.Sequence{{sym(1), {Loop: -2}}}, "trace 3.0: NLR entry 1 has loop ID -2"},
		{[]trace.ID{id(4)}, []nlr.Sequence{{loop(2, 0)}}, "trace 4.0: NLR entry 0 is loop L2 with 0 iterations"},
	} {
		_, err := NewContext(Mode{}, tc.ids, tc.seqs, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want one containing %q", err, tc.want)
		}
	}
	// Empty sequences are fine: an object without attributes.
	c, err := NewContext(Mode{Double: true}, []trace.ID{id(0), id(1)}, []nlr.Sequence{{}, {sym(1)}}, nil)
	if err != nil || c.NumAttrs() != 0 || c.NumClasses() != 1 {
		t.Errorf("empty attribute sets: %v, %d attrs, %d classes", err, c.NumAttrs(), c.NumClasses())
	}
}

// A union context (threads merged into processes) keeps the mode and the
// attribute names it was built from, and has each group's union.
func TestUnion(t *testing.T) {
	const a, b, c trace.Symbol = 1, 2, 3
	n := map[trace.Symbol]string{a: "A", b: "B", c: "C"}
	threads := []trace.ID{{Proc: 0, Thread: 0}, {Proc: 0, Thread: 1}, {Proc: 1, Thread: 0}}
	seqs := []nlr.Sequence{{sym(a), sym(b)}, {sym(b), sym(c)}, {sym(a), sym(b), sym(c)}}
	mode, _ := ParseMode("doub.actual")
	tc, err := NewContext(mode, threads, seqs, func(s trace.Symbol) string { return n[s] })
	if err != nil {
		t.Fatal(err)
	}
	pc, err := tc.Union([]trace.ID{{Proc: 0, Thread: trace.AllThreads}, {Proc: 1, Thread: trace.AllThreads}}, []int{0, 0, 1})
	if err != nil {
		t.Fatal(err)
	}
	if pc.Mode() != mode {
		t.Errorf("union context has mode %v, want %v", pc.Mode(), mode)
	}
	for p, want := range [][]string{{"(A, B):1", "(B, C):1"}, {"(A, B):1", "(B, C):1"}} {
		if got := names(pc.Attrs(p), pc.AttrName); !slices.Equal(got, want) {
			t.Errorf("process %d: %v, want %v", p, got, want)
		}
	}
	if pc.NumClasses() != 1 {
		t.Errorf("%d classes, want 1 (both processes have the same set)", pc.NumClasses())
	}
	if _, err := tc.Union(nil, []int{0}); err == nil {
		t.Error("Union with a group per object missing: no error")
	}
}

// attributesByMap is attributes as first written, with Go maps: the
// reference for the hash table that replaced them.
func attributesByMap(m Mode, seq nlr.Sequence) []attrKey {
	var keys []attrKey
	var freq []int64
	index := map[attrKey]int{}
	add := func(k attrKey, n int64) {
		at, ok := index[k]
		if !ok {
			at = len(keys)
			index[k] = at
			keys = append(keys, k)
			freq = append(freq, 0)
		}
		freq[at] += n
	}
	if m.Double {
		for i := 0; i+1 < len(seq); i++ {
			add(attrKey{a: entryOf(seq[i]), b: entryOf(seq[i+1])}, 1)
		}
	} else {
		for _, e := range seq {
			n := int64(1)
			if e.IsLoop() {
				n = int64(e.Count)
			}
			add(attrKey{a: entryOf(e)}, n)
		}
	}
	for i := range keys {
		switch m.Freq {
		case Actual:
			keys[i].freq = freq[i]
		case Log10:
			keys[i].freq = floorLog10(freq[i])
		}
	}
	return keys
}

// On random sequences of symbols and loops (one table reused across them,
// as a context does), the attributes are those of the map-based reference,
// in the same order, under every mode.
func TestAttributesSameAsMaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 27))
	var table entryTable
	for trial := range 2000 {
		var seq nlr.Sequence
		alphabet := 1 + rng.IntN(200)
		for range rng.IntN(400) {
			if x := rng.IntN(alphabet); x%3 == 0 {
				seq = append(seq, nlr.Element{Loop: int32(x), Count: int32(1 + rng.IntN(9))})
			} else {
				seq = append(seq, nlr.Element{Loop: nlr.NoLoop, Sym: trace.Symbol(x)})
			}
		}
		for _, m := range []Mode{{}, {Freq: Actual}, {Freq: Log10}, {Double: true}, {Double: true, Freq: Actual}, {Double: true, Freq: Log10}} {
			got, want := table.attributes(m, seq), attributesByMap(m, seq)
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d, mode %v: attributes %v, want %v", trial, m, got, want)
			}
		}
	}
}

// Naming the sequences (same) gives the context asking every one gives,
// and asks for each named sequence once.
func TestContextOfNamedSequences(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for trial := range 50 {
		distinct := make([]nlr.Sequence, 1+rng.IntN(8))
		for x := range distinct {
			for range rng.IntN(30) {
				distinct[x] = append(distinct[x], nlr.Element{Loop: nlr.NoLoop, Sym: trace.Symbol(rng.IntN(12))})
			}
		}
		n := 1 + rng.IntN(100)
		ids := make([]trace.ID, n)
		name := make([]int, n)
		for o := range ids {
			ids[o] = trace.ID{Proc: o}
			name[o] = rng.IntN(len(distinct))
			if rng.IntN(10) == 0 {
				name[o] = -1 - name[o] // unnamed: asked for
			}
		}
		seqOf := func(o int) nlr.Sequence {
			if x := name[o]; x < 0 {
				return distinct[-1-x]
			}
			return distinct[name[o]]
		}
		for _, m := range Modes() {
			want, err := NewLooseContextFunc(m, ids, seqOf, nil, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			asked := map[int]int{}
			got, err := NewLooseContextFunc(m, ids, func(o int) nlr.Sequence {
				if name[o] >= 0 {
					asked[name[o]]++
				}
				return seqOf(o)
			}, func(o int) int { return name[o] }, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			var a, b strings.Builder
			want.WriteTable(&a)
			got.WriteTable(&b)
			if a.String() != b.String() || got.NumClasses() != want.NumClasses() {
				t.Fatalf("trial %d, mode %v: named\n%s\nasked\n%s", trial, m, b.String(), a.String())
			}
			for o := range n {
				if got.Class(o) != want.Class(o) || !slices.Equal(got.Attrs(o), want.Attrs(o)) {
					t.Fatalf("trial %d, mode %v: object %d in class %d with %v, want %d with %v", trial, m, o, got.Class(o), got.Attrs(o), want.Class(o), want.Attrs(o))
				}
			}
			for x, k := range asked {
				if k > 1 {
					t.Fatalf("trial %d: sequence %d asked for %d times", trial, x, k)
				}
			}
		}
	}
}
