package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/trace"
)

// Listing is what "difftrace decode" prints of traces: every call and
// return, in order. Its text is a tree (one line per event, indented by
// call depth, "> f" entering f and "< f" leaving it, and the calls still
// open where a trace ends) or, with Flat, tab-separated columns (trace,
// event, depth, call|return, image, function); its JSON is JSON Lines, an
// object per event. Names are escaped in the text (trace.Printable) and
// kept exactly in JSON.
//
// A listing holds the run, not its events: the traces are decoded as they
// are written, so a run larger than memory is listed too.
type Listing struct {
	Run    *decode.Run
	Traces []trace.ID
	Flat   bool
}

func (*Listing) defaultFormat() Format { return Text }
func (*Listing) name() string          { return "the listing" }

func (d *Listing) writeText(w io.Writer, _ Options) error {
	form := "tree"
	if d.Flat {
		form = "flat"
	}
	return d.write(w, form)
}

func (d *Listing) writeJSON(w io.Writer, _ Options) error { return d.write(w, "json") }

// write lists the traces in form: tree, flat or json. It returns the
// first error decoding a trace or writing to w.
func (d *Listing) write(w io.Writer, form string) error {
	l := &lister{w: w, tab: d.Run, form: form, json: map[trace.Symbol]string{}, names: map[trace.Symbol]string{}, flat: map[trace.Symbol]string{}}
	for _, id := range d.Traces {
		t, ok := d.Run.Trace(id)
		if !ok {
			return fmt.Errorf("report: listing: %s holds no trace %s", d.Run.Dir, id)
		}
		l.begin(id, t)
		if err := d.Run.Walk(id, l.event); err != nil {
			return err
		}
		l.end()
		if l.err != nil {
			return l.err
		}
	}
	return nil
}

// lister writes the call/return listing of traces in one form, a line at
// a time, each name escaped (or encoded) once.
type lister struct {
	w      io.Writer
	tab    decode.Namer
	form   string
	id     string
	open   []trace.Symbol // the calls open so far, for the end-of-trace note
	json   map[trace.Symbol]string
	names  map[trace.Symbol]string
	flat   map[trace.Symbol]string
	line   []byte
	err    error
	events uint64
}

func (l *lister) begin(id trace.ID, t *decode.TraceFile) {
	l.id = id.String()
	l.open = l.open[:0]
	l.events = 0
	if l.form == "tree" {
		p := t.Proc
		who := fmt.Sprintf("process %d", p.Index)
		if p.PID != 0 {
			who += fmt.Sprintf(", pid %d", p.PID)
		}
		l.write(fmt.Appendf(nil, "== trace %s (%s): %s\n", l.id, who, trace.Printable(t.Path)))
	}
}

// name is "image:function" for listings, escaped (trace.Printable: names
// are anyone's to write); "?" for an exit with no open call.
func (l *lister) name(s trace.Symbol) string {
	if s == trace.Return {
		return "?"
	}
	if n, ok := l.names[s]; ok {
		return n
	}
	n := trace.Printable(l.tab.Name(s).Qualify(l.tab.Label(s)))
	l.names[s] = n
	return n
}

func (l *lister) event(e decode.Event) error {
	l.events++
	if e.Exit {
		if len(l.open) > 0 {
			l.open = l.open[:len(l.open)-1]
		}
	} else {
		l.open = append(l.open, e.Func)
	}
	b := l.line[:0]
	kind := "call"
	if e.Exit {
		kind = "return"
	}
	switch l.form {
	case "tree":
		b = appendPadded(b, e.Index, 8)
		b = append(b, ' ', ' ')
		for range e.Depth {
			b = append(b, ' ', ' ')
		}
		if e.Exit {
			b = append(b, "< "...)
		} else {
			b = append(b, "> "...)
		}
		b = append(b, l.name(e.Func)...)
	case "flat":
		n := trace.Name{}
		if e.Func != trace.Return {
			n = l.tab.Name(e.Func)
		}
		b = append(b, l.id...)
		b = append(b, '\t')
		b = strconv.AppendUint(b, e.Index, 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(e.Depth), 10)
		b = append(b, '\t')
		b = append(b, kind...)
		b = append(b, '\t')
		b = append(b, trace.Printable(n.Image)...)
		b = append(b, '\t')
		if e.Func != trace.Return {
			b = append(b, l.flatName(e.Func)...)
		}
	case "json":
		b = append(b, `{"trace":"`...)
		b = append(b, l.id...)
		b = append(b, `","event":`...)
		b = strconv.AppendUint(b, e.Index, 10)
		b = append(b, `,"depth":`...)
		b = strconv.AppendInt(b, int64(e.Depth), 10)
		b = append(b, `,"kind":"`...)
		b = append(b, kind...)
		b = append(b, `",`...)
		b = append(b, l.jsonName(e.Func)...)
		b = append(b, '}')
	}
	b = append(b, '\n')
	l.line = b
	l.write(b)
	return l.err
}

