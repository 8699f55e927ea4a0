package nlr

import (
	"fmt"
	"slices"

	"github.com/difftrace/difftrace/internal/parallel"
	"github.com/difftrace/difftrace/trace"
)

// Discoverer runs pass 1 ("discover") of NLR over one trace whose symbols
// arrive in chunks: three adjacent copies of a block of at most K elements
// make a loop, and each following copy extends it. Its memory is the
// trace's NLR so far, not the trace. A Discoverer is not safe for
// concurrent use; hand it to Fold when the trace is complete.
type Discoverer struct {
	r *reducer

	// Folding by call structure (NewStructuralDiscoverer): keep is nil
	// for a Discoverer of filtered calls (Push).
	keep    func(trace.Symbol) bool
	returns bool
	frames  []frame
	unit    []uint64

	// Quieted polling (QuietPolling): poll is nil when polling counts.
	// stretch[from:] are the polling calls of the current stretch at the
	// innermost open call's level.
	poll    func(trace.Symbol) bool
	stretch []trace.Symbol
	from    int

	sealed     bool // Seal ended the trace: nothing more is pushed
	structural bool // folded by call structure (kept when Seal drops keep)
}

// Seal ends the trace and lets go of all the Discoverer keeps for folding
// more of it (the index of its stack, the lookup of its bodies, the open
// calls), keeping only what Fold reads: the pass-1 NLR and its bodies, in
// slices of their own length. A comparison of many traces seals each as
// soon as it is decoded, so that memory holds pass-1 NLRs, not the
// machinery that built them. Nothing may be pushed after Seal; Fold gives
// the same result for a sealed Discoverer as for one that was not.
func (d *Discoverer) Seal() {
	if d.sealed {
		return
	}
	if d.keep != nil {
		d.finish()
		d.structural = true
	}
	r := d.r
	d.r = &reducer{k: r.k, fold2: r.fold2, indexed: r.indexed,
		stack: slices.Clone(r.stack),
		own:   &bodies{flat: slices.Clone(r.own.flat), start: slices.Clone(r.own.start)}}
	d.frames, d.unit, d.stretch, d.keep, d.poll = nil, nil, nil, nil, nil
	d.sealed = true
}

// NewDiscoverer returns a Discoverer that finds loop bodies of up to k
// elements (1 ≤ k ≤ MaxK).
func NewDiscoverer(k int) (*Discoverer, error) {
	if err := checkK(k); err != nil {
		return nil, err
	}
	return &Discoverer{r: newReducer(k, nil)}, nil
}

func checkK(k int) error {
	if k < 1 || k > MaxK {
		return fmt.Errorf("nlr: K = %d; the longest loop body must be between 1 and %d (10 is usual; the cost grows with K²)", k, MaxK)
	}
	return nil
}

// K returns the longest loop body the Discoverer looks for.
func (d *Discoverer) K() int { return d.r.k }

// Push feeds the next symbols of the trace.
func (d *Discoverer) Push(chunk []trace.Symbol) {
	for _, s := range chunk {
		d.r.push(symKey(s))
	}
}

// Len returns the length of the trace's NLR so far.
func (d *Discoverer) Len() int { return len(d.r.stack) }

// Discovered is one trace of a comparison after pass 1. Run is 0 for the
// normal run and 1 for the faulty one; Run and ID fix the order in which
// loops are numbered.
type Discovered struct {
	Run int
	ID  trace.ID
	D   *Discoverer
}

// Input is one trace of a comparison, for Recognize: its filtered calls,
// or with Keep set its raw events (calls and returns), of which Keep says
// which calls to keep, folded by call structure.
type Input struct {
	Run     int // 0 = normal run, 1 = faulty run
	ID      trace.ID
	Symbols []trace.Symbol
	Keep    func(trace.Symbol) bool
}

// Recognize runs both passes of NLR with bodies of up to k elements over
// the traces of a comparison, on up to workers goroutines (≤ 0: one per
// CPU). It returns the NLR of every input, in input order, and the loop
// table they share. The result does not depend on the order of the inputs
// or on workers.
func Recognize(inputs []Input, k, workers int) ([]Sequence, *Table, error) {
	if err := checkK(k); err != nil {
		return nil, nil, err
	}
	ds := make([]Discovered, len(inputs))
	parallel.Each(len(inputs), workers, func(i int) {
		var d *Discoverer
		if in := inputs[i]; in.Keep != nil {
			d, _ = NewStructuralDiscoverer(k, in.Keep, false)
			d.PushEvents(in.Symbols)
		} else {
			d, _ = NewDiscoverer(k)
			d.Push(in.Symbols)
		}
		ds[i] = Discovered{Run: inputs[i].Run, ID: inputs[i].ID, D: d}
	})
	return Fold(ds, workers)
}

// translate appends body to dst with every loop ID ≥ base replaced by
// m[id-base].
func translate(dst, body []uint64, base int32, m []int32) []uint64 {
	for _, key := range body {
		if isLoopKey(key) && keyID(key) >= base {
			key = withID(key, m[keyID(key)-base])
		}
		dst = append(dst, key)
	}
	return dst
}

// toSequence turns keys with pooled loop IDs into elements with final IDs.
func toSequence(keys []uint64, final []int32) Sequence {
	s := make(Sequence, len(keys))
	for i, key := range keys {
		if isLoopKey(key) {
			s[i] = Element{Loop: final[keyID(key)], Count: keyCount(key)}
		} else {
			s[i] = Element{Loop: NoLoop, Sym: trace.Symbol(key)}
		}
	}
	return s
}
