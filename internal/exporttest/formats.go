package exporttest

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/export/chrome"
	"github.com/difftrace/difftrace/export/chrome/chrometest"
	"github.com/difftrace/difftrace/export/pprof"
	"github.com/difftrace/difftrace/trace"
)

// Format is one exporter as the harness drives it.
type Format struct {
	Name string
	// Write writes the file of the traces ids of run, the calls keep
	// keeps (nil: every call) shown, as the exporter's WriteRun does.
	Write func(w io.Writer, run *decode.Run, ids []trace.ID, keep func(trace.Symbol) bool) error
	// WriteTrace writes a file of one trace, id, its events handed over
	// in chunks, through the exporter's Writer.
	WriteTrace func(w io.Writer, names decode.Namer, keep func(trace.Symbol) bool, id trace.ID, chunks ...[]trace.Symbol) error
	// Reuse uses a Writer after its Close: the error must come back.
	Reuse func() error
	// Read reads a file, gzipped or not, with the library its viewers
	// read it with, checks what that library and the format's
	// documentation ask, and returns what it holds.
	Read func(b []byte) (*File, error)
	// Open says whether the format's files tell the calls open at a
	// trace's end.
	Open bool
	// Check makes the checks of this format alone on a file got whose
	// content should be want.
	Check func(t testing.TB, got, want *File)
}

// Formats are the exporters.
var Formats = []Format{Chrome, Pprof}

// ChromeFile is what chrometest.Validate found in a Chrome file, and its
// events in order when it has ListLimit or fewer.
type ChromeFile struct {
	*chrometest.Summary
	List []chrometest.Event
}

// PprofFile is a profile as the pprof library read it.
type PprofFile struct{ *profile.Profile }

// gunzip returns b, uncompressed when it is gzip.
func gunzip(b []byte) ([]byte, error) {
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		return b, nil
	}
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(z)
}

// writeChunks writes the chunks to a trace's writer and closes it.
func writeChunks(tr interface {
	Write([]trace.Symbol) error
	Close() error
}, chunks [][]trace.Symbol) error {
	var err error
	for _, c := range chunks {
		err = errors.Join(err, tr.Write(c))
	}
	return errors.Join(err, tr.Close())
}

// reuse closes a Writer, then uses it.
func reuse(close, use func() error) error {
	if err := close(); err != nil {
		return fmt.Errorf("the first Close: %w", err)
	}
	return use()
}

