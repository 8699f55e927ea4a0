// Package export writes a run, or one trace of two runs, as files the
// viewers users already have open: Chrome trace-event JSON (export/chrome)
// for Perfetto UI and chrome://tracing, and pprof profiles (export/pprof).
// It lays the timeline out in files (one per rank when one would be larger
// than a viewer loads), writes each whole or not at all (gzip-compressed
// when its name ends in .gz) and shows progress; the formats are in the
// packages below it.
package export

import (
	"fmt"
	"io"
	"strings"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/export/chrome"
	"github.com/difftrace/difftrace/export/pprof"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/internal/outfile"
	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/internal/progress"
	"github.com/difftrace/difftrace/report"
	"github.com/difftrace/difftrace/trace"
)

// The forms a run is written in.
const (
	Chrome = "chrome" // trace-event JSON, a timeline
	Pprof  = "pprof"  // call-path counts, a profile
)

// Options say how to write.
type Options struct {
	// To is the form: Chrome or Pprof.
	To string
	// Filter, when set, keeps only the calls it keeps; nil keeps every
	// call.
	Filter *filters.Filter
	// SplitSize is the most bytes of JSON one Chrome file holds before
	// the timeline is written one file per rank (chrome.SplitSize).
	SplitSize int64
	// Producer names the program that wrote the files ("difftrace 1.0").
	Producer string
	// Stdout takes an output named "-"; Stderr the files written and the
	// progress bars (when it is a terminal).
	Stdout, Stderr io.Writer
	// Split, when set, is told that the timeline, size bytes of JSON,
	// goes to one file per rank.
	Split func(size int64)
}

// Check checks the form.
func (o Options) Check() error {
	if o.To != Chrome && o.To != Pprof {
		return param.Errorf("form", fmt.Sprintf("%q", o.To), "this difftrace writes chrome (trace-event JSON) or pprof (a profile of call paths)")
	}
	return nil
}

// keep returns the filter's Keep compiled against tab, nil for every call.
func (o Options) keep(tab *trace.Table) func(trace.Symbol) bool {
	if o.Filter == nil {
		return nil
	}
	return o.Filter.Compile(tab).Keep
}

// filterSpec is the filter's name, "" for every call.
func (o Options) filterSpec() string {
	if o.Filter == nil {
		return ""
	}
	return o.Filter.Name()
}

// Run writes traces ids of run to out in the form o.To: a pprof profile,
// or a Chrome timeline, one file per rank when it would be larger than
// o.SplitSize (every file is checked to be writable before the first is
// written).
func Run(run *decode.Run, ids []trace.ID, out string, o Options) error {
	bars := progress.New(o.Stderr)
	defer bars.End()
	write := func(path string, compress bool, w func(io.Writer) error) error {
		return outfile.Write(path, o.Stdout, o.Stderr, []string{run.Dir}, compress, w)
	}
	if o.To == Pprof {
		comments := []string{"run: " + run.Dir}
		if o.Filter != nil {
			comments = append(comments, "filter: "+o.Filter.Name())
		}
		opts := pprof.Options{Keep: o.keep(run.Symbols), Comments: comments, Uncompressed: !strings.HasSuffix(out, ".gz"), Progress: bars.Step}
		bars.Begin("counting call paths", len(ids))
		return write(out, false, func(w io.Writer) error { return pprof.WriteRun(w, run, ids, opts) })
	}
	opts := chrome.Options{Names: run, Keep: o.keep(run.Symbols), Metadata: chrome.Metadata(o.Producer, run.Dir, o.filterSpec()), Progress: bars.Step}
	files := &chrome.Files{Paths: []string{out}, Traces: [][]trace.ID{ids}}
	if out != "-" {
		bars.Begin("sizing the timeline", len(ids))
		var err error
		if files, err = chrome.Split(run, ids, opts, out, o.SplitSize); err != nil {
			return err
		}
		bars.End()
	}
	if len(files.Paths) > 1 {
		if o.Split != nil {
			o.Split(files.Size)
		}
		for _, p := range files.Paths {
			f, err := outfile.Create(p, nil, run.Dir)
			if err != nil {
				return err
			}
			f.Abort()
		}
	}
	for i, path := range files.Paths {
		bars.Begin("writing "+trace.Printable(path), len(files.Traces[i]))
		if err := write(path, true, func(w io.Writer) error { return chrome.WriteRun(w, run, files.Traces[i], opts) }); err != nil {
			return err
		}
	}
	return nil
}

// Diff writes a Chrome timeline of trace (or process) id of the normal and
// the faulty run to out, aligned at their first difference, and says on
// o.Stderr where each trace parts.
func Diff(normal, faulty *decode.Run, id trace.ID, out string, o Options) error {
	opts := chrome.Options{Names: normal, Keep: o.keep(normal.Symbols), Metadata: chrome.DiffMetadata(o.Producer, normal.Dir, faulty.Dir, id, o.filterSpec())}
	var aligned []chrome.Alignment
	err := outfile.Write(out, o.Stdout, o.Stderr, []string{normal.Dir}, true, func(w io.Writer) error {
		var err error
		aligned, err = chrome.WriteDiff(w, normal, faulty, id, opts)
		return err
	})
	if err != nil {
		return err
	}
	for _, a := range aligned {
		if !a.Differ {
			fmt.Fprintf(o.Stderr, "trace %s: the runs do not differ (%s shown)\n", a.Trace, report.Count(a.Common, "event"))
			continue
		}
		fmt.Fprintf(o.Stderr, "trace %s: first difference after %s in common, at normal event %d and faulty event %d: ts %d in the file\n",
			a.Trace, report.Count(a.Common, "event"), a.Normal, a.Faulty, a.At)
	}
	return nil
}
