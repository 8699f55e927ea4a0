package nlr

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

// program returns a random loop nest over symbols 1…alpha: a few items,
// each a symbol or (while depth lasts) a loop of a smaller program.
func program(rng *rand.Rand, alpha, depth int) []trace.Symbol {
	var out []trace.Symbol
	for range 1 + rng.IntN(4) {
		if depth > 0 && rng.IntN(2) == 0 {
			body := program(rng, alpha, depth-1)
			for range 1 + rng.IntN(7) {
				out = append(out, body...)
			}
			continue
		}
		out = append(out, trace.Symbol(1+rng.IntN(alpha)))
	}
	return out
}

// comparison returns the traces of a random comparison: two runs of a few
// traces, each running one of a few programs with its loop counts varied,
// some with noise, some with random symbols over a tiny alphabet.
func comparison(rng *rand.Rand) []Input {
	alpha := 2 + rng.IntN(6)
	progs := make([]func() []trace.Symbol, 1+rng.IntN(3))
	for p := range progs {
		seed := rng.Uint64()
		progs[p] = func() []trace.Symbol {
			// Same shape, counts drawn per trace.
			r := rand.New(rand.NewPCG(seed, rng.Uint64()%3))
			return program(r, alpha, 3)
		}
	}
	var in []Input
	for run := range 2 {
		for p := range 1 + rng.IntN(6) {
			var syms []trace.Symbol
			switch rng.IntN(4) {
			case 0:
				for range rng.IntN(300) {
					syms = append(syms, trace.Symbol(1+rng.IntN(2)))
				}
			default:
				for range 1 + rng.IntN(3) {
					syms = append(syms, progs[rng.IntN(len(progs))]()...)
					if rng.IntN(3) == 0 {
						syms = append(syms, trace.Symbol(1+rng.IntN(alpha)))
					}
				}
			}
			if len(syms) > 20000 {
				syms = syms[:20000]
			}
			in = append(in, Input{Run: run, ID: trace.ID{Proc: p, Thread: rng.IntN(2)}, Symbols: syms})
		}
	}
	// Drop duplicate IDs.
	seen := map[[3]int]bool{}
	out := in[:0]
	for _, x := range in {
		key := [3]int{x.Run, x.ID.Proc, x.ID.Thread}
		if !seen[key] {
			seen[key] = true
			out = append(out, x)
		}
	}
	return out
}

// render is a comparison's result as text keyed by run and trace, for
// comparing results across input orders and worker counts.
func render(in []Input, seqs []Sequence, tab *Table) string {
	name := func(s trace.Symbol) string { return fmt.Sprint(s) }
	lines := make([]string, len(in))
	for i := range in {
		lines[i] = fmt.Sprintf("%d %s: %s", in[i].Run, in[i].ID, seqs[i].Format(name))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n" + strings.Join(tab.Legend(name), "\n")
}

// bothWays runs a test with the stack scanned and with it indexed.
func bothWays(t *testing.T, test func(t *testing.T)) {
	defer func(old int) { indexFrom = old }(indexFrom)
	for _, way := range []struct {
		name string
		from int
	}{{"scan", MaxK + 1}, {"indexed", 1}} {
		indexFrom = way.from
		t.Run(way.name, test)
	}
}

func TestProperties(t *testing.T) { bothWays(t, testProperties) }

func testProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(2024, 4))
	for iter := range 300 {
		in := comparison(rng)
		k := []int{1, 2, 3, 5, 10, 50}[rng.IntN(6)]
		seqs, tab, err := Recognize(in, k, 0)
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, fmt.Sprintf("case %d (K=%d)", iter, k), in, seqs, tab, k)

		// Any order of the inputs and any number of workers: same result.
		want := render(in, seqs, tab)
		perm := slices.Clone(in)
		rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		for _, w := range []int{1, 2, 7} {
			s2, t2, err := Recognize(perm, k, w)
			if err != nil {
				t.Fatal(err)
			}
			if got := render(perm, s2, t2); got != want {
				t.Fatalf("case %d (K=%d): shuffled inputs on %d workers give\n%s\nwant\n%s", iter, k, w, got, want)
			}
		}
	}
}