// ReadFile reads the file at path with f.Read.
func (f Format) ReadFile(t testing.TB, path string) *File {
	t.Helper()
	b, err := readFile(path)
	if err != nil {
		t.Fatal(err)
	}
	file, err := f.Read(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return file
}

// Chrome is the Chrome trace-event exporter, export/chrome: Perfetto UI
// and chrome://tracing read its files.
var Chrome = Format{
	Name: "chrome",
	Write: func(w io.Writer, run *decode.Run, ids []trace.ID, keep func(trace.Symbol) bool) error {
		return chrome.WriteRun(w, run, ids, chrome.Options{Names: run, Keep: keep})
	},
	WriteTrace: func(w io.Writer, names decode.Namer, keep func(trace.Symbol) bool, id trace.ID, chunks ...[]trace.Symbol) error {
		cw := chrome.NewWriter(w, chrome.Options{Names: names, Keep: keep})
		pid, tid := chrome.PID(id.Proc), chrome.TID(id.Thread)
		err := errors.Join(cw.Process(pid, fmt.Sprintf("rank %d", id.Proc), id.Proc), cw.Thread(pid, tid, chrome.ThreadName(id.Thread)))
		return errors.Join(err, writeChunks(cw.Track(pid, tid, 0), chunks), cw.Close())
	},
	Reuse: func() error {
		w := chrome.NewWriter(io.Discard, chrome.Options{})
		return reuse(w.Close, func() error { return w.Process(1, "rank 0", 0) })
	},
	Read:  func(b []byte) (*File, error) { return ReadChrome(b, nil) },
	Open:  true,
	Check: checkChrome,
}

// ListLimit is the most events a Chrome file may have for Read to list
// them all in ChromeFile.List.
const ListLimit = 1 << 16

// ReadChrome, Chrome's Read, reads the file with chrometest.Validate (encoding/json and
// the trace-event format's fields, slices that nest), checks each event as
// Perfetto's JSON importer reads it, and replays its slices track by
// track: a B event enters a call path, and the ticks from one B or E to
// the next of its track are the innermost path's.
// each, when set, sees every event in order.
func ReadChrome(b []byte, each func(chrometest.Event)) (*File, error) {
	b, err := gunzip(b)
	if err != nil {
		return nil, err
	}
	f := newFile()
	type track struct {
		stack []string
		key   string // the trace and the stack
		last  uint64
	}
	tracks := map[chrometest.Track]*track{}
	cf := &ChromeFile{}
	p := newPerfetto()
	var bad error
	s, err := chrometest.Validate(bytes.NewReader(b), func(e chrometest.Event) {
		if each != nil {
			each(e)
		}
		if e.Index < ListLimit {
			cf.List = append(cf.List, e)
		} else {
			cf.List = nil
		}
		if bad != nil {
			return
		}
		if bad = p.event(e); bad != nil {
			return
		}
		if e.Ph == "X" {
			bad = fmt.Errorf("event %d (%s): a complete event; difftrace writes calls as B and E events", e.Index, e.Name)
		}
		if e.Ph != "B" && e.Ph != "E" {
			return
		}
		k := chrometest.Track{PID: e.PID, TID: e.TID}
		tr := tracks[k]
		if tr == nil {
			tr = &track{}
			tracks[k] = tr
		}
		if len(tr.stack) > 0 {
			v := f.Paths[tr.key]
			f.Paths[tr.key] = Count{v.Calls, v.Events + int64(e.TS-tr.last)}
		}
		tr.last = e.TS
		if e.Ph == "B" {
			tr.stack = append(tr.stack, e.Name)
			f.Images[e.Name] = e.Cat
		} else {
			tr.stack = tr.stack[:len(tr.stack)-1]
		}
		// pid and tid are the rank and the thread plus one.
		tr.key = trace.ID{Proc: e.PID - 1, Thread: e.TID - 1}.String() + " " + strings.Join(tr.stack, ";")
		if e.Ph == "B" {
			v := f.Paths[tr.key]
			f.Paths[tr.key] = Count{v.Calls + 1, v.Events}
		}
	})
	if bad != nil {
		err = bad // the first rule an event broke, found before the end
	}
	if err == nil {
		err = p.end(s)
	}
	if err != nil {
		return nil, err
	}
	for k, n := range s.Unfinished {
		if n > 0 {
			f.Open[trace.ID{Proc: k.PID - 1, Thread: k.TID - 1}] = n
		}
	}
	cf.Summary = s
	f.Chrome = cf
	return f, nil
}

// checkChrome checks what a Chrome file says of itself: a named track per
// trace, the clock, and the unfinished slices counted in otherData.
func checkChrome(t testing.TB, got, want *File) {
	t.Helper()
	s := got.Chrome
	for _, id := range want.Traces {
		tr := chrometest.Track{PID: chrome.PID(id.Proc), TID: chrome.TID(id.Thread)}
		proc := fmt.Sprintf("rank %d", id.Proc)
		if want.Run != nil {
			proc = chrome.ProcessName(want.Run, id.Proc)
		}
		if s.Processes[tr.PID] != proc || s.Threads[tr] != chrome.ThreadName(id.Thread) {
			t.Errorf("chrome: trace %s: named %q, %q; want %q, %q", id, s.Processes[tr.PID], s.Threads[tr], proc, chrome.ThreadName(id.Thread))
		}
	}
	if len(s.Threads) != len(want.Traces) {
		t.Errorf("chrome: %d tracks named for %d traces", len(s.Threads), len(want.Traces))
	}
	if len(want.Traces) == 0 && s.Events != 0 {
		t.Errorf("chrome: no traces written, %d events", s.Events)
	}
	if s.DisplayTimeUnit != chrome.DisplayTimeUnit || s.OtherData["clock"] != chrome.Clock {
		t.Errorf("chrome: displayTimeUnit %q, otherData clock %q", s.DisplayTimeUnit, s.OtherData["clock"])
	}
	if n, open := s.OtherData["unfinished_slices"], want.OpenCalls(); n != float64(open) {
		t.Errorf("chrome: otherData unfinished_slices %v; the traces have %d calls open at their end", n, open)
	}
	if want.Run != nil && s.OtherData["ids"] != chrome.IDs {
		t.Errorf("chrome: otherData ids %v", s.OtherData["ids"])
	}
}

// Pprof is the pprof exporter, export/pprof: go tool pprof reads its
// files.
var Pprof = Format{
	Name: "pprof",
	Write: func(w io.Writer, run *decode.Run, ids []trace.ID, keep func(trace.Symbol) bool) error {
		return pprof.WriteRun(w, run, ids, pprof.Options{Keep: keep})
	},
	WriteTrace: func(w io.Writer, names decode.Namer, keep func(trace.Symbol) bool, id trace.ID, chunks ...[]trace.Symbol) error {
		pw := pprof.NewWriter(w, pprof.Options{Names: names, Keep: keep})
		return errors.Join(writeChunks(pw.Trace(id), chunks), pw.Close())
	},
	Reuse: func() error {
		w := pprof.NewWriter(io.Discard, pprof.Options{})
		return reuse(w.Close, w.Close)
	},
	Read:  readPprof,
	Check: checkPprof,
}

// readPprof parses the profile with the pprof library, checks it as the
// library does, and sums its samples by trace (the rank and thread labels)
// and call path.
func readPprof(b []byte) (*File, error) {
	p, err := profile.Parse(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	if err := p.CheckValid(); err != nil {
		return nil, err
	}
	if len(p.SampleType) != 2 || p.SampleType[0].Type != pprof.Calls || p.SampleType[1].Type != pprof.Events || p.DefaultSampleType != pprof.Calls {
		return nil, fmt.Errorf("sample types %v, default %q; want %s and %s, %[3]s the default", p.SampleType, p.DefaultSampleType, pprof.Calls, pprof.Events)
	}
	f := newFile()
	for i, s := range p.Sample {
		r, th := s.NumLabel[pprof.RankLabel], s.NumLabel[pprof.ThreadLabel]
		if len(r) != 1 || len(th) != 1 {
			return nil, fmt.Errorf("sample %d: labels %v; want one %s and one %s", i, s.NumLabel, pprof.RankLabel, pprof.ThreadLabel)
		}
		var names []string
		for j := len(s.Location) - 1; j >= 0; j-- {
			if len(s.Location[j].Line) != 1 {
				return nil, fmt.Errorf("sample %d: location %d has %d lines; want one function", i, s.Location[j].ID, len(s.Location[j].Line))
			}
			fn := s.Location[j].Line[0].Function
			names = append(names, fn.Name)
			f.Images[fn.Name] = fn.Filename
		}
		k := fmt.Sprintf("%d.%d %s", r[0], th[0], strings.Join(names, ";"))
		v := f.Paths[k]
		f.Paths[k] = Count{v.Calls + s.Value[0], v.Events + s.Value[1]}
	}
	f.Pprof = &PprofFile{p}
	return f, nil
}

// checkPprof checks that the program's mapping comes first, as pprof
// takes the first for the main binary.
func checkPprof(t testing.TB, got, want *File) {
	t.Helper()
	if want.Run == nil {
		return
	}
	if m := got.Pprof.Mapping; len(m) == 0 || m[0].File != want.Run.ProgramName() {
		t.Errorf("pprof: mappings %v; want the program's, %s, first", m, want.Run.ProgramName())
	}
}
