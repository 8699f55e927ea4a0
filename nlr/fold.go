package nlr

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"slices"

	"github.com/difftrace/difftrace/internal/parallel"
	"github.com/difftrace/difftrace/trace"
)

// Ref names one trace of a comparison for FoldEach: Run is 0 for the
// normal run and 1 for the faulty one; Run and ID fix the order in which
// loops are numbered.
type Ref struct {
	Run int
	ID  trace.ID
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
	refs := make([]Ref, len(ds))
	for i, d := range ds {
		refs[i] = Ref{Run: d.Run, ID: d.ID}
	}
	return FoldEach(refs, func(i int) (*Discoverer, error) { return ds[i].D, nil }, workers)
}

// FoldEach is Fold for traces whose pass-1 Discoverers are made when
// needed: open(i) returns the Discoverer of refs[i] (from a trace summary,
// say), and is called once for each, a batch at a time in the order loops
// are numbered in, from several goroutines. Memory then holds the pooled
// bodies, each trace's pass-1 NLR in a compact form between the passes,
// and the results, never every Discoverer at once. The result is Fold's.
//
// Every trace must be discovered alike: all by call structure, or none.
func FoldEach(refs []Ref, open func(i int) (*Discoverer, error), workers int) ([]Sequence, *Table, error) {
	seqs := make([]Sequence, len(refs))
	table, err := FoldEachTo(refs, open, func(i int, s Sequence) error {
		seqs[i] = s
		return nil
	}, workers)
	if err != nil {
		return nil, nil, err
	}
	return seqs, table, nil
}

// FoldEachTo is FoldEach handing each trace's NLR to emit(i, seq) as soon
// as it is made, instead of returning them all: the caller keeps them in
// whatever form it likes (Packed, say). emit is called once for each trace,
// from one goroutine, in the order loops are numbered in; seq is the
// caller's. An error from emit ends the folding and is returned.
func FoldEachTo(refs []Ref, open func(i int) (*Discoverer, error), emit func(i int, seq Sequence) error, workers int) (*Table, error) {
	order, err := refOrder(refs)
	if err != nil {
		return nil, err
	}
	f := &folder{refs: refs, shared: newBodies(), k: -1}
	batch := foldBatch(workers)

	// Pass-1 results in canonical order. Folded by call structure, each
	// trace's tokens that did not repeat are spliced in place as it comes
	// (expander), so that pass 2 and the numbering see flat NLRs; the
	// bodies left are pooled in the order they appear, whatever the
	// scheduling. Otherwise each trace's bodies are pooled as they are.
	// Only the result stays, compact, until pass 2.
	packed := make([][]byte, len(refs))
	ds := make([]*Discoverer, batch)
	for from := 0; from < len(order); from += batch {
		part := order[from:min(from+batch, len(order))]
		err := parallel.For(len(part), workers, func(j int) error {
			d, err := open(part[j])
			if err != nil {
				return err
			}
			if d == nil || d.r == nil {
				return fmt.Errorf("nlr: trace %s of run %d has no Discoverer, or one already folded", refs[part[j]].ID, refs[part[j]].Run)
			}
			if d.keep != nil {
				d.finish()
				d.structural = true
			}
			ds[j] = d
			return nil
		})
		if err != nil {
			return nil, err
		}
		for j, i := range part {
			st, err := f.pool(i, ds[j])
			if err != nil {
				return nil, err
			}
			packed[i] = packKeys(nil, st)
			ds[j] = nil
		}
	}
	if f.x != nil {
		f.shared = f.x.out
	}

	// Pass 2, a batch at a time in canonical order, in parallel against
	// the pooled bodies, which stay as they are until every trace is
	// folded; the bodies it finds are pooled apart (extra), then each
	// trace's loops are numbered and its NLR made.
	f.base = f.shared.len()
	f.extra = newBodies()
	ends := endsOf(f.shared)
	r2 := make([]*reducer, batch)
	for from := 0; from < len(order); from += batch {
		part := order[from:min(from+batch, len(order))]
		parallel.Each(len(part), workers, func(j int) {
			i := part[j]
			r := newReducer(max(f.k, 1), f.shared)
			r.fold(&reducer{stack: unpackKeys(packed[i])}, ends)
			packed[i] = nil
			r2[j] = r
		})
		for j, i := range part {
			seq := f.finish(r2[j])
			r2[j] = nil
			if err := emit(i, seq); err != nil {
				return nil, err
			}
		}
	}
	return f.table(), nil
}

// foldBatch is how many traces FoldEach opens, or folds in pass 2, at a
// time: enough for every worker to stay busy, few enough that their
// Discoverers take little memory.
func foldBatch(workers int) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return foldPerWorker * workers
}

// foldPerWorker is FoldEach's batch per worker; tests lower it to cross
// batches.
var foldPerWorker = 256

// folder holds what FoldEach builds as the traces come.
type folder struct {
	refs       []Ref
	k          int // the K of every trace; -1 before the first
	first      int // the trace that set k and structural
	structural bool

	shared *bodies   // pass 1's bodies (folded by call structure: expanded)
	x      *expander // folded by call structure: splices tokens into x.out
	tmp    []uint64
	sc     []byte

	base  int32   // shared's length in pass 2; extra's IDs start there
	extra *bodies // the bodies pass 2 found
	final []int32 // loop number of each body of shared, then extra; -1 = none yet
	next  int32
}

