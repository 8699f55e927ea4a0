package nlr

import (
	"math/rand/v2"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

// A Discoverer marshalled and read back, with its symbols renumbered on
// the way, folds exactly as the sealed original: the summaries difftrace
// summarize writes give the ranking the runs give.
func TestMarshalSameFold(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 17))
	for trial := range 200 {
		tab := trace.NewTable()
		var evs [][]trace.Symbol
		for range 1 + rng.IntN(4) {
			evs = append(evs, nest(rng, tab, 1+rng.IntN(4)))
		}
		// The summary numbers symbols its own way: s is 1000-s there.
		there := func(s trace.Symbol) trace.Symbol {
			if s == trace.Return {
				return s
			}
			return 1000 - s
		}
		back := func(s trace.Symbol) (trace.Symbol, bool) {
			if s == trace.Return {
				return s, true
			}
			return 1000 - s, s < 1000
		}
		keep := func(s trace.Symbol) bool { return s != 3 }
		keepThere := func(s trace.Symbol) bool { return s != there(3) }
		k := 1 + rng.IntN(10)
		if trial%4 == 0 {
			k = 40 + rng.IntN(40)
		}
		structural := trial%2 == 0
		fold := func(marshal bool) ([]Sequence, *Table) {
			var ds []*Discoverer
			for _, ev := range evs {
				kp := keep
				if marshal {
					mapped := make([]trace.Symbol, len(ev))
					for i, s := range ev {
						mapped[i] = there(s)
					}
					ev, kp = mapped, keepThere
				}
				d := discoverOne(k, ev, kp, structural, trial%3 == 0)
				d.Seal()
				if marshal {
					b, err := d.AppendBinary(nil)
					if err != nil {
						t.Fatal(err)
					}
					if d, err = UnmarshalDiscoverer(b, back); err != nil {
						t.Fatalf("trial %d: %v", trial, err)
					}
				}
				ds = append(ds, d)
			}
			return foldAll(t, ds)
		}
		want, wt := fold(false)
		got, gt := fold(true)
		sameFold(t, trial, "read back", got, gt, want, wt)
	}
}

// discoverOne runs pass 1 over the events ev with bodies of up to k
// elements: folding by call structure, or over the calls keep keeps.
func discoverOne(k int, ev []trace.Symbol, keep func(trace.Symbol) bool, structural, returns bool) *Discoverer {
	if structural {
		d, _ := NewStructuralDiscoverer(k, keep, returns)
		d.PushEvents(ev)
		return d
	}
	d, _ := NewDiscoverer(k)
	d.Push(kept(ev, keep))
	return d
}

// foldAll folds ds as traces P of runs P mod 2.
func foldAll(t *testing.T, ds []*Discoverer) ([]Sequence, *Table) {
	t.Helper()
	var in []Discovered
	for p, d := range ds {
		in = append(in, Discovered{Run: p % 2, ID: trace.ID{Proc: p}, D: d})
	}
	seqs, table, err := Fold(in, 2)
	if err != nil {
		t.Fatal(err)
	}
	return seqs, table
}

// sameFold fails the test unless two folds gave the same NLRs and loops.
func sameFold(t *testing.T, trial int, what string, got []Sequence, gt *Table, want []Sequence, wt *Table) {
	t.Helper()
	for i := range want {
		if !got[i].Equal(want[i]) {
			t.Fatalf("trial %d, trace %d: %s %v, want %v", trial, i, what, got[i], want[i])
		}
	}
	if gt.Len() != wt.Len() {
		t.Fatalf("trial %d: %d loops %s, want %d", trial, gt.Len(), what, wt.Len())
	}
	for id := range int32(wt.Len()) {
		if !gt.Body(id).Equal(wt.Body(id)) {
			t.Fatalf("trial %d: L%d differs %s", trial, id, what)
		}
	}
}

// A damaged summary is an error that says where, or a summary of another
// trace, never a panic. (Summary files carry a checksum, which catches
// damage before this.)
func TestUnmarshalDamaged(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	tab := trace.NewTable()
	d, _ := NewStructuralDiscoverer(10, func(trace.Symbol) bool { return true }, false)
	d.PushEvents(nest(rng, tab, 4))
	if _, err := d.AppendBinary(nil); err == nil {
		t.Fatal("an unsealed Discoverer was marshalled")
	}
	d.Seal()
	b, _ := d.AppendBinary(nil)
	id := func(s trace.Symbol) (trace.Symbol, bool) { return s, true }
	for n := range len(b) {
		if _, err := UnmarshalDiscoverer(b[:n], id); err == nil {
			t.Fatalf("a summary cut to %d of %d bytes was read", n, len(b))
		}
	}
	for range 2000 {
		c := append([]byte(nil), b...)
		c[rng.IntN(len(c))] ^= byte(1 + rng.IntN(255))
		_, _ = UnmarshalDiscoverer(c, id)
	}
	if _, err := UnmarshalDiscoverer(b, func(trace.Symbol) (trace.Symbol, bool) { return 0, false }); err == nil {
		t.Fatal("a summary with symbols the table lacks was read")
	}
}

// Any bytes read as a summary of a trace give an error or a Discoverer
// that marshals back to the same bytes: never a panic.
func FuzzUnmarshalDiscoverer(f *testing.F) {
	rng := rand.New(rand.NewPCG(2, 2))
	tab := trace.NewTable()
	for _, k := range []int{1, 3, 10, 40} {
		d, _ := NewStructuralDiscoverer(k, func(s trace.Symbol) bool { return s%3 != 0 }, false)
		d.PushEvents(nest(rng, tab, 4))
		d.Seal()
		b, _ := d.AppendBinary(nil)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := UnmarshalDiscoverer(b, func(s trace.Symbol) (trace.Symbol, bool) { return s, s < 1000 })
		if err != nil {
			return
		}
		again, err := d.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		d2, err := UnmarshalDiscoverer(again, func(s trace.Symbol) (trace.Symbol, bool) { return s, true })
		if err != nil {
			t.Fatalf("a summary read back does not read again: %v", err)
		}
		if b3, _ := d2.AppendBinary(nil); string(b3) != string(again) {
			t.Fatal("marshalling is not stable")
		}
	})
}
