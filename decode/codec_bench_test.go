package decode_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/difftrace/difftrace/parlot"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/trace"
)

// solverTrace returns a deterministic loop-heavy event sequence of at least n
// values, shaped like an iterative MPI solver: a time-step loop whose body
// sweeps a grid (nested loops of small kernels), exchanges halos with a few
// neighbours and reduces a residual, with a little noise (an occasional
// extra call or a different iteration count) as real runs have.
func solverTrace(n int) []uint16 {
	rng := rand.New(rand.NewPCG(2, 17))
	const (
		main, step, sweep, kernel, flux, update, exchange, isend, irecv, waitall, allreduce, log, norm = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13
	)
	v := make([]uint16, 0, n+4096)
	call := func(ids ...uint16) { // leaf calls
		for _, id := range ids {
			v = append(v, id, 0)
		}
	}
	v = append(v, main)
	for len(v) < n {
		v = append(v, step)
		v = append(v, sweep)
		rows := 16
		if rng.IntN(50) == 0 {
			rows = 15 + rng.IntN(3)
		}
		for range rows {
			v = append(v, kernel)
			call(flux, flux, update)
			if rng.IntN(200) == 0 {
				call(norm)
			}
			v = append(v, 0)
		}
		v = append(v, 0) // sweep
		v = append(v, exchange)
		for range 4 {
			call(irecv, isend)
		}
		call(waitall)
		v = append(v, 0) // exchange
		call(allreduce)
		if rng.IntN(100) == 0 {
			call(log)
		}
		v = append(v, 0) // step
	}
	return append(v, 0)
}

func encodeAll(b testing.TB, vals []uint16) []byte {
	var buf bytes.Buffer
	w := parlot.NewWriter(&buf)
	if err := w.Write(vals); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

var (
	benchOnce sync.Once
	benchSeqs map[string][]uint16
)

// benchInputs are the sequences the codec benchmarks run on: the solver
// trace (10 million events, compression ratio about 370, like a real
// solver's) and the norepeat fixture (random IDs: the worst case).
func benchInputs(b *testing.B) map[string][]uint16 {
	benchOnce.Do(func() {
		raw, err := os.ReadFile(filepath.Join("..", "testdata", "parlot", "edge", "norepeat.u16"))
		if err != nil {
			b.Fatal(err)
		}
		norepeat := make([]uint16, len(raw)/2)
		for i := range norepeat {
			norepeat[i] = uint16(raw[2*i]) | uint16(raw[2*i+1])<<8
		}
		benchSeqs = map[string][]uint16{"solver": solverTrace(10_000_000), "norepeat": norepeat}
	})
	return benchSeqs
}

// reportEvents adds the throughput in millions of events per second.
func reportEvents(b *testing.B, events int) {
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
}

// BenchmarkDecode measures the ParLOT reader alone, from memory.
func BenchmarkDecode(b *testing.B) {
	for _, name := range []string{"solver", "norepeat"} {
		vals := benchInputs(b)[name]
		file := encodeAll(b, vals)
		b.Run(name, func(b *testing.B) {
			buf := make([]uint16, 64<<10)
			b.SetBytes(int64(2 * len(vals)))
			for b.Loop() {
				r := parlot.NewReader(bytes.NewReader(file), name, 0)
				for {
					_, err := r.Read(buf)
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
			reportEvents(b, len(vals))
		})
	}
}

// BenchmarkEncode measures the ParLOT writer alone, into memory.
func BenchmarkEncode(b *testing.B) {
	for _, name := range []string{"solver", "norepeat"} {
		vals := benchInputs(b)[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(2 * len(vals)))
			for b.Loop() {
				w := parlot.NewWriter(io.Discard)
				if err := w.Write(vals); err != nil {
					b.Fatal(err)
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			reportEvents(b, len(vals))
		})
	}
}

// benchRun writes the solver trace as a one-trace run directory.
func benchRun(b *testing.B) (*decode.Run, int) {
	vals := benchInputs(b)["solver"]
	dir := b.TempDir()
	info := "+\n/bin/solver\nmain\nstep\nsweep\nkernel\nflux\nupdate\nexchange\n+\n/lib/libmpi.so.40\nMPI_Isend\nMPI_Irecv\nMPI_Waitall\nMPI_Allreduce\n+\n/bin/solver\nlog\nnorm\n"
	if err := os.WriteFile(filepath.Join(dir, "trace.0.info"), []byte(info), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "trace.0.0"), encodeAll(b, vals), 0o644); err != nil {
		b.Fatal(err)
	}
	run, err := decode.Open(dir, trace.NewTable(), decode.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return run, len(vals)
}

// BenchmarkStream measures what later stages get: a trace file decoded and
// mapped to the run's symbols, chunk by chunk.
func BenchmarkStream(b *testing.B) {
	run, n := benchRun(b)
	id := run.Traces()[0]
	for b.Loop() {
		if err := run.Stream(id, func([]trace.Symbol) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
	reportEvents(b, n)
}

// BenchmarkSummarize measures the trace reader's statistics (call and edge
// counts) over a streamed trace.
func BenchmarkSummarize(b *testing.B) {
	run, n := benchRun(b)
	for _, edges := range []bool{false, true} {
		b.Run(map[bool]string{false: "calls", true: "calls+edges"}[edges], func(b *testing.B) {
			for b.Loop() {
				if _, err := run.Summarize(run.Traces(), edges); err != nil {
					b.Fatal(err)
				}
			}
			reportEvents(b, n)
		})
	}
}
