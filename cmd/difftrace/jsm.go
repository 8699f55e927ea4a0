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
	cmd := command("jsm RUN [RUN2] --filter SPEC --attrs MODE [-o jsm.png|.svg|.csv]...", "Jaccard similarity matrices of the traces, and their difference between two runs",
		runArgs(1, 2), completeRunDirs(2), func(cmd *cobra.Command, args []string) error {
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
		})
	f.registerComparing(cmd)
	f.registerFilter(cmd, "mpi")
	f.registerK(cmd)
	f.registerAttrs(cmd)
	cmd.Flags().StringArrayVarP(&f.outs, "output", "o", nil, "write the matrices to this file: .png, .svg or .csv (repeatable)")
	return cmd
}
