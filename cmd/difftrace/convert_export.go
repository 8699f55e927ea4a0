package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/export/chrome"
	"github.com/difftrace/difftrace/export/pprof"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/internal/outfile"
	"github.com/difftrace/difftrace/internal/progress"
	"github.com/difftrace/difftrace/internal/units"
	"github.com/difftrace/difftrace/report"
	"github.com/difftrace/difftrace/summary"
	"github.com/difftrace/difftrace/trace"
)

// exportFlags are convert's flags for writing a run in another form.
type exportFlags struct {
	readFlags
	to        string
	filter    string
	traces    string
	diff      bool
	splitSize units.Bytes
}

func (f *exportFlags) register(cmd *cobra.Command) {
	f.readFlags.register(cmd)
	f.splitSize = units.Bytes(chrome.SplitSize)
	cmd.Flags().StringVar(&f.to, "to", "", "write a run in another form: chrome (trace-event JSON for Perfetto and chrome://tracing) or pprof (call-path counts)")
	cmd.Flags().StringVar(&f.filter, "filter", "", `--to: show only the calls a filter keeps, e.g. mpi or mpi+omp.crit+cust=CPU_Exec (see "difftrace rank --help" for the presets); every call when empty`)
	completeJoined(cmd, "filter", "+", filterTerms)
	cmd.Flags().StringVarP(&f.traces, "trace", "t", "", `--to: traces to write: "P.T", "P" (every thread of process P) or a comma-separated list (default: all)`)
	cmd.Flags().BoolVar(&f.diff, "diff", false, "--to chrome: write trace TRACE of runs NORMAL and FAULTY side by side, aligned at their first difference")
	cmd.Flags().Var(&f.splitSize, "split-size", "--to chrome: write one file per rank (NAME.rank-N.json) when the JSON would be larger than this, e.g. 1G or 500M")
	completeWords(cmd, "to", "chrome", "pprof")
}

// runExport writes the runs in args in the form --to names.
func runExport(cmd *cobra.Command, f *exportFlags, args []string, out string) error {
	if out == "" {
		return fmt.Errorf("convert --to %s needs an output file: -o FILE", f.to)
	}
	var flt *filters.Filter
	if f.filter != "" {
		var err error
		if flt, err = filters.Parse(f.filter); err != nil {
			return fmt.Errorf("--filter: %v", err)
		}
	}
	switch f.to {
	case "chrome":
	case "pprof":
		if f.diff {
			return fmt.Errorf("--diff writes a chrome timeline; for pprof, convert both runs and compare them with go tool pprof -diff_base normal.pb.gz faulty.pb.gz")
		}
	default:
		return fmt.Errorf("--to %q: this difftrace writes chrome (trace-event JSON) or pprof (a profile of call paths)", f.to)
	}
	if f.diff {
		if len(args) != 3 {
			return fmt.Errorf("convert --to chrome --diff takes NORMAL FAULTY TRACE (two run directories and a trace id such as 3 or 3.1); got %d argument(s)", len(args))
		}
		if f.traces != "" {
			return fmt.Errorf("--diff writes the one trace (or process) its third argument names; --trace does not apply")
		}
		return exportDiff(cmd, f, flt, args, out)
	}
	if len(args) != 1 {
		return fmt.Errorf("convert --to %s takes one run directory; got %d arguments (--diff compares two)", f.to, len(args))
	}
	tab := f.table()
	run, err := f.openRun(cmd, args[0], tab)
	if err != nil {
		return err
	}
	ids, err := run.Select(f.traces)
	if err != nil {
		return err
	}
	bars := progress.New(cmd.ErrOrStderr())
	defer bars.End()
	if f.to == "pprof" {
		if out == "-" && outfile.IsTerminal(cmd.OutOrStdout()) {
			return fmt.Errorf("refusing to write a binary profile to a terminal; redirect standard output to a file or use -o FILE")
		}
		comments := []string{"run: " + run.Dir}
		if flt != nil {
			comments = append(comments, "filter: "+flt.Name())
		}
		opts := pprof.Options{Keep: keeper(flt, tab), Comments: comments, Uncompressed: !strings.HasSuffix(out, ".gz"), Progress: bars.Step}
		bars.Begin("counting call paths", len(ids))
		return f.write(cmd, out, run.Dir, false, func(w io.Writer) error { return pprof.WriteRun(w, run, ids, opts) })
	}
	opts := chrome.Options{Names: run, Keep: keeper(flt, tab), Metadata: chrome.Metadata(producer(), run.Dir, filterSpec(flt)), Progress: bars.Step}
	files := &chrome.Files{Paths: []string{out}, Traces: [][]trace.ID{ids}}
	if out != "-" {
		bars.Begin("sizing the timeline", len(ids))
		if files, err = chrome.Split(run, ids, opts, out, int64(f.splitSize)); err != nil {
			return err
		}
		bars.End()
	}
	if len(files.Paths) > 1 {
		fmt.Fprintf(cmd.ErrOrStderr(), "the JSON would be %s, more than --split-size %s: writing one file per rank\n", units.Bytes(files.Size), f.splitSize)
		// Every file may be written (no planted link, no directory in
		// the way) before the first is.
		for _, p := range files.Paths {
			o, err := outfile.Create(p, nil, run.Dir)
			if err != nil {
				return err
			}
			o.Abort()
		}
	}
	for i, path := range files.Paths {
		bars.Begin("writing "+trace.Printable(path), len(files.Traces[i]))
		if err := f.write(cmd, path, run.Dir, true, func(w io.Writer) error { return chrome.WriteRun(w, run, files.Traces[i], opts) }); err != nil {
			return err
		}
	}
	return nil
}

