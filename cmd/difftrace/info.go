package main

import (
	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/internal/progress"
	"github.com/difftrace/difftrace/report"
)

func newInfoCmd() *cobra.Command {
	var rf readFlags
	cmd := command("info RUN", "Summarise a recorded run: processes, threads, events, functions, compression, how it ended",
		cobra.ExactArgs(1), completeRunDirs(1), func(cmd *cobra.Command, args []string) error {
			bars := progress.New(cmd.ErrOrStderr())
			run, err := rf.open(cmd, args[0], bars)
			if err != nil {
				return err
			}
			stats, err := run.Summarize(run.Traces(), false)
			bars.End()
			if err != nil {
				return err
			}
			return writeOut(cmd, report.NewInfo(run, stats), "")
		})
	rf.register(cmd)
	return cmd
}
