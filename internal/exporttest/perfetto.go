package exporttest

import (
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/difftrace/difftrace/export/chrome/chrometest"
)

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }

// perfetto checks, event by event as chrometest.Validate (encoding/json)
// decodes them, what Perfetto UI's JSON importer and chrome://tracing
// need beyond the trace-event format's required fields:
//
//   - ts (and an X event's dur) is a whole number of microseconds, 0 or
//     more (Validate: a JSON number; here: no fraction);
//   - pid and tid are integers, and a slice's or an instant's are 1 or
//     more, as pid 0 is the kernel's idle task to Perfetto and tid 0 is
//     merged into tid 1 by some of its versions;
//   - ph is B, E, X, i or M;
//   - an M event is process_name or thread_name with a non-empty string
//     args.name, or process_sort_index or thread_sort_index with an
//     integer args.sort_index;
//   - each track's process_name and thread_name come before its first
//     slice, so a viewer reading the file in order names it at once;
//
// and of the whole file (end): a displayTimeUnit of "ms" or "ns", and an
// otherData whose clock says what ts means, since ParLOT traces have no
// time and ts is an event's index.
type perfetto struct {
	procNamed   map[int]bool
	threadNamed map[chrometest.Track]bool
}

func newPerfetto() *perfetto {
	return &perfetto{procNamed: map[int]bool{}, threadNamed: map[chrometest.Track]bool{}}
}

// event checks e.
func (p *perfetto) event(e chrometest.Event) error {
	at := lazyAt(e)
	switch e.Ph {
	case "M":
		switch e.Name {
		case "process_name", "thread_name":
			if n, _ := e.Args["name"].(string); n == "" {
				return fmt.Errorf("%s of %d/%d: no string args.name", at, e.PID, e.TID)
			}
			if e.Name == "process_name" {
				p.procNamed[e.PID] = true
			} else {
				p.threadNamed[chrometest.Track{PID: e.PID, TID: e.TID}] = true
			}
		case "process_sort_index", "thread_sort_index":
			if n, ok := e.Args["sort_index"].(float64); !ok || n != math.Trunc(n) {
				return fmt.Errorf("%s of %d/%d: args.sort_index %v; want an integer", at, e.PID, e.TID, e.Args["sort_index"])
			}
		default:
			return fmt.Errorf("%s: a metadata event the viewers do not know", at)
		}
		return nil
	case "X":
		if *e.Dur != math.Trunc(*e.Dur) {
			return fmt.Errorf("%s: dur %v; want whole microseconds", at, *e.Dur)
		}
	case "B", "E", "i":
	default:
		return fmt.Errorf("%s: ph %q; difftrace writes B, E, X, i and M", at, e.Ph)
	}
	if e.PID < 1 || e.TID < 1 {
		return fmt.Errorf("%s: pid %d, tid %d; want 1 or more", at, e.PID, e.TID)
	}
	if e.Ph != "i" && (!p.procNamed[e.PID] || !p.threadNamed[chrometest.Track{PID: e.PID, TID: e.TID}]) {
		return fmt.Errorf("%s: track %d/%d not named by process_name and thread_name before it", at, e.PID, e.TID)
	}
	return nil
}

// lazyAt names e in a message, when there is one to write.
type lazyAt chrometest.Event

func (e lazyAt) String() string { return fmt.Sprintf("event %d (%s %s)", e.Index, e.Ph, e.Name) }

// end checks the file's own members.
func (p *perfetto) end(s *chrometest.Summary) error {
	if s.DisplayTimeUnit != "ms" && s.DisplayTimeUnit != "ns" {
		return fmt.Errorf("displayTimeUnit %q; want ms or ns", s.DisplayTimeUnit)
	}
	if c, _ := s.OtherData["clock"].(string); !strings.Contains(c, "index of the event") {
		return fmt.Errorf("otherData.clock %q does not say that ts is the index of the event", c)
	}
	return nil
}
