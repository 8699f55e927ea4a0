package compare

import (
	"fmt"
	"github.com/difftrace/difftrace/internal/param"
	"slices"
	"sync"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/summary"
	"github.com/difftrace/difftrace/trace"
)

// summarized is a run opened from its summary (difftrace summarize): its
// traces are read from the summary, not decoded.
type summarized struct {
	s      *summary.Summary
	sym    []trace.Symbol // the summary's symbols in the comparison's table
	traces map[trace.ID]summarizedTrace

	once   sync.Once
	events *decode.Run // the run summarised, when at hand (eventsOf)
}

type summarizedTrace struct {
	t    *summary.Trace
	part *summary.Part
}

// openSummary opens the summary in dir as a run of c.
func (c *Comparison) openSummary(dir string) (*decode.Run, *summarized, error) {
	s, err := summary.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	if s.Grid.ExactPolling != c.opts.ExactPolling {
		with := map[bool]string{true: "with", false: "without"}
		return nil, nil, param.Advise("%s: the summary was made %s {exact polling}, and this analysis runs %s it; summarize the run again as you analyse it, or give the run itself",
			dir, with[s.Grid.ExactPolling], with[c.opts.ExactPolling])
	}
	run, sym, err := decode.FromHeader(s.Run, c.Symbols)
	if err != nil {
		return nil, nil, err
	}
	sm := &summarized{s: s, sym: sym, traces: map[trace.ID]summarizedTrace{}}
	for _, p := range s.Parts {
		for i := range p.Traces {
			sm.traces[p.Traces[i].ID] = summarizedTrace{&p.Traces[i], p}
		}
	}
	return run, sm, nil
}

// Summarized reports whether run r was opened from its summary.
func (c *Comparison) Summarized(r int) bool { return c.sums[r] != nil }

// passOne gives the pass-1 NLRs of summarised run r's traces under fs × ks,
// as decoding them would (Comparison.passOne).
func (sm *summarized) passOne(c *Comparison, r int, fs []*filters.Filter, ks []int) (*passOne, error) {
	where := make([]int, len(fs)*len(ks))
	fi := make([]int, len(fs))
	for f, flt := range fs {
		for k, K := range ks {
			fx, cx, err := sm.s.Where(flt.Name(), K)
			if err != nil {
				return nil, err
			}
			fi[f], where[f*len(ks)+k] = fx, cx
		}
	}
	p := &passOne{of: make([][]int32, len(c.IDs)), kept: make([][]uint64, len(c.IDs)), dir: sm.s.Dir, sym: func(s trace.Symbol) (trace.Symbol, bool) {
		if int(s) >= len(sm.sym) {
			return 0, false
		}
		return sm.sym[s], true
	}}
	// A pass-1 NLR found in several parts is one class, as reading the
	// run makes it: each distinct one is then folded once (Recognize),
	// whatever the number of parts.
	index := map[string]int32{}
	global := map[*summary.Part][]int32{} // a part's class → the run's
	for _, part := range sm.s.Parts {
		g := make([]int32, len(part.Classes))
		for x, b := range part.Classes {
			y, ok := index[string(b)]
			if !ok {
				y = int32(len(p.classes))
				index[string(b)] = y
				p.classes = append(p.classes, b)
			}
			g[x] = y
		}
		global[part] = g
	}
	for _, id := range c.Runs[r].Traces() {
		st := sm.traces[id]
		i, _ := c.Index(id)
		of := make([]int32, len(where))
		g := global[st.part]
		for x, cx := range where {
			of[x] = g[st.t.Classes[cx]]
		}
		kept := make([]uint64, len(fs))
		for f := range fs {
			kept[f] = st.t.Kept[fi[f]]
		}
		p.of[i], p.kept[i] = of, kept
		c.step()
	}
	return p, nil
}