// checkInvariants checks what every NLR result must satisfy.
func checkInvariants(t *testing.T, what string, in []Input, seqs []Sequence, tab *Table, k int) {
	t.Helper()
	// Expanding gives back every trace exactly.
	for i, s := range seqs {
		back, err := tab.Expand(nil, s)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !slices.Equal(back, in[i].Symbols) {
			t.Fatalf("%s: trace %s does not expand back to itself", what, in[i].ID)
		}
	}
	// Bodies: 1…K long, only smaller IDs inside, distinct, found by Lookup,
	// each used by some trace.
	for id := range int32(tab.Len()) {
		b := tab.Body(id)
		if len(b) < 1 || len(b) > k {
			t.Fatalf("%s: L%d has a body of %d elements", what, id, len(b))
		}
		for _, e := range b {
			if e.IsLoop() && (e.Loop >= id || e.Count < 2) {
				t.Fatalf("%s: L%d holds L%d^%d", what, id, e.Loop, e.Count)
			}
		}
		if got, ok := tab.Lookup(b); !ok || got != id {
			t.Fatalf("%s: Lookup(Body(L%d)) = %d, %v", what, id, got, ok)
		}
	}
	if n := len(tab.Legend(func(trace.Symbol) string { return "" }, seqs...)); n != tab.Len() {
		t.Fatalf("%s: the traces mention %d of %d loops", what, n, tab.Len())
	}
	// Reduced: nowhere three equal adjacent blocks of at most K elements,
	// nor a loop followed by a copy of its body, nor a count below 2.
	check := func(where string, s Sequence) {
		for end := 1; end <= len(s); end++ {
			for b := 1; b <= k && 3*b <= end; b++ {
				x, y, z := s[end-3*b:end-2*b], s[end-2*b:end-b], s[end-b:end]
				if x.Equal(y) && y.Equal(z) {
					t.Fatalf("%s: %s keeps three copies of a %d-block ending at %d", what, where, b, end)
				}
			}
			for b := 1; b <= k && b+1 <= end; b++ {
				if e := s[end-1-b]; e.IsLoop() && tab.Body(e.Loop).Equal(s[end-b:end]) {
					t.Fatalf("%s: %s has L%d followed by its body at %d", what, where, e.Loop, end)
				}
			}
		}
		for _, e := range s {
			if e.IsLoop() && e.Count < 2 {
				t.Fatalf("%s: %s has L%d^%d", what, where, e.Loop, e.Count)
			}
		}
	}
	for i, s := range seqs {
		check("trace "+in[i].ID.String(), s)
	}
	for id := range int32(tab.Len()) {
		check(LoopName(id), tab.Body(id))
	}
	// Progress is consistent: total iterations are the per-loop sum.
	for _, s := range seqs {
		var sum uint64
		for _, n := range tab.LoopIterations(s) {
			sum += n
		}
		if sum != tab.Iterations(s) {
			t.Fatalf("%s: per-loop iterations sum to %d, Iterations says %d", what, sum, tab.Iterations(s))
		}
	}
}

// TestKBound checks that K really bounds the bodies found: a loop of a
// (K+1)-long body with no inner repetition stays unfolded.
func TestKBound(t *testing.T) {
	for k := 1; k <= 12; k++ {
		var body []trace.Symbol
		for i := range k + 1 {
			body = append(body, trace.Symbol(1+i))
		}
		var s []trace.Symbol
		for range 5 {
			s = append(s, body...)
		}
		seqs, tab, err := Recognize([]Input{{Symbols: s}}, k, 0)
		if err != nil {
			t.Fatal(err)
		}
		if tab.Len() != 0 || len(seqs[0]) != len(s) {
			t.Errorf("K=%d: a %d-long body became a loop: %d loops", k, k+1, tab.Len())
		}
		seqs, tab, _ = Recognize([]Input{{Symbols: s}}, k+1, 0)
		if tab.Len() != 1 || len(seqs[0]) != 1 || seqs[0][0].Count != 5 {
			t.Errorf("K=%d: a %d-long body repeated 5 times is %v", k+1, k+1, seqs[0])
		}
	}
}

