package chrome

import (
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/trace"
)

// Alignment places a normal and a faulty run's versions of one trace side
// by side: where their events first differ, and how far each is shifted
// so that the first differing events share one time.
//
// The first difference is the end of the longest common prefix of the two
// traces' events as the timeline shows them: the entries of the calls the
// filter keeps and their exits, each with its function. Not the place
// diffnlr names, which is read on folded loops and whole call trees: this
// is the first event where the two timelines stop being the same.
type Alignment struct {
	Trace trace.ID
	// Differ is false when the two traces have the same events (the ones
	// the filter keeps) throughout.
	Differ bool
	// Common is how many events the traces share before they part.
	Common uint64
	// Normal and Faulty are the indices, in each trace as recorded, of
	// its first event that differs: its length when it ended where the
	// other went on. When the traces do not differ, their lengths.
	Normal, Faulty uint64
	// At is the time of the first difference in the file: the larger of
	// Normal and Faulty. ShiftNormal and ShiftFaulty, added to each
	// trace's event indices, bring its first difference there.
	At                       uint64
	ShiftNormal, ShiftFaulty uint64
}

// event is an event the timeline shows: a kept call's entry or exit.
type event struct {
	s    trace.Symbol
	exit bool
	at   uint64 // index in the trace as recorded
}

// errStop ends a stream the consumer no longer reads.
var errStop = errors.New("chrome: stream no longer read")

// shown yields, in chunks, the events of trace id that a timeline filtered
// by keep shows, as Track.Write picks them; *n counts the events read,
// shown or not.
func shown(run *decode.Run, id trace.ID, keep func(trace.Symbol) bool, n *uint64) iter.Seq2[[]event, error] {
	return func(yield func([]event, error) bool) {
		var open []frame
		var out []event
		err := run.Stream(id, func(chunk []trace.Symbol) error {
			out = out[:0]
			for _, s := range chunk {
				at := *n
				*n++
				if s != trace.Return {
					kept := keep == nil || keep(s)
					open = append(open, frame{s, kept})
					if kept {
						out = append(out, event{s, false, at})
					}
					continue
				}
				k := len(open) - 1
				if k < 0 {
					continue
				}
				f := open[k]
				open = open[:k]
				if f.kept {
					out = append(out, event{f.s, true, at})
				}
			}
			if len(out) > 0 && !yield(out, nil) {
				return errStop
			}
			return nil
		})
		if err != nil && err != errStop {
			yield(nil, fmt.Errorf("%s: trace %s: %w", run.Dir, id, err))
		}
	}
}

// cursor reads a stream of shown events one at a time.
type cursor struct {
	next func() ([]event, error, bool)
	stop func()
	buf  []event
	pos  int
	n    uint64 // events read from the trace, shown or not
}

func newCursor(run *decode.Run, id trace.ID, keep func(trace.Symbol) bool) *cursor {
	c := &cursor{}
	c.next, c.stop = iter.Pull2(shown(run, id, keep, &c.n))
	return c
}

// peek returns the next event, ok false at the end of the trace.
func (c *cursor) peek() (e event, ok bool, err error) {
	for c.pos == len(c.buf) {
		buf, err, more := c.next()
		if err != nil {
			return event{}, false, err
		}
		if !more {
			return event{}, false, nil
		}
		c.buf, c.pos = buf, 0
	}
	return c.buf[c.pos], true, nil
}

// Align finds where trace id of the normal and the faulty run first
// differ, among the events a timeline filtered by keep (nil: every call)
// shows, and the shifts that put that place at one time. It streams the two
// traces side by side and stops at the first difference.
func Align(normal, faulty *decode.Run, id trace.ID, keep func(trace.Symbol) bool) (Alignment, error) {
	a := Alignment{Trace: id}
	cn, cf := newCursor(normal, id, keep), newCursor(faulty, id, keep)
	defer cn.stop()
	defer cf.stop()
	for {
		en, okn, err := cn.peek()
		if err != nil {
			return a, err
		}
		ef, okf, err := cf.peek()
		if err != nil {
			return a, err
		}
		if !okn && !okf {
			a.Normal, a.Faulty = cn.n, cf.n
			break
		}
		if !okn || !okf || en.s != ef.s || en.exit != ef.exit {
			a.Differ = true
			a.Normal, a.Faulty = cn.n, cf.n // the trace's length where it ended
			if okn {
				a.Normal = en.at
			}
			if okf {
				a.Faulty = ef.at
			}
			break
		}
		a.Common++
		cn.pos++
		cf.pos++
	}
	if a.Differ {
		a.At = max(a.Normal, a.Faulty)
		a.ShiftNormal, a.ShiftFaulty = a.At-a.Normal, a.At-a.Faulty
	}
	return a, nil
}

