package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/capture/record"
)

// convertUftrace turns uftrace data directories (uftrace record -d DIR)
// into a run directory; it is what `difftrace convert` does with a
// directory argument. One directory that holds a recording per rank
// (uftrace.<rank>) stands for those recordings; without --rank, the
// numbers that end their names are their ranks.
func convertUftrace(cmd *cobra.Command, args []string, f *convertFlags) error {
	dirs, ranks, byName, err := record.UftraceRecordings(args, !cmd.Flags().Changed("rank"))
	if err != nil {
		return err
	}
	if byName {
		fmt.Fprintf(cmd.ErrOrStderr(), "note: the uftrace directories' names do not end in distinct rank numbers (uftrace.<rank>): ranks follow their names' sorted order\n")
	}
	m, err := record.ConvertUftraceDirs(dirs, record.ConvertDirsOptions{
		Out: f.out, FirstRank: f.firstRank, Ranks: ranks, Force: f.force, ToolVersion: version,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s: %d processes, %d threads converted from uftrace\n", f.out, len(m.Ranks), m.Threads())
	return nil
}
