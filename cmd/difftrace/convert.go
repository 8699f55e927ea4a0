package main

import (
	"errors"
	"os"

	"github.com/spf13/cobra"
)

func newConvertCmd() *cobra.Command {
	var opt convertUftraceOptions
	cmd := &cobra.Command{
		Use:   "convert UFTRACE_DIR... -o RUN",
		Short: "Turn uftrace recordings into a run directory of ParLOT traces",
		Long: `convert reads uftrace data directories (written by uftrace record -d DIR,
uftrace.data by default) and writes their calls as a run directory: every
traced process becomes a rank (in the order given), every thread a ParLOT
trace (0 the main thread, then creation order), plus run.json.`,
		Example: `  uftrace record -P . ./app && difftrace convert uftrace.data -o run
  difftrace convert rank0.data rank1.data -o run`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opt.out == "" {
				return errors.New("no output directory: give the run directory with -o RUN")
			}
			return convertUftrace(args, opt, os.Stdout)
		},
	}
	cmd.Flags().StringVarP(&opt.out, "output", "o", "", "run directory to write")
	cmd.Flags().IntVar(&opt.firstRank, "rank", 0, "rank of the first converted process")
	cmd.Flags().BoolVar(&opt.force, "force", false, "replace another run already in the output directory")
	return cmd
}
