package decode

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	"github.com/difftrace/difftrace/trace"
)

// Stats is what a trace, or a group of traces, did: call frequencies and
// caller→callee edge frequencies (seeds/003 §4.1, items 1 and 2), with the
// totals the info command reports.
type Stats struct {
	Traces    int
	Events    uint64 // entries and exits
	Calls     uint64 // entries
	Unmatched uint64 // exits that closed no open call
	// Open counts calls still open at the end: a thread killed inside them
	// (deadlock, crash, timeout). Summed over the traces.
	Open     uint64
	MaxDepth int
	Funcs    []FuncCount // calls per function, by symbol
	Edges    []EdgeCount // calls per caller→callee pair, by caller then callee; nil unless counted
}

// FuncCount is how often a function was called.
type FuncCount struct {
	Func  trace.Symbol
	Calls uint64
}

// EdgeCount is how often Caller called Callee. Caller is trace.Return for
// calls made with no open call (the outermost frames).
type EdgeCount struct {
	Caller, Callee trace.Symbol
	Calls          uint64
}

// Add merges o into s (sums counts, keeps the deepest depth).
func (s *Stats) Add(o *Stats) {
	s.Traces += o.Traces
	s.Events += o.Events
	s.Calls += o.Calls
	s.Unmatched += o.Unmatched
	s.Open += o.Open
	s.MaxDepth = max(s.MaxDepth, o.MaxDepth)
	s.Funcs = mergeCounts(s.Funcs, o.Funcs, func(a, b FuncCount) int { return cmp.Compare(a.Func, b.Func) },
		func(a, b FuncCount) FuncCount { a.Calls += b.Calls; return a })
	if o.Edges != nil || s.Edges != nil {
		s.Edges = mergeCounts(s.Edges, o.Edges, compareEdges,
			func(a, b EdgeCount) EdgeCount { a.Calls += b.Calls; return a })
		if s.Edges == nil {
			s.Edges = []EdgeCount{}
		}
	}
}

func compareEdges(a, b EdgeCount) int {
	if c := cmp.Compare(a.Caller, b.Caller); c != 0 {
		return c
	}
	return cmp.Compare(a.Callee, b.Callee)
}