// write writes one exported file (outfile.Write), gzip-compressed when
// compress is set and its name ends in .gz.
func (f *exportFlags) write(cmd *cobra.Command, path, input string, compress bool, write func(io.Writer) error) error {
	return outfile.Write(path, cmd.OutOrStdout(), cmd.ErrOrStderr(), []string{input}, compress, write)
}

// exportDiff writes a chrome timeline of one trace of two runs.
func exportDiff(cmd *cobra.Command, f *exportFlags, flt *filters.Filter, args []string, out string) error {
	id, err := trace.ParseID(args[2])
	if err != nil {
		return err
	}
	tab := f.table()
	normal, err := f.openRun(cmd, args[0], tab)
	if err != nil {
		return err
	}
	faulty, err := f.openRun(cmd, args[1], tab)
	if err != nil {
		return err
	}
	opts := chrome.Options{Names: normal, Keep: keeper(flt, tab), Metadata: chrome.DiffMetadata(producer(), normal.Dir, faulty.Dir, id, filterSpec(flt))}
	var aligned []chrome.Alignment
	err = f.write(cmd, out, normal.Dir, true, func(w io.Writer) error {
		aligned, err = chrome.WriteDiff(w, normal, faulty, id, opts)
		return err
	})
	if err != nil {
		return err
	}
	for _, a := range aligned {
		if !a.Differ {
			fmt.Fprintf(cmd.ErrOrStderr(), "trace %s: the runs do not differ (%s shown)\n", a.Trace, report.Count(a.Common, "event"))
			continue
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "trace %s: first difference after %s in common, at normal event %d and faulty event %d: ts %d in the file\n",
			a.Trace, report.Count(a.Common, "event"), a.Normal, a.Faulty, a.At)
	}
	return nil
}

// keeper returns the Keep of flt compiled against tab, nil for every call.
func keeper(flt *filters.Filter, tab *trace.Table) func(trace.Symbol) bool {
	if flt == nil {
		return nil
	}
	return flt.Compile(tab).Keep
}

// filterSpec is flt's name, "" for every call.
func filterSpec(flt *filters.Filter) string {
	if flt == nil {
		return ""
	}
	return flt.Name()
}

// producer names this difftrace in the files it exports.
func producer() string { return "difftrace " + version }

// openRun opens the run in dir for reading its events, interning its
// names into tab. A summary stands for the run it summarises, when that is
// still where summarize read it.
func (f *exportFlags) openRun(cmd *cobra.Command, dir string, tab *trace.Table) (*decode.Run, error) {
	opts := decode.Options{MaxEvents: f.maxEvents, MixedPrograms: f.mixedPrograms}
	if summary.Is(dir) {
		run, err := summary.OpenRun(dir, tab, opts)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "note: %s is a summary: reading the run it summarises, %s\n", trace.Printable(dir), trace.Printable(run.Dir))
		return run, nil
	}
	if err := waitRecorded(cmd, dir); err != nil {
		return nil, err
	}
	return decode.Open(dir, tab, opts)
}
