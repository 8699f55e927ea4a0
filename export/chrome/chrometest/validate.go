// Package chrometest checks trace-event JSON for tests: that a file is the
// JSON Object Format the viewers open, with the fields the format
// documents on every event, and slices that nest. It reads a file one
// event at a time, so large timelines are checked in little memory.
package chrometest

import (
	"encoding/json"
	"fmt"
	"io"
)

// Event is one trace event as the file has it.
type Event struct {
	Name  string
	Cat   string
	Ph    string
	TS    uint64
	PID   int
	TID   int
	Scope string   // "s" of an instant event
	Dur   *float64 // of a complete event
	Args  map[string]any
	Index int // place in traceEvents, from 0
}

// Track is one thread's timeline: a process and a thread.
type Track struct{ PID, TID int }

// Summary is what Validate found in a file.
type Summary struct {
	DisplayTimeUnit string
	OtherData       map[string]any
	Events          int            // every event, metadata included
	Slices          map[Track]int  // B events per track
	Unfinished      map[Track]int  // E events marked args.unfinished per track
	Processes       map[int]string // process_name metadata
	Threads         map[Track]string
	Instants        []Event
}

// raw is an event with every member optional, to tell a missing one.
type raw struct {
	Name *string         `json:"name"`
	Cat  string          `json:"cat"`
	Ph   *string         `json:"ph"`
	TS   *float64        `json:"ts"`
	PID  *int            `json:"pid"`
	TID  *int            `json:"tid"`
	S    string          `json:"s"`
	Dur  *float64        `json:"dur"`
	Args json.RawMessage `json:"args"`
}

// Validate reads a trace-event JSON object from r and checks it:
//
//   - it is one JSON object with traceEvents (an array), displayTimeUnit
//     ("ms" or "ns") and otherData (an object), and nothing after it;
//   - every event has name, ph, ts, pid and tid; ts is a whole number;
//   - ph is B, E, X, i or M; an X event has a dur of 0 or more, an i event
//     a scope s of g, p or t, an M event is process_name, thread_name,
//     process_sort_index or thread_sort_index with its args;
//   - on each track, B and E events are balanced and nest: an E closes the
//     latest open B, by the same name, at no earlier time, and no B is
//     left open; B/E events of a track come in time order;
//   - every track with slices has a thread_name, and its process a
//     process_name.
//
// each, when set, sees every event in order.
func Validate(r io.Reader, each func(Event)) (*Summary, error) {
	s := &Summary{Slices: map[Track]int{}, Unfinished: map[Track]int{}, Processes: map[int]string{}, Threads: map[Track]string{}}
	d := json.NewDecoder(r)
	if err := delim(d, '{'); err != nil {
		return nil, err
	}
	open := map[Track][]Event{}
	last := map[Track]uint64{}
	var seenEvents, seenUnit, seenOther bool
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, fmt.Errorf("offset %d: %w", d.InputOffset(), err)
		}
		key, _ := tok.(string)
		switch key {
		case "traceEvents":
			seenEvents = true
			if err := delim(d, '['); err != nil {
				return nil, err
			}
			for d.More() {
				at := d.InputOffset()
				var ev raw
				if err := d.Decode(&ev); err != nil {
					return nil, fmt.Errorf("event %d (offset %d): %w", s.Events, at, err)
				}
				e, err := check(ev, s.Events)
				if err != nil {
					return nil, err
				}
				s.Events++
				if err := s.add(e, open, last); err != nil {
					return nil, err
				}
				if each != nil {
					each(e)
				}
			}
			if err := delim(d, ']'); err != nil {
				return nil, err
			}
		case "displayTimeUnit":
			seenUnit = true
			if err := d.Decode(&s.DisplayTimeUnit); err != nil {
				return nil, fmt.Errorf("displayTimeUnit: %w", err)
			}
			if s.DisplayTimeUnit != "ms" && s.DisplayTimeUnit != "ns" {
				return nil, fmt.Errorf("displayTimeUnit %q: the format allows ms and ns", s.DisplayTimeUnit)
			}
		case "otherData":
			seenOther = true
			if err := d.Decode(&s.OtherData); err != nil {
				return nil, fmt.Errorf("otherData: %w", err)
			}
			if s.OtherData == nil {
				return nil, fmt.Errorf("otherData is null; want an object")
			}
		default:
			var skip json.RawMessage
			if err := d.Decode(&skip); err != nil {
				return nil, fmt.Errorf("%q: %w", key, err)
			}
		}
	}
	if err := delim(d, '}'); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("offset %d: something follows the JSON object", d.InputOffset())
	}
	switch {
	case !seenEvents:
		return nil, fmt.Errorf("no traceEvents")
	case !seenUnit:
		return nil, fmt.Errorf("no displayTimeUnit")
	case !seenOther:
		return nil, fmt.Errorf("no otherData")
	}
	for t, st := range open {
		if len(st) > 0 {
			return nil, fmt.Errorf("track %d/%d: %d slices never closed, the first %s (event %d)", t.PID, t.TID, len(st), st[0].Name, st[0].Index)
		}
	}
	for t := range s.Slices {
		if _, ok := s.Threads[t]; !ok {
			return nil, fmt.Errorf("track %d/%d has slices and no thread_name", t.PID, t.TID)
		}
		if _, ok := s.Processes[t.PID]; !ok {
			return nil, fmt.Errorf("process %d has slices and no process_name", t.PID)
		}
	}
	return s, nil
}

