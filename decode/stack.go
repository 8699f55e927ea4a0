package decode

import (
	"errors"
	"fmt"

	"github.com/difftrace/difftrace/trace"
)

// Event is one event of a trace placed in its call stack: the material of
// the full call/return listing (seeds/003 §4.1, item 4).
type Event struct {
	Index uint64 // position in the trace, from 0
	// Func is the function entered, or for an exit the function left
	// (trace.Return when the exit closes no open call).
	Func  trace.Symbol
	Exit  bool
	Depth int // depth of the frame entered or left; the outermost is 0
}

// Frame is one open call of a call stack.
type Frame struct {
	Func  trace.Symbol
	Event uint64 // index of the event that entered it
}

// CallStack follows the call stack through a trace's events, one at a time:
// the approximate call stack of seeds/003 §4.1 (item 3) at every point. The
// zero value is an empty stack at the start of a trace.
type CallStack struct {
	frames    []Frame
	n         uint64
	unmatched uint64
}

// Step advances the stack by the next event of the trace and describes it.
// An exit with no open call (the trace began inside a call, or the stream is
// damaged) is counted in Unmatched and reported at depth 0.
func (c *CallStack) Step(s trace.Symbol) Event {
	e := Event{Index: c.n, Func: s}
	c.n++
	if s != trace.Return {
		e.Depth = len(c.frames)
		c.frames = append(c.frames, Frame{Func: s, Event: e.Index})
		return e
	}
	e.Exit = true
	if len(c.frames) == 0 {
		c.unmatched++
		return e
	}
	top := c.frames[len(c.frames)-1]
	c.frames = c.frames[:len(c.frames)-1]
	e.Func = top.Func
	e.Depth = len(c.frames)
	return e
}

// Frames returns the open calls, outermost first. The slice is valid until
// the next Step.
func (c *CallStack) Frames() []Frame { return c.frames }

// Depth returns the number of open calls.
func (c *CallStack) Depth() int { return len(c.frames) }

// Events returns the number of events stepped through.
func (c *CallStack) Events() uint64 { return c.n }

// Unmatched returns the number of exits that closed no open call.
func (c *CallStack) Unmatched() uint64 { return c.unmatched }

// Walk streams trace id and calls fn for each event with its place in the
// call stack, in order.
func (r *Run) Walk(id trace.ID, fn func(Event) error) error {
	var cs CallStack
	return r.Stream(id, func(chunk []trace.Symbol) error {
		for _, s := range chunk {
			if err := fn(cs.Step(s)); err != nil {
				return err
			}
		}
		return nil
	})
}

// errStop ends a stream early once the wanted event is reached.
var errStop = errors.New("stop")

// StackAt returns event n of trace id (counting from 0) and the call stack
// while it happens: the open calls, outermost first, ending with the
// function entered by an entry or left by an exit. It decodes only up to
// event n.
func (r *Run) StackAt(id trace.ID, n uint64) (Event, []Frame, error) {
	var (
		cs     CallStack
		ev     Event
		frames []Frame
		found  bool
	)
	err := r.Stream(id, func(chunk []trace.Symbol) error {
		if cs.Events()+uint64(len(chunk)) <= n {
			for _, s := range chunk {
				cs.Step(s)
			}
			return nil
		}
		k := n - cs.Events()
		for _, s := range chunk[:k] {
			cs.Step(s)
		}
		s := chunk[k]
		if s == trace.Return {
			frames = append(frames, cs.Frames()...)
			ev = cs.Step(s)
		} else {
			ev = cs.Step(s)
			frames = append(frames, cs.Frames()...)
		}
		found = true
		return errStop
	})
	if err != nil && err != errStop {
		return Event{}, nil, err
	}
	if !found {
		t := r.byID[id]
		return Event{}, nil, fmt.Errorf("%s: event %d is past the end of trace %s, which has %d events (0 to %d)", t.Path, n, id, cs.Events(), int64(cs.Events())-1)
	}
	return ev, frames, nil
}
