package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/draw/hasse"
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
			ctx, lat := sim.Ctx[compare.Normal], sim.Lattice[compare.Normal]
			if lat == nil {
				return fmt.Errorf("the lattice of %s under %s, %s is too large to build (%s); try a narrower filter or the noFreq attributes",
					args[0], p.Filter.Name(), p.Mode, sim.JSM[compare.Normal].Notice())
			}
			doc := report.NewConcepts(ctx, lat, p.Filter.Name(), p.K, p.Mode, p.Level)
			if len(f.outs) == 0 {
				return writeOut(cmd, doc, report.Text)
			}
			if lat.Len() > hasse.MaxConcepts {
				return fmt.Errorf("the lattice has %d concepts, more than the %d a readable diagram can show; narrow the filter, use noFreq attributes or --level process",
					lat.Len(), hasse.MaxConcepts)
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
