package main

import (
	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/report"
)

func newInfoCmd() *cobra.Command {
	var rf readFlags
	cmd := &cobra.Command{
		Use:     "info RUN",
		Short:   "Summarise a recorded run: processes, threads, events, functions, compression, how it ended",
		Long:    help("info"),
		Example: examples("info"),
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			run, done, err := rf.openWithProgress(cmd, args[0])
			if err != nil {
				return err
			}
			stats, err := run.Summarize(run.Traces(), false)
			done()
			if err != nil {
				return err
			}
			return writeOut(cmd, "", report.NewInfo(run, stats), "")
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
