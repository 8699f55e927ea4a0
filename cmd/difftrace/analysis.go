package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/capture/record"
	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/internal/progress"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

// analysisFlags are the flags of the commands that run the analysis
// pipeline on one (filter, K, attribute mode): filter, nlr, lattice, jsm.
type analysisFlags struct {
	readFlags
	rank.ParamSpec
}

func (f *analysisFlags) registerFilter(cmd *cobra.Command, def string) {
	cmd.Flags().StringVarP(&f.Filter, "filter", "f", def,
		`which calls to keep: presets joined by "+", e.g. mpi, omp.crit, mem, all, mpi+omp.crit+cust=CPU_Exec (see "difftrace rank --help" for the list)`)
	completeJoined(cmd, "filter", "+", filterTerms)
}

func (f *analysisFlags) registerK(cmd *cobra.Command) {
	cmd.Flags().IntVarP(&f.K, "k", "k", 10, "longest loop body NLR looks for (the cost grows with K²)")
}

func (f *analysisFlags) registerAttrs(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&f.Attrs, "attrs", "a", "sing.noFreq",
		"attributes of a trace: sing or doub (single entries or consecutive pairs) . noFreq, actual or log10 (frequency)")
	cmd.Flags().StringVar(&f.Level, "level", "thread", "objects of the analysis: thread (each trace) or process (its threads' attributes merged)")
	completeWords(cmd, "attrs", rank.Names(fca.Modes())...)
	completeWords(cmd, "level", "thread", "process")
}

// parse checks the flags the command registered.
func (f *analysisFlags) parse() (rank.Params, error) {
	p, err := f.Params()
	return p, param.Flags(err, paramFlags)
}

// paramFlags are the flags of rank.ParamSpec's parameters.
var paramFlags = map[string]string{"filter": "--filter", "K": "--k", "attrs": "--attrs", "level": "--level"}

// openComparison opens one or two runs for analysis, with progress bars on
// stderr when it is a terminal.
func (f *readFlags) openComparison(cmd *cobra.Command, dirs []string) (*compare.Comparison, error) {
	opts := compare.Options{MaxEvents: f.maxEvents, Unrelated: f.force, ExactPolling: f.exactPolling, MixedPrograms: f.mixedPrograms,
		ShowSignatures: f.signatures, Wait: record.Waiter(cmd.ErrOrStderr())}
	if bars := progress.New(cmd.ErrOrStderr()); bars != nil {
		opts.Progress = bars
	}
	return compare.Open(dirs, opts)
}

// similarity opens the runs, recognises their loops and measures the
// traces' similarity under p, reporting the notes of each step on stderr.
func (f *analysisFlags) similarity(cmd *cobra.Command, dirs []string, p rank.Params) (*compare.Similarity, error) {
	c, err := f.openComparison(cmd, dirs)
	if err != nil {
		return nil, err
	}
	sim, n, err := p.Similarity(c)
	if err != nil {
		return nil, err
	}
	printNotes(cmd, append(c.Notes(), sim.Notices...)...)
	noteEmptyFilter(cmd, p.Filter.Name(), n.Total())
	return sim, nil
}

// printNotes writes the comparison's notes to stderr, one per line, with
// the names in them escaped (trace.Printable).
func printNotes(cmd *cobra.Command, notes ...string) {
	for _, n := range notes {
		fmt.Fprintln(cmd.ErrOrStderr(), "note:", trace.Printable(n))
	}
}

// noteEmptyFilter says so on stderr when the filter kept no call at all,
// which otherwise shows only as blank rows.
func noteEmptyFilter(cmd *cobra.Command, filter string, kept uint64) {
	if kept == 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "note: filter %s keeps no call of these traces; try another --filter (difftrace rank names the presets that keep calls in a pair of runs)\n", filter)
	}
}

// runArgs accepts between least and most run directories, and otherwise
// says what the command takes (its usage line) and how many it got.
func runArgs(least, most int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) >= least && len(args) <= most {
			return nil
		}
		want := "one run directory"
		switch {
		case least == 2:
			want = "two run directories, the normal run and the faulty one"
		case most == 2:
			want = "one run directory, or two (the normal run and the faulty one)"
		}
		return fmt.Errorf("%s takes %s; got %d argument(s) (usage: difftrace %s)", cmd.Name(), want, len(args), cmd.Use)
	}
}