// FuzzNLR checks the invariants on arbitrary small comparisons: each byte
// is a symbol over a tiny alphabet, 0xff separates traces.
func FuzzNLR(f *testing.F) {
	f.Add([]byte{1, 2, 1, 2, 1, 2, 0xff, 2, 1, 2, 1}, uint8(3))
	f.Add([]byte{1, 1, 1, 2, 1, 1, 1, 2, 1, 1, 1, 2}, uint8(10))
	f.Fuzz(func(t *testing.T, data []byte, kb uint8) {
		k := 1 + int(kb)%12
		var in []Input
		cur := Input{}
		for _, c := range data {
			if c == 0xff {
				in = append(in, cur)
				cur = Input{ID: trace.ID{Proc: len(in)}}
				continue
			}
			cur.Symbols = append(cur.Symbols, trace.Symbol(c%4))
		}
		in = append(in, cur)
		for i := range in {
			in[i].ID = trace.ID{Proc: i / 2}
			in[i].Run = i % 2
		}
		seqs, tab, err := Recognize(in, k, 2)
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, "fuzz", in, seqs, tab, k)
		// The indexed stack gives the same result as the scanned one.
		defer func(old int) { indexFrom = old }(indexFrom)
		indexFrom = 1
		seqs2, tab2, err := Recognize(in, k, 2)
		if err != nil {
			t.Fatal(err)
		}
		if render(in, seqs2, tab2) != render(in, seqs, tab) {
			t.Fatalf("K=%d: indexed and scanned stacks differ", k)
		}
	})
}

// refElem is an element of the reference NLR below: a symbol, or a loop
// written out as its body's text and a count, so that equal text is equal
// body and no loop table is involved.
type refElem struct {
	sym   trace.Symbol
	body  string // "" for a symbol
	size  int    // elements in the body
	count int
}

func (e refElem) String() string {
	if e.body == "" {
		return fmt.Sprint(e.sym)
	}
	return fmt.Sprintf("(%s)^%d", e.body, e.count)
}

func refText(s []refElem) string {
	parts := make([]string, len(s))
	for i, e := range s {
		parts[i] = e.String()
	}
	return strings.Join(parts, " ")
}

// refReduce is Procedure 1 written as plainly as possible: push each
// element, then for b = 1 … K try (a) extend, (b) three copies, (c) two
// copies of a known body (when known is not nil), restarting after every
// change. found collects the bodies that formed loops.
func refReduce(in []refElem, k int, known, found map[string]bool) []refElem {
	var st []refElem
	for _, x := range in {
		st = append(st, x)
	again:
		n := len(st)
		for b := 1; b <= k; b++ {
			if b+1 <= n {
				if e := st[n-1-b]; e.size == b && e.body == refText(st[n-b:]) {
					st[n-1-b].count++
					st = st[:n-b]
					goto again
				}
			}
			if 3*b <= n && slices.Equal(st[n-3*b:n-2*b], st[n-b:]) && slices.Equal(st[n-2*b:n-b], st[n-b:]) {
				z := refText(st[n-b:])
				found[z] = true
				st = append(st[:n-3*b], refElem{body: z, size: b, count: 3})
				goto again
			}
			if known != nil && 2*b <= n && slices.Equal(st[n-2*b:n-b], st[n-b:]) {
				if z := refText(st[n-b:]); known[z] || found[z] {
					st = append(st[:n-2*b], refElem{body: z, size: b, count: 2})
					goto again
				}
			}
		}
	}
	return st
}

// structText writes a result with every loop replaced by its body's text,
// comparable with refText.
func structText(s Sequence, tab *Table) string {
	parts := make([]string, len(s))
	for i, e := range s {
		if e.IsLoop() {
			parts[i] = fmt.Sprintf("(%s)^%d", structText(tab.Body(e.Loop), tab), e.Count)
		} else {
			parts[i] = fmt.Sprint(e.Sym)
		}
	}
	return strings.Join(parts, " ")
}

// TestAgainstReference compares Recognize with the plain reference on
// random comparisons: same loops, same nesting, same counts.
func TestAgainstReference(t *testing.T) { bothWays(t, testAgainstReference) }

func testAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(99, 1))
	for iter := range 60 {
		in := comparison(rng)
		k := []int{1, 2, 3, 4, 6, 10, 30}[rng.IntN(7)]
		seqs, tab, err := Recognize(in, k, 0)
		if err != nil {
			t.Fatal(err)
		}
		// Pass 1 per trace, bodies pooled, pass 2 per trace.
		pass1 := make([][]refElem, len(in))
		pooled := map[string]bool{}
		for i, x := range in {
			syms := make([]refElem, len(x.Symbols))
			for j, s := range x.Symbols {
				syms[j] = refElem{sym: s}
			}
			pass1[i] = refReduce(syms, k, nil, pooled)
		}
		for i := range in {
			want := refText(refReduce(pass1[i], k, pooled, map[string]bool{}))
			if got := structText(seqs[i], tab); got != want {
				t.Fatalf("case %d (K=%d) trace %s:\n got %s\nwant %s", iter, k, in[i].ID, got, want)
			}
		}
	}
}
