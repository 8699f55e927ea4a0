package main

import (
	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/report"
)

type jsmFlags struct {
	analysisFlags
	outs []string
}

func newJSMCmd() *cobra.Command {
	var f jsmFlags
	cmd := &cobra.Command{
		Use:               "jsm RUN [RUN2] --filter SPEC --attrs MODE [-o jsm.png|.svg|.csv]...",
		Short:             "Jaccard similarity matrices of the traces, and their difference between two runs",
		Long:              help("jsm"),
		Example:           examples("jsm"),
		Args:              runArgs(1, 2),
		ValidArgsFunction: completeRunDirs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := f.parse()
			if err != nil {
				return err
			}
			formats, err := checkFiles(&report.JSM{}, f.outs)
			if err != nil {
				return err
			}
			sim, err := f.similarity(cmd, args, p)
			if err != nil {
				return err
			}
			doc := report.NewJSM(sim, p.Filter.Name(), p.K, p.Mode)
			if len(f.outs) == 0 {
				return writeOut(cmd, doc, report.Text)
			}
			return writeFiles(cmd, doc, f.outs, formats, args)
		},
	}
	f.registerComparing(cmd)
	f.registerFilter(cmd, "mpi")
	f.registerK(cmd)
	f.registerAttrs(cmd)
	cmd.Flags().StringArrayVarP(&f.outs, "output", "o", nil, "write the matrices to this file: .png, .svg or .csv (repeatable)")
	return cmd
}
