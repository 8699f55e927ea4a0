package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/report"
)

type filterFlags struct {
	analysisFlags
	traces string
	format string
	out    string
}

func newFilterCmd() *cobra.Command {
	f := filterFlags{analysisFlags: analysisFlags{ParamSpec: rank.ParamSpec{K: 10}}}
	cmd := command("filter RUN --filter SPEC", "List the calls a filter keeps in each trace",
		runArgs(1, 1), completeRunDirs(1), func(cmd *cobra.Command, args []string) error {
			p, err := f.parse()
			if err != nil {
				return err
			}
			format, ok := filterFormats[f.format]
			if !ok {
				return fmt.Errorf("--format %q: want list, count or json", f.format)
			}
			c, err := f.openComparison(cmd, args)
			if err != nil {
				return err
			}
			run := c.Runs[compare.Normal]
			ids, err := run.Select(f.traces)
			if err != nil {
				return err
			}
			return emit(cmd, f.out, format, args, func() (report.Document, error) {
				kept, err := c.Filter(p.Filter, compare.Normal, ids)
				printNotes(cmd, c.Notes()...)
				if err != nil {
					return nil, err
				}
				doc := &report.Kept{Filter: p.Filter.Name(), Traces: ids, Calls: kept, Symbols: c.Symbols, Counts: f.format == "count"}
				noteEmptyFilter(cmd, p.Filter.Name(), doc.Total())
				return doc, nil
			})
		})
	f.register(cmd)
	f.registerFilter(cmd, "mpi")
	cmd.Flags().StringVarP(&f.traces, "trace", "t", "", `traces to list: "P.T", "P" (every thread of process P) or a comma-separated list (default: all)`)
	cmd.Flags().StringVar(&f.format, "format", "list", "list (one call per line), count (calls kept per trace) or json (one object per trace)")
	completeWords(cmd, "format", "list", "count", "json")
	cmd.Flags().StringVarP(&f.out, "output", "o", "", "write to this file instead of standard output")
	return cmd
}

// filterFormats are filter's --format values: list and count are texts.
var filterFormats = map[string]report.Format{"list": report.Text, "count": report.Text, "json": report.JSON}
