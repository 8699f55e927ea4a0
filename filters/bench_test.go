package filters

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

// benchTrace builds a 10-million-event trace over a table of 400 functions
// (application, MPI, OpenMP, libc), well nested, half entries, half returns.
func benchTrace() (*trace.Table, []trace.Symbol) {
	tab := trace.NewTable()
	for i := range 400 {
		var fn string
		switch i % 4 {
		case 0:
			fn = fmt.Sprintf("app_func_%d", i)
		case 1:
			fn = []string{"MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Wait", "MPI_Allreduce", "MPI_Barrier"}[i%6] + fmt.Sprint(i)
		case 2:
			fn = fmt.Sprintf("GOMP_func_%d", i)
		default:
			fn = []string{"memcpy", "strlen", "malloc", "poll"}[i%4] + fmt.Sprint(i)
		}
		tab.Intern(trace.Name{Image: "bench", Func: fn})
	}
	rng := rand.New(rand.NewPCG(7, 7))
	const n = 10_000_000
	events := make([]trace.Symbol, 0, n)
	depth := 0
	for len(events) < n {
		if depth > 0 && (depth > 20 || rng.IntN(2) == 0) {
			events = append(events, trace.Return)
			depth--
			continue
		}
		events = append(events, trace.Symbol(1+rng.IntN(tab.Len()-1)))
		depth++
	}
	return tab, events
}

// BenchmarkFilter measures filtering throughput in events/s, streaming the
// trace in 64 Ki-event chunks as a decoder delivers it.
func BenchmarkFilter(b *testing.B) {
	tab, events := benchTrace()
	for _, spec := range []string{"mpi", "all", "mpi+ret", "mpi+omp.crit+cust=app_func_1"} {
		b.Run(spec, func(b *testing.B) {
			m := MustParse(spec).Compile(tab)
			dst := make([]trace.Symbol, 0, len(events))
			const chunk = 64 << 10
			for b.Loop() {
				st := m.Stream()
				dst = dst[:0]
				for i := 0; i < len(events); i += chunk {
					dst = st.Append(dst, events[i:min(i+chunk, len(events))])
				}
			}
			b.ReportMetric(float64(len(events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkCompile measures compiling a filter against a 400-name table.
func BenchmarkCompile(b *testing.B) {
	tab, _ := benchTrace()
	f := MustParse("mpi+omp.crit+mem+str+cust=app_func_1")
	for b.Loop() {
		f.Compile(tab)
	}
}