// EndStack returns the call stack trace id of run r ended in, outermost
// first: from the summary, or by reading the trace.
func (c *Comparison) EndStack(r int, id trace.ID) ([]trace.Symbol, error) {
	if sm := c.sums[r]; sm != nil {
		st, ok := sm.traces[id]
		if !ok {
			return nil, fmt.Errorf("%s: no trace %s in the summary", sm.s.Dir, id)
		}
		out := make([]trace.Symbol, len(st.t.End))
		for j, s := range st.t.End {
			out[j] = sm.sym[s]
		}
		return out, nil
	}
	var st []trace.Symbol
	err := c.Runs[r].Stream(id, func(chunk []trace.Symbol) error {
		st = endOf(st, chunk)
		return nil
	})
	return st, err
}

// endOf follows the call stack through chunk.
func endOf(st, chunk []trace.Symbol) []trace.Symbol {
	for _, s := range chunk {
		if s == trace.Return {
			if len(st) > 0 {
				st = st[:len(st)-1]
			}
		} else {
			st = append(st, s)
		}
	}
	return st
}

// OpenPart opens part index of of the run in dir for Summarize, as one of
// of processes that summarise it together: only that part's processes are
// read (decode.Options.Part), so each process's work grows with its share
// of the run, not with the run. A run of another layout than this
// project's is opened whole, and Summarize takes its share of the traces.
func OpenPart(dir string, index, of int, opts Options) (*Comparison, error) {
	if of < 1 || index < 0 || index >= of {
		return nil, fmt.Errorf("rank: part %d of %d cannot be", index, of)
	}
	if summary.Is(dir) {
		return nil, fmt.Errorf("%s: is a summary already; give the run directory", dir)
	}
	if err := opts.wait(dir); err != nil {
		return nil, err
	}
	c := &Comparison{Symbols: trace.NewTable(), opts: opts}
	c.Symbols.ShowSignatures(opts.ShowSignatures)
	dopts := decode.Options{MaxEvents: opts.MaxEvents, Workers: opts.Workers, MixedPrograms: opts.MixedPrograms, Part: index, Parts: of}
	run, err := decode.Open(dir, c.Symbols, dopts)
	if err != nil {
		return nil, err
	}
	c.Runs, c.sums, c.IDs = []*decode.Run{run}, []*summarized{nil}, run.Traces()
	c.has = [][]bool{make([]bool, len(c.IDs))}
	for i := range c.IDs {
		c.has[0][i] = true
	}
	return c, nil
}

