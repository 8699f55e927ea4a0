package chrome_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/export/chrome"
	"github.com/difftrace/difftrace/export/chrome/chrometest"
	"github.com/difftrace/difftrace/internal/exporttest"
	"github.com/difftrace/difftrace/trace"
)

// shownEvent is an event a filtered timeline shows, found the slow way.
type shownEvent struct {
	s    trace.Symbol
	exit bool
	at   uint64
}

// shownEvents lists the entries of the calls keep keeps and their exits,
// from a whole trace in memory.
func shownEvents(events []trace.Symbol, keep func(trace.Symbol) bool) []shownEvent {
	var out []shownEvent
	var stack []trace.Symbol
	for i, s := range events {
		if s != trace.Return {
			stack = append(stack, s)
			if keep == nil || keep(s) {
				out = append(out, shownEvent{s, false, uint64(i)})
			}
			continue
		}
		if len(stack) == 0 {
			continue
		}
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if keep == nil || keep(top) {
			out = append(out, shownEvent{top, true, uint64(i)})
		}
	}
	return out
}

// load decodes one trace whole.
func load(t *testing.T, run *decode.Run, id trace.ID) []trace.Symbol {
	t.Helper()
	tr, err := run.Load([]trace.ID{id})
	if err != nil {
		t.Fatal(err)
	}
	return tr[0].Events
}

// Align finds the end of the longest common prefix of the shown events,
// as a direct comparison of the whole traces does, stopping early or
// running to the end of the shorter trace.
func TestAlign(t *testing.T) {
	for _, tc := range []struct {
		normal, faulty, trace, filter string
		differ                        bool
	}{
		{"stencil-normal", "stencil-skipbug", "3.0", "", true},
		{"stencil-normal", "stencil-skipbug", "3.0", "mpi", true},
		{"stencil-normal", "stencil-skipbug", "2.0", "mpi.col", true},
		{"oddeven-normal", "oddeven-swapbug", "5.0", "", true},
		{"oddeven-normal", "oddeven-dlbug", "5.0", "mpi", true},
		{"oddeven-normal", "oddeven-normal", "2.0", "", false},
		{"ilcs-normal", "ilcs-critbug", "6.4", "omp.crit", true},
	} {
		t.Run(fmt.Sprintf("%s-%s-%s-%s", tc.normal, tc.faulty, tc.trace, tc.filter), func(t *testing.T) {
			tab := trace.NewTable()
			normal, faulty := exporttest.Open(t, tc.normal, tab), exporttest.Open(t, tc.faulty, tab)
			keep := exporttest.Keep(t, tc.filter, tab)
			id, _ := trace.ParseID(tc.trace)
			a, err := chrome.Align(normal, faulty, id, keep)
			if err != nil {
				t.Fatal(err)
			}
			en, ef := load(t, normal, id), load(t, faulty, id)
			sn, sf := shownEvents(en, keep), shownEvents(ef, keep)
			l := 0
			for l < len(sn) && l < len(sf) && sn[l].s == sf[l].s && sn[l].exit == sf[l].exit {
				l++
			}
			differ := l < len(sn) || l < len(sf)
			want := chrome.Alignment{Trace: id, Differ: differ, Common: uint64(l), Normal: uint64(len(en)), Faulty: uint64(len(ef))}
			if differ {
				if l < len(sn) {
					want.Normal = sn[l].at
				}
				if l < len(sf) {
					want.Faulty = sf[l].at
				}
				want.At = max(want.Normal, want.Faulty)
				want.ShiftNormal, want.ShiftFaulty = want.At-want.Normal, want.At-want.Faulty
			}
			if a != want {
				t.Errorf("Align = %+v\nwant    %+v", a, want)
			}
			if differ != tc.differ {
				t.Errorf("differ %v, want %v", differ, tc.differ)
			}
		})
	}
}