// mergeCounts merges two lists sorted by cmpf, combining equal keys.
func mergeCounts[T any](a, b []T, cmpf func(T, T) int, add func(T, T) T) []T {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return append([]T(nil), b...)
	}
	out := make([]T, 0, max(len(a), len(b)))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := cmpf(a[i], b[j]); {
		case c < 0:
			out = append(out, a[i])
			i++
		case c > 0:
			out = append(out, b[j])
			j++
		default:
			out = append(out, add(a[i], b[j]))
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// ByCalls returns the function counts sorted by calls, most first, then by
// name: the order listings show.
func (s *Stats) ByCalls(t Namer) []FuncCount {
	out := slices.Clone(s.Funcs)
	slices.SortStableFunc(out, func(a, b FuncCount) int {
		if c := cmp.Compare(b.Calls, a.Calls); c != 0 {
			return c
		}
		return cmp.Compare(t.Name(a.Func).String(), t.Name(b.Func).String())
	})
	return out
}

// EdgesByCalls returns the edge counts sorted by calls, most first, then by
// caller and callee name.
func (s *Stats) EdgesByCalls(t Namer) []EdgeCount {
	out := slices.Clone(s.Edges)
	name := func(x trace.Symbol) string {
		if x == trace.Return {
			return ""
		}
		return t.Name(x).String()
	}
	slices.SortStableFunc(out, func(a, b EdgeCount) int {
		if c := cmp.Compare(b.Calls, a.Calls); c != 0 {
			return c
		}
		if c := cmp.Compare(name(a.Caller), name(b.Caller)); c != 0 {
			return c
		}
		return cmp.Compare(name(a.Callee), name(b.Callee))
	})
	return out
}

// Counter computes the Stats of a trace from its events, streamed in
// chunks. Reuse one Counter for many traces: Stats resets it.
type Counter struct {
	edges   bool
	calls   []uint64 // by symbol, grown on demand
	touched []trace.Symbol
	edgeN   map[uint64]*uint64 // caller<<32 | callee → count
	// A small direct-mapped cache in front of edgeN: a loop calls the same
	// few edges over and over, and a hit costs no map lookup.
	edgeCache [256]edgeSlot
	stack     []trace.Symbol
	st        Stats
}

type edgeSlot struct {
	key uint64
	n   *uint64
}

// NewCounter returns a Counter for symbols of a table of n symbols (it grows
// if more appear); edges asks for caller→callee counts as well.
func NewCounter(n int, edges bool) *Counter {
	c := &Counter{edges: edges, calls: make([]uint64, n)}
	if edges {
		c.edgeN = map[uint64]*uint64{}
	}
	return c
}

// Add counts the next events of the trace.
func (c *Counter) Add(chunk []trace.Symbol) {
	c.st.Events += uint64(len(chunk))
	stack := c.stack
	for _, s := range chunk {
		if s == trace.Return {
			if len(stack) == 0 {
				c.st.Unmatched++
				continue
			}
			stack = stack[:len(stack)-1]
			continue
		}
		if int(s) >= len(c.calls) {
			c.calls = append(c.calls, make([]uint64, int(s)+1-len(c.calls))...)
		}
		if c.calls[s] == 0 {
			c.touched = append(c.touched, s)
		}
		c.calls[s]++
		if c.edges {
			caller := trace.Return
			if len(stack) > 0 {
				caller = stack[len(stack)-1]
			}
			key := uint64(caller)<<32 | uint64(s)
			slot := &c.edgeCache[(uint32(caller)*97+uint32(s))&255]
			if slot.n == nil || slot.key != key {
				n := c.edgeN[key]
				if n == nil {
					n = new(uint64)
					c.edgeN[key] = n
				}
				slot.key, slot.n = key, n
			}
			*slot.n++
		}
		stack = append(stack, s)
		if len(stack) > c.st.MaxDepth {
			c.st.MaxDepth = len(stack)
		}
	}
	c.stack = stack
}

// Stats returns the counts of everything added since the last call, as the
// Stats of one trace, and resets the Counter.
func (c *Counter) Stats() *Stats {
	st := c.st
	st.Traces = 1
	st.Open = uint64(len(c.stack))
	slices.Sort(c.touched)
	st.Funcs = make([]FuncCount, len(c.touched))
	for i, s := range c.touched {
		st.Funcs[i] = FuncCount{s, c.calls[s]}
		st.Calls += c.calls[s]
		c.calls[s] = 0
	}
	if c.edges {
		st.Edges = make([]EdgeCount, 0, len(c.edgeN))
		for k, n := range c.edgeN {
			st.Edges = append(st.Edges, EdgeCount{trace.Symbol(k >> 32), trace.Symbol(uint32(k)), *n})
		}
		slices.SortFunc(st.Edges, compareEdges)
		clear(c.edgeN)
		c.edgeCache = [256]edgeSlot{}
	}
	c.touched = c.touched[:0]
	c.stack = c.stack[:0]
	c.st = Stats{}
	return &st
}

// Summarize computes the Stats of each trace, streaming them in parallel:
// memory grows with the distinct functions and edges, not with the events,
// so a run larger than memory can be summarised. edges asks for
// caller→callee counts. out[i] belongs to ids[i].
func (r *Run) Summarize(ids []trace.ID, edges bool) ([]*Stats, error) {
	out := make([]*Stats, len(ids))
	pool := sync.Pool{New: func() any { return NewCounter(r.Symbols.Len(), edges) }}
	err := r.ForEach(ids, func(i int, id trace.ID) error {
		c := pool.Get().(*Counter)
		defer pool.Put(c)
		err := r.Stream(id, func(chunk []trace.Symbol) error {
			c.Add(chunk)
			return nil
		})
		st := c.Stats()
		if err != nil {
			return err
		}
		out[i] = st
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Level is how traces are grouped for statistics.
type Level int

const (
	ByThread  Level = iota // each trace on its own
	ByProcess              // the threads of a process together
	ByProgram              // every trace of the run together
)

// ParseLevel reads "thread", "process" or "program".
func ParseLevel(s string) (Level, error) {
	switch s {
	case "thread":
		return ByThread, nil
	case "process":
		return ByProcess, nil
	case "program":
		return ByProgram, nil
	}
	return 0, fmt.Errorf("%q: want thread, process or program", s)
}

func (l Level) String() string {
	return [...]string{"thread", "process", "program"}[l]
}

// Group is the merged Stats of some traces.
type Group struct {
	Name  string     // "P.T" for a thread, "P" for a process, "program"
	Procs []trace.ID // the processes in the group (one unless ByProgram)
	Stats *Stats
}

// GroupStats merges per-trace stats (stats[i] belongs to ids[i], as
// Summarize returns them) at the given level, in trace order.
func GroupStats(ids []trace.ID, stats []*Stats, level Level) []Group {
	var groups []Group
	for i, id := range ids {
		var name string
		switch level {
		case ByThread:
			name = id.String()
		case ByProcess:
			name = id.Process().String()
		default:
			name = "program"
		}
		if n := len(groups); n == 0 || groups[n-1].Name != name {
			groups = append(groups, Group{Name: name, Stats: &Stats{}})
		}
		g := &groups[len(groups)-1]
		if p := id.Process(); len(g.Procs) == 0 || g.Procs[len(g.Procs)-1] != p {
			g.Procs = append(g.Procs, p)
		}
		g.Stats.Add(stats[i])
	}
	return groups
}
