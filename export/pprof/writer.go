package pprof

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"sync"

	"github.com/google/pprof/profile"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/trace"
)

// The sample types of a profile, each with unit "count".
const (
	Calls  = "calls"
	Events = "events"
)

// The numeric labels of a sample.
const (
	RankLabel   = "rank"
	ThreadLabel = "thread"
)

// Options tune a Writer.
type Options struct {
	// Names names the functions (see the package comment). A *decode.Run
	// gives the program's image its file name.
	Names decode.Namer
	// Keep, when set, chooses the calls that make call paths (a compiled
	// filter's Keep); nil keeps every call.
	Keep func(trace.Symbol) bool
	// Program is the file name of the traced program's image (what
	// decode.Run.ProgramName returns): its mapping comes first, which
	// pprof takes for the main binary and names in its reports.
	Program string
	// Comments are added to the profile's comments, after its own.
	Comments []string
	// Uncompressed writes the profile without gzip (pprof reads either).
	Uncompressed bool
	// Progress, when set, is called each time AddRun has counted a trace,
	// from any goroutine: for a progress bar.
	Progress func()
}

// Writer counts the call paths of traces and writes them as one profile
// at Close. It holds, per trace, one counter per distinct call path, never
// the events.
type Writer struct {
	w    io.Writer
	opts Options

	mu     sync.Mutex
	traces []*Trace // closed
	closed bool
}

// NewWriter returns a Writer whose profile Close writes to w.
func NewWriter(w io.Writer, opts Options) *Writer {
	return &Writer{w: w, opts: opts}
}

// errClosed is returned after Close.
var errClosed = errors.New("pprof: write after Close")

// node is one call path of a trace: its innermost call and the path of
// its caller.
type node struct {
	parent int32 // 0 is the root, the empty path
	s      trace.Symbol
	calls  int64
	events int64
}

// Trace counts the call paths of one thread's trace. Traces of one Writer
// may be written on different goroutines; one Trace is not safe for
// concurrent use.
type Trace struct {
	w        *Writer
	id       trace.ID
	keep     func(trace.Symbol) bool
	nodes    []node
	children map[uint64]int32 // parent<<32 | symbol → node
	open     []int32          // per open call, the innermost kept path before it
	top      int32            // the innermost kept path now
	closed   bool
}

// Trace starts counting the trace id: id.Proc is its rank label,
// id.Thread its thread label.
func (w *Writer) Trace(id trace.ID) *Trace {
	return &Trace{w: w, id: id, keep: w.opts.Keep, nodes: make([]node, 1, 64), children: map[uint64]int32{}}
}

// Write counts the next events of the trace: a function's symbol at each
// entry, trace.Return at each exit. An exit that closes no open call is
// passed over. chunk is not retained, so Write fits decode.Run.Stream.
func (t *Trace) Write(chunk []trace.Symbol) error {
	if t.closed {
		return errClosed
	}
	top, keep := t.top, t.keep
	for _, s := range chunk {
		if s != trace.Return {
			t.open = append(t.open, top)
			if keep == nil || keep(s) {
				key := uint64(top)<<32 | uint64(s)
				c, ok := t.children[key]
				if !ok {
					c = int32(len(t.nodes))
					t.nodes = append(t.nodes, node{parent: top, s: s})
					t.children[key] = c
				}
				t.nodes[c].calls++
				top = c
			}
		} else if k := len(t.open) - 1; k >= 0 {
			top = t.open[k]
			t.open = t.open[:k]
		}
		// The tick from this event to the next belongs to the innermost
		// path shown.
		t.nodes[top].events++
	}
	t.top = top
	return nil
}

// Close ends the trace and hands its counts to the Writer. Calls still
// open count their events up to the trace's end.
func (t *Trace) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	t.children, t.open = nil, nil
	w := t.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errClosed
	}
	w.traces = append(w.traces, t)
	return nil
}

