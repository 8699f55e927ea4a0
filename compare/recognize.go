package compare

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// NLR is the nested-loop representation of every trace of a comparison under
// one filter and one K, with the loop table all of them share (seeds/002
// §3.2.4): L0 means the same body in both runs.
type NLR struct {
	Filter *filters.Filter
	K      int
	Table  *nlr.Table
	// Kept[run][i] counts the calls the filter kept.
	Kept [][]uint64
	// RunWide lists the changes every process of the faulty run shows
	// alike (see findRunWide), in order of first appearance. The analysis
	// does not count them against any trace: it sees Seq, not Recorded.
	RunWide []Change

	c *Comparison
	// seqs holds the NLR of every trace in every run (Recorded), and those
	// of the faulty run with RunWide undone (Seq).
	seqs *seqStore
	// analysed[i]: the faulty NLR of trace IDs[i] with RunWide undone, in
	// seqs; -1 where unchanged. nil when nothing is run-wide.
	analysed []int32

	viewOnce  sync.Once
	view      *view // what the similarity analysis sees (analysis)
	noiseOnce sync.Once
	noiseOf   *noise // what the normal runs show of the program's own variation
	pairsOnce sync.Once
	pairs     *diffnlr.Pairs // the call pairs of every normal run (NewPair)
	// Changed and ProgressChange per level, made once for every
	// attribute mode that asks.
	changedOnce  [2]sync.Once
	changed      [2][]bool
	progressOnce [2]sync.Once
	progress     [2][]float64
}

// Comparison returns the comparison the NLR belongs to.
func (n *NLR) Comparison() *Comparison { return n.c }

// Total returns the calls the filter kept over every trace of every run.
func (n *NLR) Total() uint64 {
	var t uint64
	for _, kept := range n.Kept {
		for _, k := range kept {
			t += k
		}
	}
	return t
}

// Names returns the function-name printer for the comparison's symbols.
func (n *NLR) Names() func(trace.Symbol) string { return nlr.FuncNames(n.c.Symbols) }

