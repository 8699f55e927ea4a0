package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/internal/progress"
	"github.com/difftrace/difftrace/report"
)

type statsFlags struct {
	readFlags
	by     string
	edges  bool
	format string
	traces string
	top    int
	out    string
}

// statsFormats are the report formats of --format.
var statsFormats = map[string]report.Format{"table": report.Text, "json": report.JSON, "csv": report.CSV}

func newStatsCmd() *cobra.Command {
	var f statsFlags
	cmd := command("stats RUN", "Count calls per function and caller→callee edges, per thread, process or program",
		cobra.ExactArgs(1), completeRunDirs(1), func(cmd *cobra.Command, args []string) error {
			level, err := decode.ParseLevel(f.by)
			if err != nil {
				return fmt.Errorf("--by %w", err)
			}
			if _, ok := statsFormats[f.format]; !ok {
				return fmt.Errorf("--format %q: want table, json or csv", f.format)
			}
			if f.top < 0 {
				return fmt.Errorf("--top %d: want 0 (all) or more", f.top)
			}
			bars := progress.New(cmd.ErrOrStderr())
			run, err := f.open(cmd, args[0], bars)
			if err != nil {
				return err
			}
			ids, err := run.Select(f.traces)
			if err != nil {
				return err
			}
			return emit(cmd, f.out, statsFormats[f.format], args, func() (report.Document, error) {
				stats, err := run.Summarize(ids, f.edges)
				bars.End()
				if err != nil {
					return nil, err
				}
				return report.NewStats(run.Dir, decode.GroupStats(ids, stats, level), level, run, f.edges, f.top), nil
			})
		})
	cmd.Flags().StringVar(&f.by, "by", "process", "count per thread, process or program")
	cmd.Flags().BoolVar(&f.edges, "edges", false, "also count caller→callee edges")
	cmd.Flags().StringVarP(&f.format, "format", "f", "table", "output format: table, json or csv")
	cmd.Flags().StringVarP(&f.traces, "trace", "t", "", "traces to count: P.T (a thread) or P (a process), comma-separated; all when empty")
	cmd.Flags().IntVar(&f.top, "top", 0, "show only the `N` most frequent functions (and edges) of each group; 0 shows all")
	cmd.Flags().StringVarP(&f.out, "output", "o", "", "write to `FILE` (written whole or not at all) instead of standard output")
	f.register(cmd)
	cmd.RegisterFlagCompletionFunc("by", cobra.FixedCompletions([]string{"thread", "process", "program"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"table", "json", "csv"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}
