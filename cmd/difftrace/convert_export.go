package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/capture/record"
	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/export"
	"github.com/difftrace/difftrace/export/chrome"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/internal/outfile"
	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/internal/units"
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
	o, err := f.check(cmd, args, out)
	if err != nil {
		return err
	}
	dirs, diff := args[:1], ""
	if f.diff {
		dirs, diff = args[:2], args[2]
	}
	d := export.Dirs{Decode: decode.Options{MaxEvents: f.maxEvents, MixedPrograms: f.mixedPrograms}, Signatures: f.signatures, Wait: record.Waiter(cmd.ErrOrStderr()), Stderr: cmd.ErrOrStderr()}
	return d.Write(dirs, f.traces, diff, out, o)
}

// check checks the flags and the arguments of an export to out, and
// returns its options.
func (f *exportFlags) check(cmd *cobra.Command, args []string, out string) (export.Options, error) {
	o := export.Options{To: f.to, SplitSize: int64(f.splitSize), Producer: "difftrace " + version, Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(),
		Split: func(size int64) {
			fmt.Fprintf(cmd.ErrOrStderr(), "the JSON would be %s, more than --split-size %s: writing one file per rank\n", units.Bytes(size), f.splitSize)
		}}
	if out == "" {
		return o, fmt.Errorf("convert --to %s needs an output file: -o FILE", f.to)
	}
	if f.filter != "" {
		var err error
		if o.Filter, err = filters.Parse(f.filter); err != nil {
			return o, fmt.Errorf("--filter: %w", err)
		}
	}
	if err := o.Check(); err != nil {
		return o, param.Flags(err, map[string]string{"form": "--to"})
	}
	switch {
	case f.diff && f.to == export.Pprof:
		return o, fmt.Errorf("--diff writes a chrome timeline; for pprof, convert both runs and compare them with go tool pprof -diff_base normal.pb.gz faulty.pb.gz")
	case f.diff && len(args) != 3:
		return o, fmt.Errorf("convert --to chrome --diff takes NORMAL FAULTY TRACE (two run directories and a trace id such as 3 or 3.1); got %d argument(s)", len(args))
	case f.diff && f.traces != "":
		return o, fmt.Errorf("--diff writes the one trace (or process) its third argument names; --trace does not apply")
	case !f.diff && len(args) != 1:
		return o, fmt.Errorf("convert --to %s takes one run directory; got %d arguments (--diff compares two)", f.to, len(args))
	case f.to == export.Pprof && out == "-" && outfile.IsTerminal(cmd.OutOrStdout()):
		return o, fmt.Errorf("refusing to write a binary profile to a terminal; redirect standard output to a file or use -o FILE")
	}
	return o, nil
}