// flatName is the function of s as the flat listing shows it, escaped.
func (l *lister) flatName(s trace.Symbol) string {
	if n, ok := l.flat[s]; ok {
		return n
	}
	n := trace.Printable(l.tab.Label(s))
	l.flat[s] = n
	return n
}

// appendPadded appends n right-aligned in width columns.
func appendPadded(b []byte, n uint64, width int) []byte {
	var tmp [20]byte
	d := strconv.AppendUint(tmp[:0], n, 10)
	for i := len(d); i < width; i++ {
		b = append(b, ' ')
	}
	return append(b, d...)
}

// jsonName returns the "image" and "func" members for s, encoded once.
func (l *lister) jsonName(s trace.Symbol) string {
	if j, ok := l.json[s]; ok {
		return j
	}
	var j string
	if s == trace.Return {
		j = `"image":null,"func":null`
	} else {
		n := l.tab.Name(s)
		img, _ := json.Marshal(n.Image)
		fn, _ := json.Marshal(n.Func)
		j = `"image":` + string(img) + `,"func":` + string(fn)
	}
	l.json[s] = j
	return j
}

func (l *lister) end() {
	if l.form != "tree" {
		return
	}
	if len(l.open) > 0 {
		names := make([]string, len(l.open))
		for i, s := range l.open {
			names[i] = l.name(s)
		}
		l.write(fmt.Appendf(nil, "          (trace ends inside %s: %s)\n", Count(uint64(len(l.open)), "open call"), strings.Join(names, " > ")))
	}
	l.write(fmt.Appendf(nil, "          (%s)\n\n", Count(l.events, "event")))
}

func (l *lister) write(b []byte) {
	if l.err == nil {
		_, l.err = l.w.Write(b)
	}
}

// Stack is the call stack of a trace at one event ("difftrace decode
// --stack-at"): the event, and the calls open while it happens, outermost
// first, each with the event that entered it.
type Stack struct {
	Trace string       `json:"trace"`
	Event uint64       `json:"event"`
	Kind  string       `json:"kind"` // call or return
	Depth int          `json:"depth"`
	Stack []StackFrame `json:"stack"`
	// Label is the event's function as the text shows it: "image:function",
	// "?" for an exit that closes no open call.
	Label string `json:"-"`
}

// StackFrame is one open call.
type StackFrame struct {
	Image string `json:"image"`
	Func  string `json:"func"`
	Event uint64 `json:"event"` // the event that entered it
	Label string `json:"-"`     // "image:function"
}

func (*Stack) defaultFormat() Format { return Text }
func (*Stack) name() string          { return "the call stack" }

// NewStack builds the Stack of trace id at event ev, whose open calls are
// frames (decode.Run.StackAt), naming functions as run does.
func NewStack(run *decode.Run, id trace.ID, ev decode.Event, frames []decode.Frame) *Stack {
	label := func(s trace.Symbol) string {
		if s == trace.Return {
			return "?"
		}
		return run.Name(s).Qualify(run.Label(s))
	}
	d := &Stack{Trace: id.String(), Event: ev.Index, Kind: "call", Depth: ev.Depth, Stack: []StackFrame{}, Label: label(ev.Func)}
	if ev.Exit {
		d.Kind = "return"
	}
	for _, fr := range frames {
		n := run.Name(fr.Func)
		d.Stack = append(d.Stack, StackFrame{Image: n.Image, Func: n.Func, Event: fr.Event, Label: label(fr.Func)})
	}
	return d
}

// writeText writes the event, then a line per open call, its depth first.
func (d *Stack) writeText(out io.Writer, _ Options) error {
	fmt.Fprintf(out, "trace %s, event %d: %s %s at depth %d\n", d.Trace, d.Event, d.Kind, trace.Printable(d.Label), d.Depth)
	if len(d.Stack) == 0 {
		fmt.Fprintln(out, "call stack: empty (an exit with no open call)")
	} else {
		fmt.Fprintln(out, "call stack, outermost first:")
	}
	w, nw := len(strconv.Itoa(len(d.Stack))), 0
	for _, fr := range d.Stack {
		nw = max(nw, len(trace.Printable(fr.Label)))
	}
	for i, fr := range d.Stack {
		fmt.Fprintf(out, "  %*d  %-*s  entered at event %d\n", w, i, nw, trace.Printable(fr.Label), fr.Event)
	}
	return nil
}
