package decode_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/difftrace/difftrace/capture"
	"github.com/difftrace/difftrace/decode"
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
	w := capture.NewWriter(&buf)
	if err := w.Write(vals); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// benchInputs are the sequences the codec benchmarks run on.
func benchInputs(b *testing.B) map[string][]uint16 {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "parlot", "edge", "norepeat.u16"))
	if err != nil {
		b.Fatal(err)
	}
	norepeat := make([]uint16, len(raw)/2)
	for i := range norepeat {
		norepeat[i] = uint16(raw[2*i]) | uint16(raw[2*i+1])<<8
	}
	return map[string][]uint16{"solver": solverTrace(10_000_000), "norepeat": norepeat}
}

func BenchmarkDecode(b *testing.B) {
	for _, name := range []string{"solver", "norepeat"} {
		vals := benchInputs(b)[name]
		file := encodeAll(b, vals)
		b.Run(name, func(b *testing.B) {
			buf := make([]uint16, 64<<10)
			b.SetBytes(int64(len(file)))
			for b.Loop() {
				r := decode.NewReader(bytes.NewReader(file), name, 0)
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
			b.ReportMetric(float64(len(vals))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	for _, name := range []string{"solver", "norepeat"} {
		vals := benchInputs(b)[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(2 * len(vals)))
			for b.Loop() {
				w := capture.NewWriter(io.Discard)
				if err := w.Write(vals); err != nil {
					b.Fatal(err)
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(vals))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
		})
	}
}