// pool takes trace i's pass-1 result into the pooled bodies and returns
// its NLR in pooled IDs.
func (f *folder) pool(i int, d *Discoverer) ([]uint64, error) {
	ref := f.refs[i]
	if f.k < 0 {
		f.k, f.first, f.structural = d.r.k, i, d.structural
		if f.structural {
			f.x = newExpander(nil)
		}
	}
	at := f.refs[f.first]
	if d.r.k != f.k {
		return nil, fmt.Errorf("nlr: trace %s of run %d was discovered with K = %d, trace %s of run %d with K = %d; one comparison uses one K",
			ref.ID, ref.Run, d.r.k, at.ID, at.Run, f.k)
	}
	if d.structural != f.structural {
		how := map[bool]string{true: "by call structure", false: "from filtered calls"}
		return nil, fmt.Errorf("nlr: trace %s of run %d was discovered %s, trace %s of run %d %s; one comparison discovers one way",
			ref.ID, ref.Run, how[d.structural], at.ID, at.Run, how[f.structural])
	}
	r := d.r
	d.r = nil // the Discoverer is spent
	if f.structural {
		// The trace's own bodies are expanded into the pooled ones:
		// equal expansions are one body, as pooling them first would
		// make them.
		f.x.reset(r.own)
		return f.x.all(r.stack), nil
	}
	m := make([]int32, r.own.len())
	for j := range r.own.len() {
		f.tmp = translate(f.tmp[:0], r.own.body(j), 0, m)
		m[j] = f.shared.intern(f.tmp, &f.sc)
	}
	st := r.stack
	for p, key := range st {
		if isLoopKey(key) {
			st[p] = withID(key, m[keyID(key)])
		}
	}
	return st, nil
}

// finish pools the bodies pass 2 found in one trace (in r2), numbers the
// loops its NLR mentions that have no number yet, and returns the NLR.
func (f *folder) finish(r2 *reducer) Sequence {
	m := make([]int32, r2.own.len())
	for j := range r2.own.len() {
		f.tmp = translate(f.tmp[:0], r2.own.body(j), f.base, m)
		id, ok := f.shared.lookup(f.tmp, &f.sc)
		if !ok {
			id = f.base + f.extra.intern(f.tmp, &f.sc)
		}
		m[j] = id
	}
	st := r2.stack
	for p, key := range st {
		if isLoopKey(key) {
			id := keyID(key)
			if id >= f.base {
				id = m[id-f.base]
				st[p] = withID(key, id)
			}
			f.number(id)
		}
	}
	return toSequence(st, f.final)
}

// body returns pooled body p: shared's, then extra's.
func (f *folder) body(p int32) []uint64 {
	if p < f.base {
		return f.shared.body(p)
	}
	return f.extra.body(p - f.base)
}

// number gives body p the next loop number, after the loops it holds.
func (f *folder) number(p int32) {
	for int(p) >= len(f.final) {
		f.final = append(f.final, -1)
	}
	if f.final[p] >= 0 {
		return
	}
	for _, key := range f.body(p) {
		if isLoopKey(key) {
			f.number(keyID(key))
		}
	}
	f.final[p] = f.next
	f.next++
}

// table numbers the bodies no trace mentions (none are expected), in
// pooling order, and returns the loop table.
func (f *folder) table() *Table {
	n := f.base + f.extra.len()
	for p := range n {
		f.number(p)
	}
	t := &Table{bodies: make([]Sequence, n), index: make(map[string]int32, n)}
	for p := range n {
		body := toSequence(f.body(p), f.final)
		t.bodies[f.final[p]] = body
		t.index[string(encodeKeys(&f.sc, body.keys()))] = f.final[p]
	}
	t.countInner()
	return t
}

// refOrder checks the traces of a comparison and returns their indexes
// sorted by run, then trace ID.
func refOrder(refs []Ref) ([]int, error) {
	order := make([]int, len(refs))
	for i := range refs {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if refs[a].Run != refs[b].Run {
			return refs[a].Run - refs[b].Run
		}
		return refs[a].ID.Compare(refs[b].ID)
	})
	for j := 1; j < len(order); j++ {
		a, b := refs[order[j-1]], refs[order[j]]
		if a.Run == b.Run && a.ID == b.ID {
			return nil, fmt.Errorf("nlr: trace %s appears twice in run %d", a.ID, a.Run)
		}
	}
	return order, nil
}

// packKeys appends keys to b compactly, as unsigned varints: a symbol s as
// 2s, a loop as 2·ID+1 followed by its count.
func packKeys(b []byte, keys []uint64) []byte {
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		if isLoopKey(k) {
			b = binary.AppendUvarint(b, uint64(keyID(k))<<1|1)
			b = binary.AppendUvarint(b, uint64(keyCount(k)))
		} else {
			b = binary.AppendUvarint(b, k<<1)
		}
	}
	return b
}

// unpackKeys reads what packKeys wrote (the bytes are this package's own,
// never read from a file).
func unpackKeys(b []byte) []uint64 {
	n, w := binary.Uvarint(b)
	b = b[w:]
	out := make([]uint64, 0, n)
	for range n {
		v, w := binary.Uvarint(b)
		b = b[w:]
		if v&1 == 0 {
			out = append(out, v>>1)
			continue
		}
		c, w := binary.Uvarint(b)
		b = b[w:]
		out = append(out, loopKey(int32(v>>1), int32(c)))
	}
	return out
}
