package nlr

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/difftrace/difftrace/trace"
)

const benchSymbols = 10_000_000

// solverTrace is a 10-million-symbol filtered trace shaped like an MPI
// stencil solver: time steps of a halo exchange (Irecv×4, Isend×4,
// Waitall), a variable number of inner sweeps each calling a kernel and
// an Allreduce, and now and then an irregular call (I/O, a checkpoint),
// over a table of 60 functions.
func solverTrace(seed uint64) []trace.Symbol {
	rng := rand.New(rand.NewPCG(seed, 1))
	const (
		irecv, isend, waitall, kernel, allreduce, barrier = 1, 2, 3, 4, 5, 6
	)
	out := make([]trace.Symbol, 0, benchSymbols+100)
	for len(out) < benchSymbols {
		for range 4 {
			out = append(out, irecv)
		}
		for range 4 {
			out = append(out, isend)
		}
		out = append(out, waitall)
		for range 2 + rng.IntN(6) {
			out = append(out, kernel, allreduce)
		}
		if rng.IntN(50) == 0 {
			out = append(out, trace.Symbol(7+rng.IntN(54)), barrier)
		}
	}
	return out[:benchSymbols]
}

// randomTrace is 10 million uniformly random symbols over 64 functions:
// almost no loops, so every push scans the whole window — the slow case.
func randomTrace(seed uint64) []trace.Symbol {
	rng := rand.New(rand.NewPCG(seed, 2))
	out := make([]trace.Symbol, benchSymbols)
	for i := range out {
		out[i] = trace.Symbol(1 + rng.IntN(64))
	}
	return out
}

// BenchmarkNLR measures both passes of NLR on one 10-million-symbol trace
// (one core), in symbols/s.
func BenchmarkNLR(b *testing.B) {
	traces := map[string][]trace.Symbol{"solver": solverTrace(1), "random": randomTrace(1)}
	for _, shape := range []string{"solver", "random"} {
		syms := traces[shape]
		for _, k := range []int{10, 50} {
			b.Run(fmt.Sprintf("%s/K=%d", shape, k), func(b *testing.B) {
				var out int
				cpu0 := cpuTime()
				for b.Loop() {
					seqs, _, err := Recognize([]Input{{Symbols: syms}}, k, 1)
					if err != nil {
						b.Fatal(err)
					}
					out = len(seqs[0])
				}
				b.ReportMetric(float64(len(syms))*float64(b.N)/b.Elapsed().Seconds(), "symbols/s")
				b.ReportMetric(float64(len(syms))*float64(b.N)/(cpuTime()-cpu0).Seconds(), "symbols/cpu-s")
				b.ReportMetric(float64(out), "nlr-len")
			})
		}
	}
}

// BenchmarkNLRParallel measures a comparison of two 10-million-symbol
// traces on every core, in symbols/s over both.
func BenchmarkNLRParallel(b *testing.B) {
	in := []Input{{ID: trace.ID{Proc: 0}, Symbols: solverTrace(1)}, {ID: trace.ID{Proc: 1}, Symbols: solverTrace(2)}}
	for _, k := range []int{10, 50} {
		b.Run(fmt.Sprintf("solver/K=%d", k), func(b *testing.B) {
			cpu0 := cpuTime()
			for b.Loop() {
				if _, _, err := Recognize(in, k, 0); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(2*benchSymbols)*float64(b.N)/b.Elapsed().Seconds(), "symbols/s")
			b.ReportMetric(float64(2*benchSymbols)*float64(b.N)/(cpuTime()-cpu0).Seconds(), "symbols/cpu-s")
		})
	}
}

// cpuTime returns the CPU time (user + system) the process has used: on a
// shared machine, symbols per CPU-second is the figure that other load
// does not distort.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// nestedSolver is solverTrace as a program makes it: raw events, calls and
// returns, with every time step a call of step, the halo exchange a call
// of exchange, and each sweep a call of sweep holding the kernel and the
// Allreduce; benchSymbols calls in all.
func nestedSolver(seed uint64) []trace.Symbol {
	rng := rand.New(rand.NewPCG(seed, 1))
	const (
		irecv, isend, waitall, kernel, allreduce, barrier = 1, 2, 3, 4, 5, 6
		step, exchange, sweep, main                       = 61, 62, 63, 64
	)
	ret := trace.Return
	out := make([]trace.Symbol, 0, 2*benchSymbols+200)
	out = append(out, main)
	calls := 1
	for calls < benchSymbols {
		out = append(out, step, exchange)
		for range 4 {
			out = append(out, irecv, ret)
		}
		for range 4 {
			out = append(out, isend, ret)
		}
		out = append(out, waitall, ret, ret)
		calls += 11
		for range 2 + rng.IntN(6) {
			out = append(out, sweep, kernel, ret, allreduce, ret, ret)
			calls += 3
		}
		if rng.IntN(50) == 0 {
			out = append(out, trace.Symbol(7+rng.IntN(54)), ret, barrier, ret)
			calls += 2
		}
		out = append(out, ret)
	}
	return append(out, ret)
}

// BenchmarkNLRStructural measures both passes of NLR folding by call
// structure on the nested solver (about 10 million calls, 20 million
// events), one core: under a filter that keeps every call, and one that
// keeps the MPI calls only (symbols 1–6), against flat NLR of the same
// calls (the events filtered first, as a flat comparison is fed).
// symbols/s counts the calls kept.
func BenchmarkNLRStructural(b *testing.B) {
	ev := nestedSolver(1)
	all := func(trace.Symbol) bool { return true }
	mpi := func(s trace.Symbol) bool { return s <= 6 }
	for _, c := range []struct {
		name string
		keep func(trace.Symbol) bool
	}{{"all", all}, {"mpi", mpi}} {
		var calls []trace.Symbol
		for _, s := range ev {
			if s != trace.Return && c.keep(s) {
				calls = append(calls, s)
			}
		}
		// flat: NLR of the kept calls alone; filter+flat: what a flat
		// pipeline pays, filtering the events into calls first.
		for _, mode := range []string{"structural", "flat", "filter+flat"} {
			b.Run(fmt.Sprintf("%s/%s/K=10", c.name, mode), func(b *testing.B) {
				in := Input{Symbols: calls}
				if mode == "structural" {
					in = Input{Symbols: ev, Keep: c.keep}
				}
				var out int
				buf := make([]trace.Symbol, 0, len(calls))
				cpu0 := cpuTime()
				for b.Loop() {
					if mode == "filter+flat" {
						buf = buf[:0]
						for _, s := range ev {
							if s != trace.Return && c.keep(s) {
								buf = append(buf, s)
							}
						}
						in = Input{Symbols: buf}
					}
					seqs, _, err := Recognize([]Input{in}, 10, 1)
					if err != nil {
						b.Fatal(err)
					}
					out = len(seqs[0])
				}
				b.ReportMetric(float64(len(calls))*float64(b.N)/b.Elapsed().Seconds(), "symbols/s")
				b.ReportMetric(float64(len(calls))*float64(b.N)/(cpuTime()-cpu0).Seconds(), "symbols/cpu-s")
				b.ReportMetric(float64(out), "nlr-len")
			})
		}
	}
}