// Summarize reads share index of of the traces of run r and returns their
// summary under fs × ks: what Recognize and the hang analysis read of each,
// with identical pass-1 NLRs stored once, and what the run says about
// them. The share is the part of the run OpenPart opened, or, of a run
// opened whole, the traces index*n/of to (index+1)*n/of−1 of its n, in run
// order. Part 0 also holds the run's manifest.
func (c *Comparison) Summarize(r int, fs []*filters.Filter, ks []int, index, of int) (*summary.Part, error) {
	if of < 1 || index < 0 || index >= of {
		return nil, fmt.Errorf("rank: part %d of %d cannot be", index, of)
	}
	if c.sums[r] != nil {
		return nil, fmt.Errorf("%s: is a summary already; summarize the run itself", c.Runs[r].Dir)
	}
	run := c.Runs[r]
	all := run.Traces()
	ids := all
	switch part, parts := run.Part(); {
	case parts == 1:
		ids = all[index*len(all)/of : (index+1)*len(all)/of]
	case part != index || parts != of:
		return nil, fmt.Errorf("%s: part %d of %d of the run was opened, not part %d of %d", run.Dir, part, parts, index, of)
	}
	p := &summary.Part{Index: index, Of: of, Grid: summary.Grid{Ks: slices.Clone(ks), ExactPolling: c.opts.ExactPolling}}
	for _, f := range fs {
		p.Grid.Filters = append(p.Grid.Filters, f.Name())
	}
	masks := c.compile(fs)
	newDiscoverers := c.discoverers(fs, ks, masks)
	p.Traces = make([]summary.Trace, len(ids))
	// Identical pass-1 NLRs are kept once as the traces end (memory grows
	// with the distinct ones, not with the traces), numbered as they come,
	// then in trace order, so the part does not depend on scheduling.
	var mu sync.Mutex
	seen := map[string]int32{}
	var found [][]byte
	dsOf := make([][]*nlr.Discoverer, len(ids))
	nk := len(ks)
	c.begin("summarising traces", len(ids))
	err := c.stream(r, ids, masks, true, func(j int) func(f int, events []trace.Symbol, calls int) {
		ds := newDiscoverers()
		dsOf[j] = ds
		kept := make([]uint64, len(fs))
		p.Traces[j] = summary.Trace{ID: ids[j], Kept: kept}
		return func(f int, events []trace.Symbol, calls int) {
			kept[f] += uint64(calls)
			for k := range nk {
				ds[f*nk+k].PushEvents(events)
			}
		}
	}, func(j int, end []trace.Symbol) error {
		p.Traces[j].End = end
		xs := make([]int32, 0, len(dsOf[j]))
		var b []byte
		for _, d := range dsOf[j] {
			d.Seal()
			var err error
			if b, err = d.AppendBinary(b[:0]); err != nil {
				return err
			}
			mu.Lock()
			x, ok := seen[string(b)]
			if !ok {
				x = int32(len(found))
				found = append(found, slices.Clone(b))
				seen[string(found[x])] = x
			}
			mu.Unlock()
			xs = append(xs, x)
		}
		p.Traces[j].Classes = xs
		dsOf[j] = nil
		c.step()
		return nil
	})
	c.end()
	if err != nil {
		return nil, err
	}
	renumber := make([]int32, len(found))
	for i := range renumber {
		renumber[i] = -1
	}
	for j := range p.Traces {
		for k, x := range p.Traces[j].Classes {
			if renumber[x] < 0 {
				renumber[x] = int32(len(p.Classes))
				p.Classes = append(p.Classes, found[x])
			}
			p.Traces[j].Classes[k] = renumber[x]
		}
	}
	h := run.Header()
	p.Names, p.NamesSum = len(h.Names), summary.NamesSum(h.Names)
	for j := range p.Traces {
		p.Traces[j].Note = h.TraceNotes[ids[j]]
	}
	h.TraceNotes = nil // each trace keeps its note
	if index > 0 {
		h.Manifest = nil // part 0 holds it
	}
	if _, parts := run.Part(); parts == 1 && of > 1 {
		// The run was read whole: the part tells of its traces' processes
		// and threads, and part 0 keeps the run's notes.
		h.Procs = headerOf(h.Procs, ids, index == 0)
		if index > 0 {
			h.Notes = nil
		}
	}
	p.Run = h
	return p, nil
}

// headerOf returns the processes of procs with only the threads of ids,
// those without any left out, unless withEmpty and they had none in the
// first place (a function table without trace files).
func headerOf(procs []decode.HeaderProcess, ids []trace.ID, withEmpty bool) []decode.HeaderProcess {
	want := make(map[trace.ID]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	var out []decode.HeaderProcess
	for _, hp := range procs {
		var ts []decode.HeaderTrace
		for _, ht := range hp.Threads {
			if want[trace.ID{Proc: hp.Index, Thread: ht.Thread}] {
				ts = append(ts, ht)
			}
		}
		if len(ts) > 0 || withEmpty && len(hp.Threads) == 0 {
			hp.Threads = ts
			out = append(out, hp)
		}
	}
	return out
}

// eventsOf returns the run whose events stand for run r's: r itself, or for
// a summary, the run it summarises when that directory is still where
// summarize read it and holds the same traces. It is nil when there is
// none.
func (c *Comparison) eventsOf(r int) *decode.Run {
	sm := c.sums[r]
	if sm == nil {
		return c.Runs[r]
	}
	sm.once.Do(func() {
		run, err := decode.Open(sm.s.Run.Dir, c.Symbols, decode.Options{MaxEvents: c.opts.MaxEvents, Workers: c.opts.Workers, MixedPrograms: c.opts.MixedPrograms})
		if err != nil || !slices.Equal(run.Traces(), c.Runs[r].Traces()) {
			return
		}
		for _, id := range run.Traces() {
			a, _ := run.Trace(id)
			b, _ := c.Runs[r].Trace(id)
			if a.Bytes != b.Bytes {
				return
			}
		}
		sm.events = run
	})
	return sm.events
}
