package filters

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

// nested is what Nests keeps for one mask, written plainly: the reference
// the tests hold Nests to.
func nested(m *Mask, events []trace.Symbol) (out []trace.Symbol, kept int) {
	var open []trace.Symbol
	emitted := 0
	for _, s := range events {
		if s == trace.Return {
			if len(open) == 0 {
				continue
			}
			open = open[:len(open)-1]
			if len(open) < emitted {
				emitted = len(open)
				out = append(out, trace.Return)
			}
			continue
		}
		open = append(open, s)
		if m.Keep(s) {
			out = append(out, open[emitted:]...)
			emitted = len(open)
			kept++
		}
	}
	return out, kept
}

// BenchmarkNest streams 10 million raw events (calls nested a few deep,
// one call in 50 kept) through Nests with one mask, and through Stream,
// the flat filter.
func BenchmarkNest(b *testing.B) {
	const n = 10_000_000
	rng := rand.New(rand.NewPCG(1, 2))
	tab := trace.NewTable()
	var syms []trace.Symbol
	for i := range 100 {
		name := "f" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		if i%50 == 0 {
			name = "MPI_X" + name
		}
		syms = append(syms, tab.Intern(trace.Name{Func: name}))
	}
	events := make([]trace.Symbol, 0, n)
	depth := 0
	for len(events) < n {
		if depth > 0 && (depth > 6 || rng.IntN(2) == 0) {
			events = append(events, trace.Return)
			depth--
			continue
		}
		events = append(events, syms[rng.IntN(len(syms))])
		depth++
	}
	m := MustParse("mpi").Compile(tab)
	b.Run("nest", func(b *testing.B) {
		for b.Loop() {
			st, _ := NewNests([]*Mask{m})
			for c := 0; c < n; c += 1 << 16 {
				st.Append(events[c:min(c+1<<16, n)])
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("flat", func(b *testing.B) {
		var buf []trace.Symbol
		for b.Loop() {
			st := m.Stream()
			for c := 0; c < n; c += 1 << 16 {
				buf = st.Append(buf[:0], events[c:min(c+1<<16, n)])
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
}

// Nests gives every mask what the plain reference gives it, whatever the
// chunking.
func TestNestsMatchNest(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		tab := trace.NewTable()
		var syms []trace.Symbol
		for i := range 12 {
			syms = append(syms, tab.Intern(trace.Name{Func: []string{"MPI_Send", "MPI_Recv", "memcpy", "work", "GOMP_critical_start", "strcmp"}[i%6] + string(rune('a'+i))}))
		}
		var events []trace.Symbol
		depth := 0
		for range rng.IntN(400) {
			if rng.IntN(3) == 0 || depth > 8 {
				events = append(events, trace.Return) // some close nothing
				depth = max(depth-1, 0)
				continue
			}
			events = append(events, syms[rng.IntN(len(syms))])
			depth++
		}
		var masks []*Mask
		for _, spec := range []string{"mpi", "mem", "all", "omp.crit+str", "net", "mpi+ret"} {
			masks = append(masks, MustParse(spec).Compile(tab))
		}
		nests, err := NewNests(masks)
		if err != nil {
			t.Fatal(err)
		}
		got := make([][]trace.Symbol, len(masks))
		gotKept := make([]int, len(masks))
		for c := 0; c < len(events); {
			n := min(len(events)-c, 1+rng.IntN(50))
			nests.Append(events[c : c+n])
			for f := range masks {
				got[f] = append(got[f], nests.Out[f]...)
				gotKept[f] += nests.Kept[f]
			}
			c += n
		}
		for f, m := range masks {
			want, kept := nested(m, events)
			if !slices.Equal(got[f], want) || gotKept[f] != kept {
				t.Fatalf("trial %d, mask %s: Nests gave %v (%d kept), want %v (%d kept)", trial, m.Name(), got[f], gotKept[f], want, kept)
			}
		}
	}
}