// delim reads the delimiter want.
func delim(d *json.Decoder, want json.Delim) error {
	tok, err := d.Token()
	if err != nil {
		return fmt.Errorf("offset %d: want %q: %w", d.InputOffset(), want, err)
	}
	if tok != want {
		return fmt.Errorf("offset %d: want %q, found %v", d.InputOffset(), want, tok)
	}
	return nil
}

// check checks the members of event i.
func check(ev raw, i int) (Event, error) {
	switch {
	case ev.Name == nil:
		return Event{}, fmt.Errorf("event %d: no name", i)
	case ev.Ph == nil:
		return Event{}, fmt.Errorf("event %d (%s): no ph", i, *ev.Name)
	case ev.TS == nil:
		return Event{}, fmt.Errorf("event %d (%s): no ts", i, *ev.Name)
	case ev.PID == nil:
		return Event{}, fmt.Errorf("event %d (%s): no pid", i, *ev.Name)
	case ev.TID == nil:
		return Event{}, fmt.Errorf("event %d (%s): no tid", i, *ev.Name)
	case *ev.TS < 0 || *ev.TS != float64(uint64(*ev.TS)):
		return Event{}, fmt.Errorf("event %d (%s): ts %v is not a whole number of ticks", i, *ev.Name, *ev.TS)
	}
	e := Event{Name: *ev.Name, Cat: ev.Cat, Ph: *ev.Ph, TS: uint64(*ev.TS), PID: *ev.PID, TID: *ev.TID, Scope: ev.S, Dur: ev.Dur, Index: i}
	if len(ev.Args) > 0 {
		if err := json.Unmarshal(ev.Args, &e.Args); err != nil {
			return Event{}, fmt.Errorf("event %d (%s): args: %w", i, e.Name, err)
		}
	}
	switch e.Ph {
	case "B", "E":
	case "X":
		if e.Dur == nil || *e.Dur < 0 {
			return Event{}, fmt.Errorf("event %d (%s): a complete event without a dur of 0 or more", i, e.Name)
		}
	case "i", "I":
		if e.Scope != "g" && e.Scope != "p" && e.Scope != "t" {
			return Event{}, fmt.Errorf("event %d (%s): instant event scope %q; want g, p or t", i, e.Name, e.Scope)
		}
	case "M":
		want := map[string]string{"process_name": "name", "thread_name": "name", "process_sort_index": "sort_index", "thread_sort_index": "sort_index"}[e.Name]
		if want == "" {
			return Event{}, fmt.Errorf("event %d: metadata event %q", i, e.Name)
		}
		if _, ok := e.Args[want]; !ok {
			return Event{}, fmt.Errorf("event %d: %s without args.%s", i, e.Name, want)
		}
	default:
		return Event{}, fmt.Errorf("event %d (%s): ph %q", i, e.Name, e.Ph)
	}
	return e, nil
}

// add takes event e into the summary, checking that slices nest.
func (s *Summary) add(e Event, open map[Track][]Event, last map[Track]uint64) error {
	t := Track{e.PID, e.TID}
	switch e.Ph {
	case "M":
		switch e.Name {
		case "process_name":
			s.Processes[e.PID], _ = e.Args["name"].(string)
		case "thread_name":
			s.Threads[t], _ = e.Args["name"].(string)
		}
		return nil
	case "i", "I":
		s.Instants = append(s.Instants, e)
		return nil
	case "X":
		s.Slices[t]++
		return nil
	}
	if l, ok := last[t]; ok && e.TS < l {
		return fmt.Errorf("event %d (%s %s): ts %d before the track's previous %d", e.Index, e.Ph, e.Name, e.TS, l)
	}
	last[t] = e.TS
	st := open[t]
	if e.Ph == "B" {
		s.Slices[t]++
		open[t] = append(st, e)
		return nil
	}
	if len(st) == 0 {
		return fmt.Errorf("event %d: E of %s on track %d/%d closes no slice", e.Index, e.Name, t.PID, t.TID)
	}
	b := st[len(st)-1]
	if b.Name != e.Name {
		return fmt.Errorf("event %d: E of %s on track %d/%d closes the slice of %s (event %d)", e.Index, e.Name, t.PID, t.TID, b.Name, b.Index)
	}
	if u, _ := e.Args["unfinished"].(bool); u {
		s.Unfinished[t]++
	}
	open[t] = st[:len(st)-1]
	return nil
}
