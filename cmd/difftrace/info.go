package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/internal/outfile"
	"github.com/difftrace/difftrace/report"
)

func newInfoCmd() *cobra.Command {
	var rf readFlags
	cmd := &cobra.Command{
		Use:   "info RUN",
		Short: "Summarise a recorded run: processes, threads, events, functions, compression, how it ended",
		Long: `info lists the processes and threads of a run directory, the events and
distinct functions of every trace, the compressed size and compression ratio,
and what the run's manifest (run.json) says about how each rank ended: exited
with a status, killed by a signal, killed by a timeout, or no record.

RUN is a difftrace run directory (run.json, trace.<rank>.info,
trace.<rank>.<thread>), the original ParLOT output
(Hdbg.<version>.<host>.<pid>.info and ….<pid>.<thread>; processes are then
numbered by ascending pid), or a uftrace recording: the directory uftrace
record wrote (processes in order of appearance), or a directory holding one
such directory per rank (uftrace.<rank>). Traces are streamed, so runs
larger than memory can be summarised.`,
		Example: `  difftrace info testdata/parlot/oddeven4
  difftrace info faulty/ --max-events 1e10`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			run, done, err := rf.openWithProgress(cmd, args[0])
			if err != nil {
				return err
			}
			ids := run.Traces()
			stats, err := run.Summarize(ids, false)
			done()
			if err != nil {
				return err
			}
			out, err := outfile.Create("", cmd.OutOrStdout())
			if err != nil {
				return err
			}
			if err := report.Write(out, report.NewInfo(run, stats), report.Options{}); err != nil {
				return fmt.Errorf("writing %s: %w", out.Name(), err)
			}
			return out.Commit()
		},
	}
	rf.register(cmd)
	cmd.ValidArgsFunction = completeRunDir
	return cmd
}

// orDash shows an unknown value as "-" (report_test.go reads the page with
// it).
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
