package main

import (
	"github.com/difftrace/difftrace/parlot"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/capture/record"
	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/internal/progress"
	"github.com/difftrace/difftrace/internal/units"
	"github.com/difftrace/difftrace/summary"
	"github.com/difftrace/difftrace/trace"
)

// readFlags are the flags of every command that decodes traces.
type readFlags struct {
	maxEvents  uint64
	signatures bool
	force      bool // compare runs that look like runs of different programs
	// exactPolling counts polling calls' repeats (rank.Options.ExactPolling).
	exactPolling bool
	// mixedPrograms reads runs whose processes ran different programs.
	mixedPrograms bool
}

// registerPolling adds --exact-polling to a command that compares runs.
func (f *readFlags) registerPolling(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.exactPolling, "exact-polling", false,
		"count how often polling calls repeat (MPI_Test*, MPI_Iprobe, poll, sched_yield, progress engines); by default a stretch of polling reads as its calls once each, since how long a thread waited is not what it did")
}

// registerForce adds --force to a command that compares two runs.
func (f *readFlags) registerForce(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.force, "force", false,
		"compare a normal and a faulty run even when they look like runs of different programs")
}

// registerComparing adds the flags of a command that compares runs: how
// they are read (register), --force and --exact-polling.
func (f *readFlags) registerComparing(cmd *cobra.Command) {
	f.register(cmd)
	f.registerForce(cmd)
	f.registerPolling(cmd)
}

func (f *readFlags) register(cmd *cobra.Command) {
	f.maxEvents = parlot.DefaultMaxEvents
	cmd.Flags().Var((*units.Count)(&f.maxEvents), "max-events",
		"refuse a trace that decodes to more events than this, e.g. 1e10 (guards against files that claim billions)")
	cmd.Flags().BoolVar(&f.mixedPrograms, "mixed-programs", false,
		"read a run whose processes ran different programs (an MPMD job); by default such a run is refused, as traces copied in from another program")
	cmd.Flags().BoolVar(&f.signatures, "signatures", false,
		"name C++ functions with their parameter lists and template arguments in text and pictures (JSON always has them)")
}

// open opens the run directory dir with a fresh symbol table; bars, when
// not nil, show its traces being decoded (bars.End removes them).
func (f *readFlags) open(cmd *cobra.Command, dir string, bars *progress.Bars) (*decode.Run, error) {
	if err := summary.CheckRun(dir, cmd.Name()); err != nil {
		return nil, err
	}
	opts := decode.Options{MaxEvents: f.maxEvents, MixedPrograms: f.mixedPrograms, Wait: record.Waiter(cmd.ErrOrStderr())}
	if bars != nil {
		opts.Progress = bars.Step
	}
	tab := trace.NewTable()
	tab.ShowSignatures(f.signatures)
	run, err := decode.Open(dir, tab, opts)
	if err == nil {
		bars.Begin("decoding traces", len(run.Traces()))
	}
	return run, err
}

// completeRunDirs completes up to n run-directory arguments with
// directory names.
func completeRunDirs(n int) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) >= n {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return nil, cobra.ShellCompDirectiveFilterDirs
	}
}