// Recognize computes the NLR of every trace under every filter and every K:
// one result per (filter, K), filter-major (out[f*len(ks)+k]).
//
// Each trace is decoded once. Every decoded chunk goes through each filter's
// mask, and the kept calls go straight into one NLR discoverer per K (pass 1
// of nlr), so memory holds the pass-1 NLRs of the filtered traces, never the
// raw events or even the filtered ones. Each (filter, K) is then folded over
// both runs at once, the normal run first, so its loop table is shared and
// numbered the same way in both.
func (c *Comparison) Recognize(fs []*filters.Filter, ks []int) ([]*NLR, error) {
	for _, k := range ks {
		if _, err := nlr.NewDiscoverer(k); err != nil {
			return nil, err
		}
	}
	if len(fs) == 0 || len(ks) == 0 {
		return nil, nil
	}
	if err := c.checkRecorded(fs); err != nil {
		return nil, err
	}
	masks := c.compile(fs)
	nk := len(ks)
	newDiscoverers := c.discoverers(fs, ks, masks)
	// ones[run] holds the run's pass-1 NLRs, encoded, until each (filter,
	// K) is folded.
	ones := make([]*passOne, len(c.Runs))
	c.begin("decoding and filtering traces", c.traceCount())
	for r := range c.Runs {
		var err error
		if sm := c.sums[r]; sm != nil {
			ones[r], err = sm.passOne(c, r, fs, ks)
		} else {
			ones[r], err = c.passOne(r, fs, ks, masks, newDiscoverers)
		}
		if err != nil {
			c.end()
			return nil, err
		}
	}
	c.end()

	out := make([]*NLR, len(fs)*nk)
	defer c.end()
	for f := range fs {
		for k := range nk {
			// Traces of a run with the same pass-1 NLR fold alike: each
			// distinct one is folded once, by its first trace (which
			// comes first in Fold's order too, so the loops are numbered
			// as if every trace were folded), and its NLR shared.
			var refs []nlr.Ref
			var where [][2]int
			same := make([][]int, len(c.Runs)) // same[r][i]: the index in refs that trace IDs[i] shares
			for r := range c.Runs {
				first := map[int32]int{}
				same[r] = make([]int, len(c.IDs))
				for i, id := range c.IDs {
					same[r][i] = -1
					if ones[r].of[i] == nil {
						continue
					}
					x := ones[r].of[i][f*nk+k]
					j, ok := first[x]
					if !ok {
						j = len(refs)
						first[x] = j
						refs = append(refs, nlr.Ref{Run: r, ID: id})
						where = append(where, [2]int{r, i})
					}
					same[r][i] = j
				}
			}
			c.begin(fmt.Sprintf("folding loops (filter %s, K %d) of traces", fs[f].Name(), ks[k]), len(refs))
			// The pass-1 NLRs are decoded as Fold comes to them, not all
			// at once: a run of a million traces has as many distinct ones
			// under a filter that keeps every call.
			// Each folded NLR is packed as it comes (equal ones once):
			// expanded, those of a million traces would not fit.
			store := newSeqStore(len(c.Runs), len(c.IDs))
			class := make([]int32, len(refs))
			table, err := nlr.FoldEachTo(refs, func(j int) (*nlr.Discoverer, error) {
				p := ones[where[j][0]]
				d, err := p.discoverer(where[j][1], f*nk+k)
				if err != nil {
					return nil, fmt.Errorf("%s: trace %s: %w", p.dir, refs[j].ID, err)
				}
				c.step()
				return d, nil
			}, func(j int, seq nlr.Sequence) error {
				class[j] = store.add(seq)
				return nil
			}, c.opts.Workers)
			if err != nil {
				return nil, fmt.Errorf("filter %s, K = %d: %w", fs[f].Name(), ks[k], err)
			}
			res := &NLR{Filter: fs[f], K: ks[k], Table: table, c: c, seqs: store,
				Kept: make([][]uint64, len(c.Runs))}
			for r := range c.Runs {
				res.Kept[r] = make([]uint64, len(c.IDs))
				for i := range c.IDs {
					if ones[r].kept[i] != nil {
						res.Kept[r][i] = ones[r].kept[i][f]
					}
				}
			}
			for r := range c.Runs {
				for i, j := range same[r] {
					if j >= 0 {
						store.of[r][i] = class[j]
					}
				}
			}
			if err := res.findRunWide(); err != nil {
				return nil, fmt.Errorf("filter %s, K = %d: %w", fs[f].Name(), ks[k], err)
			}
			store.seal()
			out[f*nk+k] = res
		}
	}
	return out, nil
}

// passOne is what Recognize keeps of a run's traces between decoding and
// folding: each trace's pass-1 NLR under each (filter, K), encoded
// (nlr.Discoverer.AppendBinary) and stored once per distinct value, and the
// calls each filter kept. Encoded, a pass-1 NLR takes a byte or two per
// element, and the traces of a large run share most of them.
type passOne struct {
	classes [][]byte
	of      [][]int32  // of[i][f*nk+k]: trace IDs[i]'s class; nil when the run lacks the trace
	kept    [][]uint64 // kept[i][f]
	sym     func(trace.Symbol) (trace.Symbol, bool)
	dir     string // the run's or its summary's, for errors

	mu    sync.Mutex
	index map[string]int32
}

// intern returns the class of the encoded NLR b (keeping a copy of b when
// it is new).
func (p *passOne) intern(b []byte) int32 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if x, ok := p.index[string(b)]; ok {
		return x
	}
	x := int32(len(p.classes))
	b = slices.Clone(b)
	p.classes = append(p.classes, b)
	p.index[string(b)] = x
	return x
}

// discoverer returns trace IDs[i]'s pass-1 NLR number x, ready for Fold.
func (p *passOne) discoverer(i, x int) (*nlr.Discoverer, error) {
	return nlr.UnmarshalDiscoverer(p.classes[p.of[i][x]], p.sym)
}

// sameSymbol is the symbol map of a run decoded here.
func sameSymbol(s trace.Symbol) (trace.Symbol, bool) { return s, true }

