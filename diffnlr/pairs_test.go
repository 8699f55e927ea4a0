package diffnlr

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// loopy returns a random trace of n calls over a few symbols, made of
// repeated blocks (nested ones too), so that NLR folds it deeply.
func loopy(rng *rand.Rand, n int) []trace.Symbol {
	var out []trace.Symbol
	for len(out) < n {
		body := make([]trace.Symbol, 1+rng.IntN(4))
		for i := range body {
			body[i] = trace.Symbol(rng.IntN(6))
		}
		if rng.IntN(2) == 0 { // nest: the body repeated inside another
			inner := slices.Clone(body)
			body = append([]trace.Symbol{trace.Symbol(6 + rng.IntN(2))}, rep(inner, 1+rng.IntN(4))...)
		}
		out = append(out, rep(body, 1+rng.IntN(6))...)
	}
	return out[:n]
}

// TestPairsAgainstCalls checks Pairs, FirstNewPair and Find against the
// calls the NLRs stand for, on random loop-shaped traces: the pairs of
// consecutive calls of the normal traces, and the first consecutive calls
// of the faulty trace that none of them makes.
func TestPairsAgainstCalls(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 300 {
		var in []nlr.Input
		var calls [][]trace.Symbol
		for r := range 3 {
			c := loopy(rng, 20+rng.IntN(200))
			if r == 2 && rng.IntN(2) == 0 { // a new symbol somewhere
				c[rng.IntN(len(c))] = 9
			}
			calls = append(calls, c)
			in = append(in, nlr.Input{Run: r, Symbols: c})
		}
		seqs, table, err := nlr.Recognize(in, 10, 1)
		if err != nil {
			t.Fatal(err)
		}
		known := map[[2]trace.Symbol]bool{}
		p := NewPairs(table)
		for r := range 2 {
			p.Add(seqs[r])
			for i := 1; i < len(calls[r]); i++ {
				known[[2]trace.Symbol{calls[r][i-1], calls[r][i]}] = true
			}
		}
		for a := range trace.Symbol(10) {
			for b := range trace.Symbol(10) {
				if p.Has(a, b) != known[[2]trace.Symbol{a, b}] {
					t.Fatalf("trial %d: Has(%d, %d) = %v, want %v", trial, a, b, p.Has(a, b), !p.Has(a, b))
				}
			}
		}
		want, wantOK := -1, false
		f := calls[2]
		for i := 1; i < len(f); i++ {
			if !known[[2]trace.Symbol{f[i-1], f[i]}] {
				want, wantOK = i, true
				break
			}
		}
		np, ok := FirstNewPair(p, seqs[2])
		if ok != wantOK || ok && (np.Call != uint64(want) || np.Prev != f[want-1] || np.Next != f[want]) {
			t.Fatalf("trial %d: FirstNewPair = %+v, %v; want call %d (ok %v)\ncalls %v\nNLR %v", trial, np, ok, want, wantOK, f, seqs[2])
		}
		if !ok {
			continue
		}
		for _, u := range np.Usual {
			if !known[[2]trace.Symbol{np.Prev, u}] {
				t.Fatalf("trial %d: %d is not made after %d", trial, u, np.Prev)
			}
		}
		// Find: every new pair, where it first occurs.
		firstAt := map[[2]trace.Symbol]int{}
		for i := 1; i < len(f); i++ {
			pair := [2]trace.Symbol{f[i-1], f[i]}
			if _, seen := firstAt[pair]; !seen && !known[pair] {
				firstAt[pair] = i
			}
		}
		for pair, i := range firstAt {
			if at, ok := p.Find(seqs[2], pair[0], pair[1]); !ok || at != uint64(i) {
				t.Fatalf("trial %d: Find(%v) = %d, %v; want %d", trial, pair, at, ok, i)
			}
		}
	}
}

// TestNewPairText: the line names both calls, where each was called, and
// what the normal runs call instead.
func TestNewPairText(t *testing.T) {
	tab := trace.NewTable()
	s := syms(tab, "omp_get_thread_num", "verify", "GOMP_critical_start")
	name := func(x trace.Symbol) string { return tab.Name(x).Func }
	np := NewPair{Call: 8444, Prev: s[0], Next: s[1], Usual: s[2:]}
	got := np.Text(name, []string{"main", "compute._omp_fn.0"}, []string{"main", "worker"})
	want := "first difference: at call 8,445: omp_get_thread_num (in main > compute._omp_fn.0) then verify (in main > worker), which no normal run does (after omp_get_thread_num they call GOMP_critical_start)"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	got = np.Text(name, []string{"main", "worker"}, []string{"main", "worker"})
	want = "first difference: at call 8,445, in main > worker: omp_get_thread_num then verify, which no normal run does (after omp_get_thread_num they call GOMP_critical_start)"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
