package pprof_test

import (
	"io"
	"testing"

	"github.com/difftrace/difftrace/export/pprof"
	"github.com/difftrace/difftrace/trace"
)

// solverEvents is a time-stepping trace of about n events: main, then steps
// of 16 kernel calls (two fluxes and an update each) and a halo exchange.
func solverEvents(n int) []trace.Symbol {
	const main, step, kernel, flux, update, irecv, isend, waitall = 1, 2, 3, 4, 5, 6, 7, 8
	ev := []trace.Symbol{main}
	for len(ev) < n {
		ev = append(ev, step)
		for range 16 {
			ev = append(ev, kernel, flux, trace.Return, flux, trace.Return, update, trace.Return, trace.Return)
		}
		ev = append(ev, irecv, trace.Return, isend, trace.Return, waitall, trace.Return, trace.Return)
	}
	return append(ev, trace.Return)
}

// Counting a trace's call paths, then writing the profile.
func BenchmarkTrace(b *testing.B) {
	tab := trace.NewTable()
	for _, n := range []string{"main", "step", "kernel", "flux", "update", "MPI_Irecv", "MPI_Isend", "MPI_Waitall"} {
		tab.Intern(trace.Name{Image: "app", Func: n})
	}
	ev := solverEvents(1 << 20)
	b.SetBytes(int64(len(ev)) * 4)
	for b.Loop() {
		w := pprof.NewWriter(io.Discard, pprof.Options{Names: tab})
		tr := w.Trace(trace.ID{})
		for c := ev; len(c) > 0; c = c[min(len(c), 64<<10):] {
			if err := tr.Write(c[:min(len(c), 64<<10)]); err != nil {
				b.Fatal(err)
			}
		}
		tr.Close()
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(ev))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
}