// passOne decodes run r's traces and keeps their pass-1 NLRs under fs × ks.
func (c *Comparison) passOne(r int, fs []*filters.Filter, ks []int, masks []*filters.Mask, newDiscoverers func() []*nlr.Discoverer) (*passOne, error) {
	nk := len(ks)
	p := &passOne{of: make([][]int32, len(c.IDs)), kept: make([][]uint64, len(c.IDs)), sym: sameSymbol, dir: c.Runs[r].Dir, index: map[string]int32{}}
	ids := c.Runs[r].Traces()
	disc := make([][]*nlr.Discoverer, len(ids))
	err := c.stream(r, ids, masks, false, func(j int) func(f int, events []trace.Symbol, calls int) {
		i, _ := c.Index(ids[j])
		ds := newDiscoverers()
		n := make([]uint64, len(fs))
		disc[j], p.kept[i] = ds, n
		return func(f int, events []trace.Symbol, calls int) {
			n[f] += uint64(calls)
			for k := range nk {
				ds[f*nk+k].PushEvents(events)
			}
		}
	}, func(j int, _ []trace.Symbol) error {
		// The trace is decoded: its discoverers give way to their
		// encoded pass-1 NLRs.
		i, _ := c.Index(ids[j])
		of := make([]int32, len(disc[j]))
		var buf []byte
		for x, d := range disc[j] {
			d.Seal()
			var err error
			if buf, err = d.AppendBinary(buf[:0]); err != nil {
				return err
			}
			of[x] = p.intern(buf)
		}
		disc[j], p.of[i] = nil, of
		return nil
	})
	p.index = nil
	return p, err
}

// Filter returns the calls filter f keeps in each of the traces ids of run
// r, in order: what the filter command lists. Each trace is decoded once.
func (c *Comparison) Filter(f *filters.Filter, r int, ids []trace.ID) ([][]trace.Symbol, error) {
	masks := c.compile([]*filters.Filter{f})
	out := make([][]trace.Symbol, len(ids))
	run := c.Runs[r]
	c.begin("decoding and filtering traces", len(ids))
	defer c.end()
	err := run.ForEach(ids, func(i int, id trace.ID) error {
		st := masks[0].Stream()
		return run.Stream(id, func(chunk []trace.Symbol) error {
			out[i] = st.Append(out[i], chunk)
			return nil
		})
	})
	return out, err
}

// compile compiles the filters against the comparison's table, which holds
// every name of both runs once Open returns.
func (c *Comparison) compile(fs []*filters.Filter) []*filters.Mask {
	masks := make([]*filters.Mask, len(fs))
	for i, f := range fs {
		masks[i] = f.Compile(c.Symbols)
	}
	return masks
}

// discoverers returns a function that makes the pass-1 discoverers of one
// trace under fs × ks (filter-major), folding by call structure, with
// polling quieted where a filter keeps polling calls (unless
// Options.ExactPolling).
func (c *Comparison) discoverers(fs []*filters.Filter, ks []int, masks []*filters.Mask) func() []*nlr.Discoverer {
	nk := len(ks)
	// quiet[f]: filter f keeps polling calls, whose stretches its
	// discoverers read as once each (Polling); the others need no check.
	quiet := make([]bool, len(fs))
	var poll func(trace.Symbol) bool
	if !c.opts.ExactPolling {
		pm := Polling().Compile(c.Symbols)
		poll = pm.Keep
		for f, m := range masks {
			for s := range c.Symbols.Len() {
				if pm.Keep(trace.Symbol(s)) && m.Keep(trace.Symbol(s)) {
					quiet[f] = true
					break
				}
			}
		}
	}
	return func() []*nlr.Discoverer {
		ds := make([]*nlr.Discoverer, len(fs)*nk)
		for j := range ds {
			ds[j], _ = nlr.NewStructuralDiscoverer(ks[j%nk], masks[j/nk].Keep, fs[j/nk].KeepsReturns())
			if quiet[j/nk] {
				ds[j].QuietPolling(poll)
			}
		}
		return ds
	}
}

