package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/capture/record"
	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/hang"
	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/internal/progress"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/summary"
)

type summarizeFlags struct {
	readFlags
	// GridSpec's filters, K and custom regexp are what to summarise.
	rank.GridSpec
	out string
}

func newSummarizeCmd() *cobra.Command {
	var f summarizeFlags
	cmd := command("summarize RUN -o DIR", "Summarise a run's traces for rank, in parallel under an MPI launcher",
		runArgs(1, 1), completeRunDirs(2), func(cmd *cobra.Command, args []string) error { return f.run(cmd, args[0]) })
	f.register(cmd)
	f.registerPolling(cmd)
	fl := cmd.Flags()
	fl.StringSliceVar(&f.Filters, "filters", nil, "filters to summarise, comma-separated (default: every preset and the hang analysis's filter)")
	fl.IntSliceVar(&f.Ks, "k", rank.DefaultKs, "values of K (longest loop body) to summarise")
	fl.StringVar(&f.Custom, "custom", "", "a regular expression of function names added to every filter, as rank --custom")
	fl.StringVarP(&f.out, "output", "o", "", "the directory to write the summary to")
	filterSpecs(cmd, "filters")
	return cmd
}

// grid returns the filters to summarise.
func (f *summarizeFlags) grid() ([]*filters.Filter, error) {
	fs, err := rank.SummaryFilters(f.Filters, f.Custom, f.Ks, []*filters.Filter{filters.MustParse(hang.DefaultFilter)})
	return fs, param.Flags(err, gridFlags)
}

// run summarises the part of the run in dir that falls to this process
// under the launcher, or the whole run outside one.
func (f *summarizeFlags) run(cmd *cobra.Command, dir string) error {
	if f.out == "" {
		return fmt.Errorf("-o DIR: name the directory to write the summary to")
	}
	index, of, err := record.LaunchFromEnv(os.Getenv)
	if err != nil {
		return fmt.Errorf("%w; start summarize under mpirun or srun, or alone", err)
	}
	fs, err := f.grid()
	if err != nil {
		return err
	}
	var foreign *summary.ForeignFileError
	if err := summary.Prepare(f.out, of); errors.As(err, &foreign) {
		return fmt.Errorf("%w; give an empty or new directory to -o", err)
	} else if err != nil {
		return err
	}
	start := time.Now()
	traces, err := compare.WritePart(dir, f.out, index, of, fs, f.Ks, f.options(cmd, of))
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	what := fmt.Sprintf("part %d of %d of the summary", index, of)
	if of == 1 {
		what = "summary"
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s of %s written (%d filters × %d K): %d traces in %.1f s, %.0f traces per second\n",
		f.out, what, dir, len(fs), len(f.Ks), traces, secs, float64(traces)/max(secs, 1e-3))
	return nil
}

// options are the options of the comparison that reads one of of parts
// of a run: decoding on this process's share of the node's cores.
func (f *summarizeFlags) options(cmd *cobra.Command, of int) compare.Options {
	opts := compare.Options{MaxEvents: f.maxEvents, ExactPolling: f.exactPolling, MixedPrograms: f.mixedPrograms, Workers: summary.Workers(os.Getenv),
		Wait: record.Waiter(cmd.ErrOrStderr())}
	if p := progress.New(cmd.ErrOrStderr()); p != nil && of == 1 {
		// Under a launcher, each part says once that it is done instead:
		// many processes' bars on one terminal are noise.
		opts.Progress = p
	}
	return opts
}
