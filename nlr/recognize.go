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

// Fold finishes NLR for the traces of a comparison after pass 1.
//
// It pools the bodies every trace discovered into one table, then runs
// pass 2 ("fold known bodies") over each trace's pass-1 result: the same
// reduction, now also turning two adjacent copies of a body in the table
// (or one this trace's pass 2 has just found) into a loop of 2. The passes
// stay separate: were the two-copy rule active from the start, an odd rank's
// Recv Send Recv Send … would be swallowed by the even ranks' body
// [Send, Recv] as Recv, L0^15, Send instead of L1^16.
//
// Loops are then numbered by first appearance — normal run before faulty,
// trace IDs ascending, position in the trace, a loop's inner loops before
// itself — so that L0 means the same body in both runs and nothing depends
// on scheduling. Both passes run on up to workers goroutines (≤ 0: one per
// CPU). Fold consumes the Discoverers; it returns the NLR of every trace, in
// the order of ds, and the shared table.
func Fold(ds []Discovered, workers int) ([]Sequence, *Table, error) {
	order, err := canonicalOrder(ds)
	if err != nil {
		return nil, nil, err
	}
	structural := false
	for _, d := range ds {
		if d.D.keep != nil {
			d.D.finish()
			d.D.structural = true
		}
		structural = structural || d.D.structural
	}

	// Pool the pass-1 bodies in canonical order. A body only mentions
	// bodies found before it, so each trace's IDs translate in one sweep.
	shared := newBodies()
	var scratch []byte
	var tmp []uint64
	maps := make([][]int32, len(ds))
	for _, i := range order {
		own := ds[i].D.r.own
		m := make([]int32, own.len())
		for j := range own.len() {
			tmp = translate(tmp[:0], own.body(j), 0, m)
			m[j] = shared.intern(tmp, &scratch)
		}
		maps[i] = m
	}

	// Folded by call structure: splice the tokens that did not repeat, so
	// that pass 2 and the numbering see flat NLRs (in canonical order, so
	// that the new bodies are numbered alike whatever the scheduling).
	if structural {
		x := newExpander(shared)
		for _, i := range order {
			r := ds[i].D.r
			for p, key := range r.stack {
				if isLoopKey(key) {
					r.stack[p] = withID(key, maps[i][keyID(key)])
				}
			}
			r.stack = x.all(r.stack)
			maps[i] = nil // the stack is in shared IDs already
		}
		shared = x.out
	}

	// Pass 2, in parallel against the pooled bodies.
	r2 := make([]*reducer, len(ds))
	k := 0
	if len(ds) > 0 {
		k = ds[0].D.r.k
	}
	ends := endsOf(shared)
	parallel.Each(len(ds), workers, func(i int) {
		d := ds[i].D
		st := d.r.stack
		for p, key := range st {
			if isLoopKey(key) && maps[i] != nil {
				st[p] = withID(key, maps[i][keyID(key)])
			}
		}
		r := newReducer(k, shared)
		r.fold(d.r, ends)
		d.r = nil // the Discoverer is spent
		r2[i] = r
	})

	// Pool the bodies pass 2 found, again in canonical order.
	base := shared.len()
	for _, i := range order {
		own := r2[i].own
		m := make([]int32, own.len())
		for j := range own.len() {
			tmp = translate(tmp[:0], own.body(j), base, m)
			m[j] = shared.intern(tmp, &scratch)
		}
		maps[i] = m
	}

	// Translate every stack to pooled IDs.
	parallel.Each(len(ds), workers, func(i int) {
		st, m := r2[i].stack, maps[i]
		for p, key := range st {
			if isLoopKey(key) {
				if id := keyID(key); id >= base {
					st[p] = withID(key, m[id-base])
				}
			}
		}
	})
	// List the loops each trace mentions in order of first appearance.
	firsts := make([][]int32, len(ds))
	parallel.Each(len(ds), workers, func(i int) {
		seen := map[int32]bool{}
		for _, key := range r2[i].stack {
			if isLoopKey(key) {
				if id := keyID(key); !seen[id] {
					seen[id] = true
					firsts[i] = append(firsts[i], id)
				}
			}
		}
	})

	// Number the loops: first appearance in canonical order, inner loops
	// before the loop that holds them; bodies no trace mentions (none are
	// expected) come last, in pooling order.
	final := make([]int32, shared.len())
	for p := range final {
		final[p] = -1
	}
	next := int32(0)
	var number func(p int32)
	number = func(p int32) {
		if final[p] >= 0 {
			return
		}
		for _, key := range shared.body(p) {
			if isLoopKey(key) {
				number(keyID(key))
			}
		}
		final[p] = next
		next++
	}
	for _, i := range order {
		for _, p := range firsts[i] {
			number(p)
		}
	}
	for p := range shared.len() {
		number(p)
	}

	t := &Table{bodies: make([]Sequence, shared.len()), index: make(map[string]int32, shared.len())}
	for p := range shared.len() {
		body := toSequence(shared.body(p), final)
		t.bodies[final[p]] = body
		t.index[string(encodeKeys(&scratch, body.keys()))] = final[p]
	}
	t.countInner()
	seqs := make([]Sequence, len(ds))
	parallel.Each(len(ds), workers, func(i int) {
		seqs[i] = toSequence(r2[i].stack, final)
		r2[i] = nil
	})
	return seqs, t, nil
}

// canonicalOrder checks the traces of a comparison and returns their
// indexes sorted by run, then trace ID.
func canonicalOrder(ds []Discovered) ([]int, error) {
	order := make([]int, len(ds))
	for i, d := range ds {
		if d.D == nil || d.D.r == nil {
			return nil, fmt.Errorf("nlr: trace %s of run %d has no Discoverer, or one already folded", d.ID, d.Run)
		}
		if d.D.r.k != ds[0].D.r.k {
			return nil, fmt.Errorf("nlr: trace %s of run %d was discovered with K = %d, trace %s of run %d with K = %d; one comparison uses one K",
				d.ID, d.Run, d.D.r.k, ds[0].ID, ds[0].Run, ds[0].D.r.k)
		}
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if ds[a].Run != ds[b].Run {
			return ds[a].Run - ds[b].Run
		}
		return ds[a].ID.Compare(ds[b].ID)
	})
	for j := 1; j < len(order); j++ {
		a, b := ds[order[j-1]], ds[order[j]]
		if a.Run == b.Run && a.ID == b.ID {
			return nil, fmt.Errorf("nlr: trace %s appears twice in run %d", a.ID, a.Run)
		}
	}
	return order, nil
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
