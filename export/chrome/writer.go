package chrome

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/trace"
)

// DisplayTimeUnit is the unit chrome://tracing shows times in. With one
// event a microsecond, "ms" reads as thousands of events: 12.345 ms is
// event 12345.
const DisplayTimeUnit = "ms"

// Clock says in otherData what ts means.
const Clock = "ParLOT traces hold no timestamps: ts is the index of the event in its trace as recorded (each call entry and exit one microsecond tick, so 1 ms is 1000 events); every trace is a clock of its own"

// Unfinished says in otherData how calls still open at the end of a trace
// are shown.
const Unfinished = "calls still open when their trace ended (a hang, a crash, a kill) are closed one tick after the trace's last event, by E events with args.unfinished = true, beside an instant event naming how many were open"

// Options tune a Writer.
type Options struct {
	// Names names the functions: Label(s) is a slice's name, the file
	// name of Name(s).Image its category. A *decode.Run names the
	// program's functions by its file name; a *trace.Table as
	// "<program>".
	Names decode.Namer
	// Keep, when set, chooses the calls to show (a compiled filter's
	// Keep): a call it rejects leaves no slice, and the calls inside it
	// still do, at their own events' times. Nil shows every call.
	Keep func(trace.Symbol) bool
	// Metadata is added to the file's otherData, beside the Writer's own
	// keys (clock, unfinished, events, unfinished_slices, and what AddRun
	// and AddDiff add), which it cannot replace.
	Metadata map[string]any
	// Progress, when set, is called each time AddRun has written a trace
	// and each time Size has sized one, from any goroutine: for a
	// progress bar.
	Progress func()
}

// Scope is where an instant event is drawn.
type Scope string

// The scopes of instant events.
const (
	Global  Scope = "g" // across the whole timeline
	Process Scope = "p" // across one process's tracks
	Thread  Scope = "t" // on one track
)

// Instant is an instant event ("i"): a mark at one time.
type Instant struct {
	Name     string
	Scope    Scope
	PID, TID int
	TS       uint64
	Args     map[string]any // shown with the mark; nil for none
}

// Writer writes trace-event JSON to an io.Writer, one event at a time: it
// never holds more than a buffer of output and, per track, the calls open.
// A Writer is not safe for concurrent use; its tracks may be written in
// any interleaving.
type Writer struct {
	bw      *bufio.Writer
	opts    Options
	started bool
	closed  bool
	err     error
	events  uint64 // B and E events written
	open    uint64 // slices closed as unfinished
	names   []*symbol
	extra   map[string]any // otherData added while writing (AddDiff)
}

// symbol is the encoded start of a function's B and E events.
type symbol struct {
	begin, end []byte
}

// NewWriter returns a Writer that writes the trace-event JSON object to w.
// Nothing is written until the first event or Close; the object is
// complete only after Close.
func NewWriter(w io.Writer, opts Options) *Writer {
	return &Writer{bw: bufio.NewWriterSize(w, 256<<10), opts: opts}
}

// errClosed is returned by a Writer or a Track used after Close.
var errClosed = errors.New("chrome: write after Close")

// write appends b to the output, after the separator of the previous event.
func (w *Writer) write(b []byte) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errClosed
	}
	if !w.started {
		w.started = true
		w.bw.WriteString("{\"traceEvents\":[\n")
	} else {
		w.bw.WriteString(",\n")
	}
	if _, err := w.bw.Write(b); err != nil {
		w.err = fmt.Errorf("chrome: writing trace events: %w", err)
	}
	return w.err
}

// appendString appends s as a JSON string. Names come from traces, which
// anyone can write: encoding/json escapes quotes, control characters and
// invalid UTF-8.
func appendString(b []byte, s string) []byte {
	j, _ := json.Marshal(s) // a string always encodes
	return append(b, j...)
}

// sym returns the encoded starts of s's events.
func (w *Writer) sym(s trace.Symbol) *symbol {
	if int(s) >= len(w.names) {
		w.names = append(w.names, make([]*symbol, int(s)+1-len(w.names))...)
	}
	if e := w.names[s]; e != nil {
		return e
	}
	name, cat := "?", ""
	if w.opts.Names != nil {
		name = w.opts.Names.Label(s)
		cat = w.opts.Names.Name(s).Image
	}
	e := &symbol{}
	e.begin = appendString(append(e.begin, `{"name":`...), name)
	if cat != "" {
		e.begin = appendString(append(e.begin, `,"cat":`...), cat)
	}
	e.begin = append(e.begin, `,"ph":"B","ts":`...)
	e.end = appendString(append(e.end, `{"name":`...), name)
	e.end = append(e.end, `,"ph":"E","ts":`...)
	w.names[s] = e
	return e
}

// meta writes a metadata event.
func (w *Writer) meta(name string, pid, tid int, args map[string]any) error {
	b := appendString([]byte(`{"name":`), name)
	b = append(b, `,"ph":"M","ts":0`...)
	b = appendTrack(b, pid, tid)
	a, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("chrome: metadata %s: %w", name, err)
	}
	b = append(append(b, `,"args":`...), a...)
	return w.write(append(b, '}'))
}

// Process names process pid in the viewer and places it sort-th among the
// processes.
func (w *Writer) Process(pid int, name string, sort int) error {
	if err := w.meta("process_name", pid, 0, map[string]any{"name": name}); err != nil {
		return err
	}
	return w.meta("process_sort_index", pid, 0, map[string]any{"sort_index": sort})
}

// Thread names thread tid of process pid in the viewer; threads are shown
// in the order of their tids.
func (w *Writer) Thread(pid, tid int, name string) error {
	if err := w.meta("thread_name", pid, tid, map[string]any{"name": name}); err != nil {
		return err
	}
	return w.meta("thread_sort_index", pid, tid, map[string]any{"sort_index": tid})
}

