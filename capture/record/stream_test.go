package record

import (
	"encoding/binary"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/difftrace/difftrace/parlot"
)

// recordStream builds a thread's uftrace records for the receiver's tests,
// and what they must come to, decoded one record at a time the plain way.
type recordStream struct {
	b []byte

	vals  []uint16          // the values the trace must hold
	stack []uint16          // the open calls at the end
	first []uint16          // provisional IDs in order of first call
	ids   map[uint64]uint16 // provisional ID by address
	lost  uint64
	last  uint64
}

func (r *recordStream) put(w, t uint64, extra []byte) {
	var rec [16]byte
	binary.LittleEndian.PutUint64(rec[:], t)
	binary.LittleEndian.PutUint64(rec[8:], w|5<<3)
	r.b = append(r.b, rec[:]...)
	r.b = append(r.b, extra...)
	r.last = t
}

func (r *recordStream) entry(depth int, addr, t uint64) {
	r.put(uint64(depth)<<6|addr<<16, t, nil)
	id, ok := r.ids[addr]
	if !ok {
		id = uint16(len(r.ids) + 1)
		r.ids[addr] = id
		r.first = append(r.first, id)
	}
	if len(r.stack) > depth {
		r.stack = r.stack[:depth]
	}
	r.stack = append(r.stack, id)
	r.vals = append(r.vals, id)
}

func (r *recordStream) exit(depth int, addr, t uint64) {
	r.put(1|uint64(depth)<<6|addr<<16, t, nil)
	if len(r.stack) > depth {
		r.stack = r.stack[:depth]
	}
	r.vals = append(r.vals, 0)
}

// event is a record of an event with data after it (size bytes, padded
// to 8 after a 2-byte length), which the receiver skips.
func (r *recordStream) event(size int, t uint64) {
	extra := make([]byte, (2+size+7)&^7)
	binary.LittleEndian.PutUint16(extra, uint16(size))
	r.put(3|1<<2|uint64(100)<<16, t, extra)
}

func (r *recordStream) lostRecords(n, t uint64) {
	r.put(2|n<<16, t, nil)
	r.lost += n
}

// TestStreamRecords hands the receiver a thread's records cut at random
// places into buffers of random sizes and checks what it makes of them
// against the plain decoding: the compressed values, the open calls, the
// first calls' order, the counts of calls and lost records and the last
// time. The records call 6,000 functions (more than the address cache
// holds, so that entries evict each other), nest up to 40 deep with gaps
// (lost records), and hold events with data after them.
func TestStreamRecords(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	r := &recordStream{ids: map[uint64]uint16{}}
	addr := func() uint64 {
		if rng.IntN(4) == 0 {
			return 0x400000 + uint64(rng.IntN(6000))*16
		}
		return 0x400000 + uint64(rng.IntN(30))*16
	}
	tm := uint64(1)
	var open []uint64
	for range 300_000 {
		tm += uint64(rng.IntN(5))
		switch k := rng.IntN(100); {
		case k < 48 && len(open) < 40:
			a := addr()
			r.entry(len(open), a, tm)
			open = append(open, a)
		case k < 96 && len(open) > 0:
			r.exit(len(open)-1, open[len(open)-1], tm)
			open = open[:len(open)-1]
		case k < 97:
			r.event(rng.IntN(40), tm)
		case k < 98 && len(open) > 1:
			// Records lost: the thread goes on two calls deeper than
			// the receiver saw it go.
			r.lostRecords(uint64(1+rng.IntN(9)), tm)
			a := addr()
			r.entry(len(open)+2, a, tm)
			open = append(open, 0, 0, a)
		}
	}

	dir := t.TempDir()
	s, err := newStreamer(dir, ".trace.0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.wait(0)
	for b := r.b; len(b) > 0; {
		n := min(len(b), 1+rng.IntN(3000))
		if err := s.data(7, b[:n]); err != nil {
			t.Fatal(err)
		}
		b = b[n:]
	}
	th := s.threads[7]
	if err := s.flush(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(th.f.Name())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var vals []uint16
	pr := parlot.NewReader(f, th.f.Name(), 0)
	buf := make([]uint16, 4096)
	for {
		n, err := pr.Read(buf)
		vals = append(vals, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(vals, r.vals) {
		i := 0
		for i < min(len(vals), len(r.vals)) && vals[i] == r.vals[i] {
			i++
		}
		t.Fatalf("the trace holds %d values, want %d; they differ first at %d", len(vals), len(r.vals), i)
	}
	if !slices.Equal(th.openCalls(), r.stack) {
		t.Errorf("open calls %v, want %v", th.openCalls(), r.stack)
	}
	if !slices.Equal(th.first, r.first) {
		t.Errorf("first calls differ: %d IDs, want %d", len(th.first), len(r.first))
	}
	if th.calls() != uint64(len(r.vals)) || th.lost != r.lost || th.last != r.last || len(th.rest) != 0 {
		t.Errorf("calls %d lost %d last %d rest %d, want %d %d %d 0", th.calls(), th.lost, th.last, len(th.rest), len(r.vals), r.lost, r.last)
	}
}