// The processes of a diff file.
const (
	normalPID = 1
	faultyPID = 2
)

// AddDiff adds the normal and the faulty run's versions of trace id to w
// as two processes, "normal rank P" (pid 1) and "faulty rank P" (pid 2),
// each thread a track (TID), aligned at their first difference (Align, under
// w's Keep) with an instant event "first difference" there: across the
// whole timeline for one thread, on both threads' tracks for each thread
// of a process. id is a thread (P.T) or a process (P: every thread it has
// in either run; a thread only one run has is shown unshifted). The
// alignments are returned and written into otherData.
func AddDiff(w *Writer, normal, faulty *decode.Run, id trace.ID) ([]Alignment, error) {
	ids, err := diffTraces(normal, faulty, id)
	if err != nil {
		return nil, err
	}
	if err := w.Process(normalPID, "normal "+ProcessName(normal, id.Proc), 0); err != nil {
		return nil, err
	}
	if err := w.Process(faultyPID, "faulty "+ProcessName(faulty, id.Proc), 1); err != nil {
		return nil, err
	}
	var aligned []Alignment
	var firsts []map[string]any
	for _, t := range ids {
		_, inN := normal.Trace(t)
		_, inF := faulty.Trace(t)
		a := Alignment{Trace: t}
		if inN && inF {
			if a, err = Align(normal, faulty, t, w.opts.Keep); err != nil {
				return nil, err
			}
			aligned = append(aligned, a)
		}
		if inN {
			if err := addTrace(w, normal, t, normalPID, a.ShiftNormal); err != nil {
				return nil, fmt.Errorf("%s: %w", normal.Dir, err)
			}
		}
		if inF {
			if err := addTrace(w, faulty, t, faultyPID, a.ShiftFaulty); err != nil {
				return nil, fmt.Errorf("%s: %w", faulty.Dir, err)
			}
		}
		if !a.Differ {
			continue
		}
		args := map[string]any{
			"trace":         t.String(),
			"common events": a.Common,
			"normal event":  a.Normal,
			"faulty event":  a.Faulty,
		}
		firsts = append(firsts, map[string]any{"trace": t.String(), "ts": a.At, "common_events": a.Common,
			"normal_event": a.Normal, "faulty_event": a.Faulty, "normal_shift": a.ShiftNormal, "faulty_shift": a.ShiftFaulty})
		if len(ids) == 1 {
			err = w.Instant(Instant{Name: "first difference", Scope: Global, PID: normalPID, TID: TID(t.Thread), TS: a.At, Args: args})
		} else {
			for _, pid := range []int{normalPID, faultyPID} {
				if err = w.Instant(Instant{Name: "first difference", Scope: Thread, PID: pid, TID: TID(t.Thread), TS: a.At, Args: args}); err != nil {
					break
				}
			}
		}
		if err != nil {
			return nil, err
		}
	}
	w.setMeta("ids", "pid 1 is the normal run, pid 2 the faulty run; tid is the thread + 1 (Perfetto gives tid 0 a special meaning), and thread_name says the thread")
	w.setMeta("first_difference", firsts)
	w.setMeta("alignment", "each trace's events are shifted so that the first event where the normal and the faulty run differ (the end of their longest common prefix of shown call entries and exits) lies at the same ts in both; first_difference gives the events and shifts")
	return aligned, nil
}

// diffTraces returns the threads a diff of id shows, in order: id itself,
// or every thread of process id in either run. A trace or process missing
// from a run is an error.
func diffTraces(normal, faulty *decode.Run, id trace.ID) ([]trace.ID, error) {
	if !id.IsProcess() {
		for _, r := range []*decode.Run{normal, faulty} {
			if _, ok := r.Trace(id); !ok {
				return nil, fmt.Errorf("%s: no trace %s in this run (see difftrace info %s for its traces)", r.Dir, id, r.Dir)
			}
		}
		return []trace.ID{id}, nil
	}
	var ids []trace.ID
	for _, r := range []*decode.Run{normal, faulty} {
		p, ok := r.Process(id.Proc)
		if !ok {
			return nil, fmt.Errorf("%s: no process %d in this run (see difftrace info %s for its processes)", r.Dir, id.Proc, r.Dir)
		}
		for _, t := range p.Threads {
			if !slices.Contains(ids, t.ID) {
				ids = append(ids, t.ID)
			}
		}
	}
	slices.SortFunc(ids, func(a, b trace.ID) int { return a.Thread - b.Thread })
	return ids, nil
}