// Instant writes an instant event.
func (w *Writer) Instant(in Instant) error {
	b := appendString([]byte(`{"name":`), in.Name)
	b = append(b, `,"ph":"i","s":"`...)
	b = append(b, in.Scope...)
	b = append(b, `","ts":`...)
	b = strconv.AppendUint(b, in.TS, 10)
	b = appendTrack(b, in.PID, in.TID)
	if in.Args != nil {
		a, err := json.Marshal(in.Args)
		if err != nil {
			return fmt.Errorf("chrome: instant %q: %w", in.Name, err)
		}
		b = append(append(b, `,"args":`...), a...)
	}
	return w.write(append(b, '}'))
}

// setMeta adds key to otherData.
func (w *Writer) setMeta(key string, v any) {
	if w.extra == nil {
		w.extra = map[string]any{}
	}
	w.extra[key] = v
}

// appendTrack appends the pid and tid members.
func appendTrack(b []byte, pid, tid int) []byte {
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	return strconv.AppendInt(b, int64(tid), 10)
}

// Close writes the end of traceEvents, displayTimeUnit and otherData, and
// flushes the output. It does not close the underlying io.Writer.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	if w.err != nil {
		w.closed = true
		return w.err
	}
	if !w.started {
		w.started = true
		w.bw.WriteString("{\"traceEvents\":[")
	}
	w.closed = true
	other := map[string]any{}
	for k, v := range w.opts.Metadata {
		other[k] = v
	}
	for k, v := range w.extra {
		other[k] = v
	}
	other["clock"] = Clock
	other["unfinished"] = Unfinished
	other["events"] = w.events
	other["unfinished_slices"] = w.open
	o, err := json.Marshal(other)
	if err != nil {
		w.err = fmt.Errorf("chrome: otherData: %w", err)
		return w.err
	}
	fmt.Fprintf(w.bw, "\n],\n\"displayTimeUnit\":%q,\n\"otherData\":%s}\n", DisplayTimeUnit, o)
	if err := w.bw.Flush(); err != nil {
		w.err = fmt.Errorf("chrome: writing trace events: %w", err)
	}
	return w.err
}

// Track is one thread's trace being written: its events in order, fed by
// Write, turned into nested slices.
type Track struct {
	w        *Writer
	pid, tid int
	offset   uint64
	suffix   []byte  // `,"pid":P,"tid":T}`
	open     []frame // the calls open, outermost first
	n        uint64  // events seen
	closed   bool
	line     []byte
}

// frame is an open call.
type frame struct {
	s    trace.Symbol
	kept bool
}

// Track starts the track of thread tid of process pid. Its events are at
// ts = offset + their index in the trace. Name the track with Process and
// Thread.
func (w *Writer) Track(pid, tid int, offset uint64) *Track {
	return &Track{w: w, pid: pid, tid: tid, offset: offset, suffix: append(appendTrack(nil, pid, tid), '}')}
}

// Write adds the next events of the trace: a function's symbol at each
// entry, trace.Return at each exit. An exit that closes no open call (the
// trace began inside one) is left out. chunk is not retained, so Write fits
// decode.Run.Stream as it is.
func (t *Track) Write(chunk []trace.Symbol) error {
	if t.closed {
		return errClosed
	}
	w := t.w
	keep := w.opts.Keep
	for _, s := range chunk {
		ts := t.offset + t.n
		t.n++
		var b []byte
		if s != trace.Return {
			kept := keep == nil || keep(s)
			t.open = append(t.open, frame{s, kept})
			if !kept {
				continue
			}
			b = w.sym(s).begin
		} else {
			k := len(t.open) - 1
			if k < 0 {
				continue
			}
			f := t.open[k]
			t.open = t.open[:k]
			if !f.kept {
				continue
			}
			b = w.sym(f.s).end
		}
		t.line = strconv.AppendUint(append(t.line[:0], b...), ts, 10)
		t.line = append(t.line, t.suffix...)
		if err := w.write(t.line); err != nil {
			return err
		}
		w.events++
	}
	return nil
}

// Events returns the number of events written to the track so far, the
// ones its filter hides included: the end of its timeline less offset.
func (t *Track) Events() uint64 { return t.n }

// Open returns the number of calls open (that the filter keeps).
func (t *Track) Open() int {
	n := 0
	for _, f := range t.open {
		if f.kept {
			n++
		}
	}
	return n
}

// Close ends the track. Slices of calls still open, innermost first, end
// one tick after the trace's last event, marked args.unfinished, and an
// instant event on the track there says how many there were.
func (t *Track) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	w := t.w
	open := t.Open()
	if open == 0 {
		return w.err
	}
	ts := t.offset + t.n
	msg := fmt.Sprintf("trace ends inside %d open calls", open)
	if open == 1 {
		msg = "trace ends inside 1 open call"
	}
	if err := w.Instant(Instant{Name: msg, Scope: Thread, PID: t.pid, TID: t.tid, TS: ts}); err != nil {
		return err
	}
	for i := len(t.open) - 1; i >= 0; i-- {
		f := t.open[i]
		if !f.kept {
			continue
		}
		b := strconv.AppendUint(append(t.line[:0], w.sym(f.s).end...), ts, 10)
		b = appendTrack(b, t.pid, t.tid)
		b = append(b, `,"args":{"unfinished":true}}`...)
		t.line = b
		if err := w.write(b); err != nil {
			return err
		}
		w.events++
		w.open++
	}
	t.open = t.open[:0]
	return w.err
}
