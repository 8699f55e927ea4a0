package filters

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

// oddEvenTable interns the functions of the odd/even example.
func oddEvenTable() (*trace.Table, map[string]trace.Symbol) {
	t := trace.NewTable()
	syms := map[string]trace.Symbol{}
	for _, n := range []trace.Name{
		{Image: "/home/user/oddeven/oddeven", Func: "main"},
		{Image: "/home/user/oddeven/oddeven", Func: "oddEvenSort"},
		{Image: "/home/user/oddeven/oddeven", Func: "findPtr"},
		{Image: "/home/user/oddeven/oddeven", Func: "MPI_Send@plt"},
		{Image: "/usr/lib/x86_64-linux-gnu/libmpi.so.40", Func: "MPI_Init"},
		{Image: "/usr/lib/x86_64-linux-gnu/libmpi.so.40", Func: "MPI_Send"},
		{Image: "/usr/lib/x86_64-linux-gnu/libmpi.so.40", Func: "MPI_Recv"},
		{Image: "/usr/lib/x86_64-linux-gnu/libmpi.so.40", Func: "MPI_Finalize"},
	} {
		syms[n.Func] = t.Intern(n)
	}
	return t, syms
}

func TestMaskApply(t *testing.T) {
	tab, s := oddEvenTable()
	// main { MPI_Init; oddEvenSort { findPtr; MPI_Send@plt { MPI_Send } MPI_Recv } MPI_Finalize }
	events := []trace.Symbol{
		s["main"], s["MPI_Init"], 0, s["oddEvenSort"], s["findPtr"], 0,
		s["MPI_Send@plt"], s["MPI_Send"], 0, 0, s["MPI_Recv"], 0, 0, s["MPI_Finalize"], 0, 0,
	}
	for _, tc := range []struct {
		spec string
		want []trace.Symbol
	}{
		{"mpi", []trace.Symbol{s["MPI_Init"], s["MPI_Send@plt"], s["MPI_Send"], s["MPI_Recv"], s["MPI_Finalize"]}},
		{"mpi+plt", []trace.Symbol{s["MPI_Init"], s["MPI_Send"], s["MPI_Recv"], s["MPI_Finalize"]}},
		{"mpi.sr+plt", []trace.Symbol{s["MPI_Send"], s["MPI_Recv"]}},
		{"all", []trace.Symbol{s["main"], s["MPI_Init"], s["oddEvenSort"], s["findPtr"], s["MPI_Send@plt"],
			s["MPI_Send"], s["MPI_Recv"], s["MPI_Finalize"]}},
		{"cust=^f", []trace.Symbol{s["findPtr"]}},
		{"mpi+plt+ret", []trace.Symbol{s["MPI_Init"], 0, s["MPI_Send"], 0, s["MPI_Recv"], 0, s["MPI_Finalize"], 0}},
		{"ret", events},
		{"omp", nil},
	} {
		m := MustParse(tc.spec).Compile(tab)
		if m.Name() != tc.spec || m.Len() != tab.Len() {
			t.Errorf("%s: mask name %q, len %d", tc.spec, m.Name(), m.Len())
		}
		got := m.Apply(events)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: Apply = %v, want %v", tc.spec, got, tc.want)
		}
		if m.Keep(trace.Return) {
			t.Errorf("%s: Keep(Return) is true", tc.spec)
		}
	}
	if k := MustParse("mpi").Compile(tab).Kept(); k != 5 {
		t.Errorf("mpi keeps %d functions of the table, want 5", k)
	}
}

// Filtering in chunks of any size gives the same result as filtering the
// whole trace, with and without returns, and appends after what dst holds.
func TestStreamChunks(t *testing.T) {
	tab, _ := oddEvenTable()
	rng := rand.New(rand.NewPCG(1, 2))
	events := make([]trace.Symbol, 0, 5000)
	depth := 0
	for len(events) < cap(events) {
		if depth > 0 && rng.IntN(2) == 0 {
			events = append(events, trace.Return)
			depth--
			continue
		}
		events = append(events, trace.Symbol(1+rng.IntN(tab.Len()-1)))
		depth++
	}
	events = append(events, trace.Return, trace.Return) // may close nothing
	for _, spec := range []string{"mpi", "mpi+ret", "all+plt+ret", "cust=Recv|main"} {
		m := MustParse(spec).Compile(tab)
		whole := m.Apply(events)
		for _, size := range []int{1, 2, 3, 7, 64, 4999} {
			st := m.Stream()
			dst := []trace.Symbol{42}
			for i := 0; i < len(events); i += size {
				dst = st.Append(dst, events[i:min(i+size, len(events))])
			}
			if dst[0] != 42 || !slices.Equal(dst[1:], whole) {
				t.Errorf("%s in chunks of %d differs from the whole trace", spec, size)
			}
		}
		if m.Keep(trace.Return) {
			t.Errorf("%s keeps Return as a symbol", spec)
		}
	}
	// With returns kept, the output is well nested: every return closes a
	// kept call.
	out := MustParse("mpi+ret").Compile(tab).Apply(events)
	d := 0
	for _, s := range out {
		if s == trace.Return {
			d--
		} else {
			d++
		}
		if d < 0 {
			t.Fatal("mpi+ret: a return closes no kept call")
		}
	}
}