// Profile returns the profile of the traces closed so far: traces by
// process then thread, each trace's paths in the order they were first
// entered, functions in symbol order, so the same traces give the same
// profile.
func (w *Writer) Profile() *profile.Profile {
	w.mu.Lock()
	traces := slices.Clone(w.traces)
	w.mu.Unlock()
	slices.SortFunc(traces, func(a, b *Trace) int {
		return cmp.Or(cmp.Compare(a.id.Proc, b.id.Proc), cmp.Compare(a.id.Thread, b.id.Thread))
	})
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: Calls, Unit: "count"},
			{Type: Events, Unit: "count"},
		},
		DefaultSampleType: Calls,
		Comments: append([]string{
			"difftrace call paths: calls = times the call path was entered; events = event ticks with it the innermost call shown (cum: events from entry to exit)",
		}, w.opts.Comments...),
	}
	// One Function and one Location per function, in symbol order.
	var used []trace.Symbol
	seen := map[trace.Symbol]bool{}
	for _, t := range traces {
		for _, n := range t.nodes[1:] {
			if !seen[n.s] {
				seen[n.s] = true
				used = append(used, n.s)
			}
		}
	}
	slices.Sort(used)
	locs := make(map[trace.Symbol]*profile.Location, len(used))
	maps := map[string]*profile.Mapping{}
	if w.opts.Program != "" {
		maps[w.opts.Program] = &profile.Mapping{ID: 1, File: w.opts.Program, HasFunctions: true}
		p.Mapping = append(p.Mapping, maps[w.opts.Program])
	}
	for i, s := range used {
		f := &profile.Function{ID: uint64(i + 1), Name: fmt.Sprint("function ", s)}
		if w.opts.Names != nil {
			n := w.opts.Names.Name(s)
			f.Name = w.opts.Names.Label(s)
			f.SystemName = n.Symbol()
			if n.Image != "" {
				f.Filename = path.Base(n.Image)
			}
		}
		// A mapping per image, its functions named already: nothing
		// for pprof to look up in binaries.
		m := maps[f.Filename]
		if m == nil {
			m = &profile.Mapping{ID: uint64(len(p.Mapping) + 1), File: f.Filename, HasFunctions: true}
			maps[f.Filename] = m
			p.Mapping = append(p.Mapping, m)
		}
		l := &profile.Location{ID: f.ID, Mapping: m, Line: []profile.Line{{Function: f}}}
		p.Function = append(p.Function, f)
		p.Location = append(p.Location, l)
		locs[s] = l
	}
	for _, t := range traces {
		labels := map[string][]int64{RankLabel: {int64(t.id.Proc)}, ThreadLabel: {int64(t.id.Thread)}}
		units := map[string][]string{RankLabel: {"count"}, ThreadLabel: {"count"}}
		for i := 1; i < len(t.nodes); i++ {
			n := t.nodes[i]
			var stack []*profile.Location
			for j := int32(i); j != 0; j = t.nodes[j].parent {
				stack = append(stack, locs[t.nodes[j].s])
			}
			p.Sample = append(p.Sample, &profile.Sample{
				Location: stack,
				Value:    []int64{n.calls, n.events},
				NumLabel: labels,
				NumUnit:  units,
			})
		}
	}
	return p
}

// Close writes the profile of every trace closed (Profile) to w, gzipped
// unless Options.Uncompressed. It does not close w.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return errClosed
	}
	w.mu.Unlock()
	p := w.Profile()
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	write := p.Write
	if w.opts.Uncompressed {
		write = p.WriteUncompressed
	}
	if err := write(w.w); err != nil {
		return fmt.Errorf("pprof: writing the profile: %w", err)
	}
	return nil
}

// AddRun counts the traces ids of run into w, decoding them on all cores.
func AddRun(w *Writer, run *decode.Run, ids []trace.ID) error {
	return run.ForEach(ids, func(_ int, id trace.ID) error {
		t := w.Trace(id)
		if err := run.Stream(id, t.Write); err != nil {
			return fmt.Errorf("%s: trace %s: %w", run.Dir, id, err)
		}
		if err := t.Close(); err != nil {
			return err
		}
		if w.opts.Progress != nil {
			w.opts.Progress()
		}
		return nil
	})
}

// WriteRun writes the profile of traces ids of run to w: a Writer, AddRun
// and Close. Functions and the program are named as run names them unless
// opts names them otherwise.
func WriteRun(w io.Writer, run *decode.Run, ids []trace.ID, opts Options) error {
	if opts.Names == nil {
		opts.Names = run
	}
	if opts.Program == "" {
		opts.Program = run.ProgramName()
	}
	pw := NewWriter(w, opts)
	if err := AddRun(pw, run, ids); err != nil {
		return err
	}
	return pw.Close()
}
