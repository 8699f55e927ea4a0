package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/report"
)

type nlrFlags struct {
	analysisFlags
	traces string
	format string
	out    string
}

func newNLRCmd() *cobra.Command {
	var f nlrFlags
	cmd := command("nlr RUN [RUN2] --filter SPEC [--k 10]", "Fold each trace's loops into its nested-loop representation (L0^4)",
		runArgs(1, 2), completeRunDirs(2), func(cmd *cobra.Command, args []string) error {
			p, err := f.parse()
			if err != nil {
				return err
			}
			format := report.Format(f.format)
			if format != report.Text && format != report.JSON {
				return fmt.Errorf("--format %q: want text or json", f.format)
			}
			c, err := f.openComparison(cmd, args)
			if err != nil {
				return err
			}
			ids, err := c.Select(f.traces)
			if err != nil {
				return param.Flags(err, map[string]string{"trace": "--trace"})
			}
			return emit(cmd, f.out, format, args, func() (report.Document, error) {
				n, err := p.Recognize(c)
				if err != nil {
					return nil, err
				}
				printNotes(cmd, c.Notes()...)
				noteEmptyFilter(cmd, p.Filter.Name(), n.Total())
				return report.NewNLRs(c, n, ids), nil
			})
		})
	f.registerComparing(cmd)
	f.registerFilter(cmd, "mpi")
	f.registerK(cmd)
	cmd.Flags().StringVarP(&f.traces, "trace", "t", "", `traces to show: "P.T", "P" (every thread of process P) or a comma-separated list (default: all; loops are always found over all traces)`)
	cmd.Flags().StringVar(&f.format, "format", "text", "text or json")
	completeWords(cmd, "format", "text", "json")
	cmd.Flags().StringVarP(&f.out, "output", "o", "", "write to this file instead of standard output")
	return cmd
}