// diffFile writes the diff of trace or process id of two runs, reads it
// back as the harness does (Perfetto's importer's checks among them) and
// collects the B and E events of each track.
func diffFile(t *testing.T, normal, faulty *decode.Run, id trace.ID, keep func(trace.Symbol) bool) ([]chrome.Alignment, map[chrometest.Track][]chrometest.Event, *exporttest.ChromeFile) {
	t.Helper()
	var b bytes.Buffer
	w := chrome.NewWriter(&b, chrome.Options{Names: normal, Keep: keep})
	al, err := chrome.AddDiff(w, normal, faulty, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tracks := map[chrometest.Track][]chrometest.Event{}
	f, err := exporttest.ReadChrome(b.Bytes(), func(e chrometest.Event) {
		if e.Ph == "B" || e.Ph == "E" {
			tr := chrometest.Track{PID: e.PID, TID: e.TID}
			tracks[tr] = append(tracks[tr], e)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return al, tracks, f.Chrome
}

// checkAligned checks that the two tracks of thread tid share their first
// Common events (by name and kind) and have their first differing events,
// when they have one, at ts At.
func checkAligned(t *testing.T, a chrome.Alignment, tracks map[chrometest.Track][]chrometest.Event) {
	t.Helper()
	n, f := tracks[chrometest.Track{PID: 1, TID: a.Trace.Thread + 1}], tracks[chrometest.Track{PID: 2, TID: a.Trace.Thread + 1}]
	if !a.Differ {
		t.Errorf("trace %s: no difference", a.Trace)
		return
	}
	c := int(a.Common)
	if c > len(n) || c > len(f) {
		t.Fatalf("trace %s: %d common events, tracks of %d and %d", a.Trace, c, len(n), len(f))
	}
	for i := range c {
		// Under a filter the hidden calls before a common event may
		// differ in number; the event is the same.
		if n[i].Name != f[i].Name || n[i].Ph != f[i].Ph {
			t.Fatalf("trace %s: common event %d: normal %s %s at %d, faulty %s %s at %d", a.Trace, i, n[i].Ph, n[i].Name, n[i].TS, f[i].Ph, f[i].Name, f[i].TS)
		}
	}
	differs := 0
	for _, tr := range [][]chrometest.Event{n, f} {
		if c < len(tr) {
			differs++
			if tr[c].TS != a.At {
				t.Errorf("trace %s: first differing event %s %s at ts %d, want %d", a.Trace, tr[c].Ph, tr[c].Name, tr[c].TS, a.At)
			}
		}
	}
	if differs == 0 {
		t.Errorf("trace %s: both tracks end after the common events", a.Trace)
	}
	if differs == 2 && n[c].Name == f[c].Name && n[c].Ph == f[c].Ph {
		t.Errorf("trace %s: the events at the first difference are the same, %s %s", a.Trace, n[c].Ph, n[c].Name)
	}
}

// A diff of one trace puts the two runs' versions in two processes, the
// first differing events at one ts, marked across the timeline there.
func TestAddDiff(t *testing.T) {
	for _, spec := range []string{"", "mpi"} {
		tab := trace.NewTable()
		normal, faulty := exporttest.Open(t, "stencil-normal", tab), exporttest.Open(t, "stencil-skipbug", tab)
		al, tracks, s := diffFile(t, normal, faulty, trace.ID{Proc: 3, Thread: 0}, exporttest.Keep(t, spec, tab))
		if len(al) != 1 {
			t.Fatalf("%d alignments", len(al))
		}
		a := al[0]
		checkAligned(t, a, tracks)
		if spec == "mpi" && (a.ShiftNormal == 0 || a.ShiftFaulty != 0) {
			// Rank 3 skipped its exchange: many events of its own
			// before its next MPI call.
			t.Errorf("filter mpi: shifts %d, %d; want the normal run's shifted", a.ShiftNormal, a.ShiftFaulty)
		}
		if s.Processes[1] != "normal rank 3" || s.Processes[2] != "faulty rank 3" {
			t.Errorf("processes %v", s.Processes)
		}
		if spec == "" && (a.Normal != a.Faulty || a.ShiftNormal != 0 || a.ShiftFaulty != 0) {
			t.Errorf("every call shown: %+v; the common events are the first of both traces, unshifted", a)
		}
		var marks []chrometest.Event
		for _, in := range s.Instants {
			if in.Name == "first difference" {
				marks = append(marks, in)
			}
		}
		if len(marks) != 1 || marks[0].Scope != "g" || marks[0].TS != a.At {
			t.Errorf("instants %+v, want one first difference at %d across the timeline", marks, a.At)
		}
		if fd, ok := s.OtherData["first_difference"].([]any); !ok || len(fd) != 1 {
			t.Errorf("otherData first_difference %v", s.OtherData["first_difference"])
		}
	}
}

// A diff of a process aligns each thread by its own first difference and
// marks it on both threads' tracks.
func TestAddDiffProcess(t *testing.T) {
	tab := trace.NewTable()
	normal, faulty := exporttest.Open(t, "ilcs-normal", tab), exporttest.Open(t, "ilcs-critbug", tab)
	al, tracks, s := diffFile(t, normal, faulty, trace.ID{Proc: 6, Thread: trace.AllThreads}, exporttest.Keep(t, "omp+mpi", tab))
	p, _ := normal.Process(6)
	if len(al) != len(p.Threads) {
		t.Fatalf("%d alignments for %d threads", len(al), len(p.Threads))
	}
	marks := map[chrometest.Track]uint64{}
	for _, in := range s.Instants {
		if in.Name == "first difference" {
			if in.Scope != "t" {
				t.Errorf("instant %+v: want a thread's", in)
			}
			marks[chrometest.Track{PID: in.PID, TID: in.TID}] = in.TS
		}
	}
	for _, a := range al {
		if !a.Differ {
			continue
		}
		checkAligned(t, a, tracks)
		for _, pid := range []int{1, 2} {
			if ts, ok := marks[chrometest.Track{PID: pid, TID: a.Trace.Thread + 1}]; !ok || ts != a.At {
				t.Errorf("trace %s, pid %d: mark at %d (%v), want %d", a.Trace, pid, ts, ok, a.At)
			}
		}
	}
}

// A trace or process one run lacks is an error naming the run.
func TestAddDiffMissing(t *testing.T) {
	tab := trace.NewTable()
	normal, faulty := exporttest.Open(t, "oddeven4-normal", tab), exporttest.Open(t, "oddeven-normal", tab)
	w := chrome.NewWriter(&bytes.Buffer{}, chrome.Options{})
	for _, id := range []trace.ID{{Proc: 9, Thread: 0}, {Proc: 9, Thread: trace.AllThreads}} {
		if _, err := chrome.AddDiff(w, normal, faulty, id); err == nil {
			t.Errorf("%s: no error", id)
		}
	}
}