// stream decodes the traces ids of run r once each, in parallel. For trace
// ids[j] it asks newSink(j) for a sink, then hands the sink, chunk by
// chunk, the calls each mask keeps, and calls done(j, end) once the trace is
// decoded; end is the call stack it ended in when ends is set, else nil. A
// sink is used by one goroutine only.
func (c *Comparison) stream(r int, ids []trace.ID, masks []*filters.Mask, ends bool,
	newSink func(j int) func(f int, events []trace.Symbol, calls int), done func(j int, end []trace.Symbol) error) error {
	run := c.Runs[r]
	// One filter state per worker, reused trace after trace: its buffers
	// grow once, not once a trace.
	var pool sync.Pool
	if _, err := filters.NewNests(masks); err != nil {
		return err
	}
	return run.ForEach(ids, func(j int, id trace.ID) error {
		sink := newSink(j)
		nests, _ := pool.Get().(*filters.Nests)
		if nests == nil {
			nests, _ = filters.NewNests(masks) // checked above
		}
		nests.Reset()
		defer pool.Put(nests)
		var end []trace.Symbol
		err := run.Stream(id, func(chunk []trace.Symbol) error {
			if ends {
				end = endOf(end, chunk)
			}
			nests.Append(chunk)
			for f, out := range nests.Out {
				if len(out) > 0 {
					sink(f, out, nests.Kept[f])
				}
			}
			return nil
		})
		if err == nil {
			err = done(j, end)
		}
		return err
	})
}

func (c *Comparison) traceCount() int {
	n := 0
	for _, run := range c.Runs {
		n += len(run.Traces())
	}
	return n
}

func (c *Comparison) begin(what string, total int) {
	if c.opts.Progress != nil {
		c.opts.Progress.Begin(what, total)
	}
}

func (c *Comparison) step() {
	if c.opts.Progress != nil {
		c.opts.Progress.Step()
	}
}

func (c *Comparison) end() {
	if c.opts.Progress != nil {
		c.opts.Progress.End()
	}
}

// errFound ends a stream once what was looked for is found.
var errFound = errors.New("found")

// CallStack returns the calls open in trace id of run r when it makes its
// k-th call (counting from 0) that f keeps, outermost first, that call
// last: where a diffNLR's first difference lies in the program. It is nil
// when the trace makes fewer such calls. For a run opened from its summary,
// the run summarised is read when it is at hand; otherwise the error wraps
// decode.ErrNoEvents.
func (c *Comparison) CallStack(r int, id trace.ID, f *filters.Filter, k uint64) ([]trace.Symbol, error) {
	run := c.eventsOf(r)
	if run == nil {
		return nil, fmt.Errorf("%s: %w, and the run it summarises is not at %s from here (work in the directory summarize ran in, or give the runs themselves)", c.sums[r].s.Dir, decode.ErrNoEvents, c.sums[r].s.Run.Dir)
	}
	mask := f.Compile(c.Symbols)
	var stack, found []trace.Symbol
	var n uint64
	err := run.Stream(id, func(chunk []trace.Symbol) error {
		for _, s := range chunk {
			if s == trace.Return {
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
				continue
			}
			stack = append(stack, s)
			if mask.Keep(s) {
				if n == k {
					found = slices.Clone(stack)
					return errFound
				}
				n++
			}
		}
		return nil
	})
	if err != nil && err != errFound {
		return nil, err
	}
	return found, nil
}

// UnfoldedNotes says when a thread of id repeats, under n, a flat block
// longer than K that NLR leaves unrolled (nlr.Unfolded), and which K folds
// it. Sequences longer than 50,000 elements are not looked at.
func (n *NLR) UnfoldedNotes(id trace.ID) []string {
	const maxCheck, maxBody = 50_000, 400
	var out []string
	for _, i := range n.c.IndexesOf(id) {
		t := n.c.IDs[i]
		b := 0
		for r := range n.c.Runs {
			if s := n.Seq(r, i); len(s) <= maxCheck {
				if u := nlr.Unfolded(s, n.K, maxBody); u > 0 && (b == 0 || u < b) {
					b = u
				}
			}
		}
		if b > 0 {
			out = append(out, fmt.Sprintf("trace %s repeats a block of %d elements that K %d leaves unrolled under filter %s; --k %d folds it", t, b, n.K, n.Filter.Name(), b))
		}
	}
	return out
}
