package decode

import (
	"errors"
	"fmt"
	"slices"

	"github.com/difftrace/difftrace/trace"
)

// Header is what a run says about itself without its events: the
// directory, the manifest, the processes and their trace files, the
// function names and the notes. A summary of the run (difftrace
// summarize) keeps it, so that the run can be analysed where its trace
// files are not read: FromHeader opens it again.
type Header struct {
	Dir      string
	Format   Format
	Manifest *Manifest
	Procs    []HeaderProcess
	// Names are the names of the run's symbol table, by symbol (Names[0]
	// stands for trace.Return); Functions, the symbols its function tables
	// name (Run.Functions).
	Names     []trace.Name
	Functions []trace.Symbol
	Notes     []string
	// TraceNotes are the notes reading the traces gave (TraceNotes), by
	// trace.
	TraceNotes map[trace.ID]string
}

// HeaderProcess is a Process of a Header; Rank indexes Manifest.Ranks, -1
// when the manifest has no record of the process.
type HeaderProcess struct {
	Index, PID int
	Host, Info string
	Funcs      int
	Program    string
	Rank       int
	Threads    []HeaderTrace
}

// HeaderTrace is a TraceFile of a Header.
type HeaderTrace struct {
	Thread int
	Path   string
	Bytes  int64
}

// ErrNoEvents is wrapped by the error of Stream on a run opened from a
// Header: its events are not at hand.
var ErrNoEvents = errors.New("a summary holds no events")

// Header returns what the run says about itself without its events,
// including the notes reading its traces gave so far (read them all
// first).
func (r *Run) Header() Header {
	h := Header{Dir: r.Dir, Format: r.Format, Manifest: r.Manifest, Notes: slices.Clone(r.Notes),
		Functions: slices.Clone(r.functions)}
	for s := range r.Symbols.Len() {
		h.Names = append(h.Names, r.Symbols.Name(trace.Symbol(s)))
	}
	rankAt := map[*Rank]int{}
	if r.Manifest != nil {
		for i := range r.Manifest.Ranks {
			rankAt[&r.Manifest.Ranks[i]] = i
		}
	}
	for _, p := range r.Procs {
		hp := HeaderProcess{Index: p.Index, PID: p.PID, Host: p.Host, Info: p.Info, Funcs: p.Funcs, Program: p.Program, Rank: -1}
		if i, ok := rankAt[p.Rank]; ok && p.Rank != nil {
			hp.Rank = i
		}
		for _, t := range p.Threads {
			hp.Threads = append(hp.Threads, HeaderTrace{Thread: t.ID.Thread, Path: t.Path, Bytes: t.Bytes})
		}
		h.Procs = append(h.Procs, hp)
	}
	r.endNotes.Lock()
	defer r.endNotes.Unlock()
	if len(r.endNotes.m) > 0 {
		h.TraceNotes = make(map[trace.ID]string, len(r.endNotes.m))
		for id, n := range r.endNotes.m {
			h.TraceNotes[id] = n
		}
	}
	return h
}

// FromHeader opens the run a Header describes, interning its names into
// symbols in the order of its table: a run opened so after another with the
// same table numbers its symbols as Open would have. It returns the run
// and, by the Header's symbol, the symbol in symbols. The run's traces have
// no events: Stream fails with ErrNoEvents.
func FromHeader(h Header, symbols *trace.Table) (*Run, []trace.Symbol, error) {
	if len(h.Names) == 0 || len(h.Procs) == 0 {
		return nil, nil, fmt.Errorf("%s: the summary's run has no names or no processes", h.Dir)
	}
	m := make([]trace.Symbol, len(h.Names))
	for s, n := range h.Names[1:] {
		m[s+1] = symbols.Intern(n)
	}
	r := &Run{Dir: h.Dir, Format: h.Format, Manifest: h.Manifest, Symbols: symbols, Notes: slices.Clone(h.Notes),
		byID: map[trace.ID]*TraceFile{}}
	r.opts.Workers = 1
	for _, f := range h.Functions {
		if int(f) >= len(m) {
			return nil, nil, fmt.Errorf("%s: the summary's run names function %d of %d", h.Dir, f, len(m))
		}
		r.functions = append(r.functions, m[f])
	}
	slices.Sort(r.functions)
	for _, hp := range h.Procs {
		p := &Process{Index: hp.Index, PID: hp.PID, Host: hp.Host, Info: hp.Info, Funcs: hp.Funcs, Program: hp.Program}
		if hp.Rank >= 0 {
			if h.Manifest == nil || hp.Rank >= len(h.Manifest.Ranks) {
				return nil, nil, fmt.Errorf("%s: the summary's process %d names rank record %d, which its manifest lacks", h.Dir, hp.Index, hp.Rank)
			}
			p.Rank = &h.Manifest.Ranks[hp.Rank]
		}
		for _, ht := range hp.Threads {
			t := &TraceFile{ID: trace.ID{Proc: hp.Index, Thread: ht.Thread}, Path: ht.Path, Bytes: ht.Bytes, Proc: p, src: noEvents{h.Dir}}
			if _, dup := r.byID[t.ID]; dup {
				return nil, nil, fmt.Errorf("%s: the summary lists trace %s twice", h.Dir, t.ID)
			}
			p.Threads = append(p.Threads, t)
			r.byID[t.ID] = t
		}
		r.Procs = append(r.Procs, p)
	}
	slices.SortFunc(r.Procs, func(a, b *Process) int { return a.Index - b.Index })
	for _, p := range r.Procs {
		slices.SortFunc(p.Threads, func(a, b *TraceFile) int { return a.ID.Thread - b.ID.Thread })
		for _, t := range p.Threads {
			r.order = append(r.order, t.ID)
		}
	}
	if len(h.TraceNotes) > 0 {
		r.endNotes.m = make(map[trace.ID]string, len(h.TraceNotes))
		for id, n := range h.TraceNotes {
			r.endNotes.m[id] = n
		}
	}
	r.progName = r.programName()
	return r, m, nil
}

// noEvents is the source of a trace of a run opened from its Header.
type noEvents struct{ dir string }

func (n noEvents) open(uint64) (symbolReader, error) {
	return nil, fmt.Errorf("%s was opened from its summary: %w; give the run directory itself for what needs its events", n.dir, ErrNoEvents)
}
