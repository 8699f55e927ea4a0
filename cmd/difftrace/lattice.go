package main

import (
	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/report"
)

type latticeFlags struct {
	analysisFlags
	outs []string
}

func newLatticeCmd() *cobra.Command {
	var f latticeFlags
	cmd := command("lattice RUN --filter SPEC --attrs MODE [-o lattice.svg|.png|.dot]...", "Draw the concept lattice of a run's traces (Hasse diagram)",
		runArgs(1, 1), completeRunDirs(1), func(cmd *cobra.Command, args []string) error {
			p, err := f.parse()
			if err != nil {
				return err
			}
			formats, err := checkFiles(&report.Concepts{}, f.outs)
			if err != nil {
				return err
			}
			sim, err := f.similarity(cmd, args, p)
			if err != nil {
				return err
			}
			doc, err := report.LatticeOf(sim, args[0], p)
			if err != nil {
				return err
			}
			if len(f.outs) == 0 {
				return writeOut(cmd, doc, report.Text)
			}
			if err := doc.Drawable(); err != nil {
				return err
			}
			return writeFiles(cmd, doc, f.outs, formats, args[:1])
		})
	f.register(cmd)
	f.registerPolling(cmd)
	f.registerFilter(cmd, "mpi")
	f.registerK(cmd)
	f.registerAttrs(cmd)
	cmd.Flags().StringArrayVarP(&f.outs, "output", "o", nil, "draw the lattice to this file: .svg, .png or .dot (repeatable)")
	return cmd
}
