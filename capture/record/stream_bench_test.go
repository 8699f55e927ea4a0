package record

import (
	"encoding/binary"
	"testing"
)

// solverRecords builds n uftrace records of a loop-shaped thread: a step
// calls 20 functions, each of which calls a leaf, at depths 1 and 2.
func solverRecords(n int) []byte {
	b := make([]byte, 0, n*recordSize)
	rec := func(kind uint64, depth int, addr uint64, t uint64) {
		var r [16]byte
		binary.LittleEndian.PutUint64(r[:], t)
		binary.LittleEndian.PutUint64(r[8:], kind|5<<3|uint64(depth)<<6|addr<<16)
		b = append(b, r[:]...)
	}
	t := uint64(1)
	for len(b) < n*recordSize {
		rec(0, 0, 0x401000, t)
		for f := range uint64(20) {
			rec(0, 1, 0x402000+f*64, t)
			rec(0, 2, 0x403000, t)
			rec(1, 2, 0x403000, t)
			rec(1, 1, 0x402000+f*64, t)
			t += 10
		}
		rec(1, 0, 0x401000, t)
	}
	return b[:n*recordSize]
}

// BenchmarkStreamRecords measures what capture does with each buffer
// uftrace sends: decode the records and compress them.
func BenchmarkStreamRecords(b *testing.B) {
	data := solverRecords(1 << 20)
	s, err := newStreamer(b.TempDir(), ".trace.0")
	if err != nil {
		b.Fatal(err)
	}
	defer s.wait(0)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		for off := 0; off < len(data); off += 128 << 10 {
			if err := s.data(1, data[off:min(off+128<<10, len(data))]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(data)/recordSize)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
