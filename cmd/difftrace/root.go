package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/draw"
	"github.com/difftrace/difftrace/internal/interrupt"
)

// version is the tool version, recorded in every run.json; set at build time
// with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

func newRootCmd() *cobra.Command {
	var prof profileFlags
	root := &cobra.Command{
		Use:           "difftrace",
		Short:         "Find the threads and processes a bug changed, from whole-program call traces",
		Long:          help("difftrace"),
		Example:       examples("difftrace"),
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Interrupted, a command removes what it was writing and ends its
		// children; capture forwards signals to the traced program instead.
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Name() != "capture" {
				interrupt.Install(cmd.ErrOrStderr())
			}
			draw.SetWarnings(cmd.ErrOrStderr())
			return prof.start()
		},
		PersistentPostRunE: func(cmd *cobra.Command, args []string) error {
			return prof.stop()
		},
	}
	prof.register(root)
	root.CompletionOptions.HiddenDefaultCmd = false
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w (see %s --help)", err, c.CommandPath())
	})
	root.AddCommand(newInfoCmd(), newDecodeCmd(), newStatsCmd(), newConvertCmd(), newCaptureCmd(), newHangCmd(),
		newFilterCmd(), newNLRCmd(), newLatticeCmd(), newJSMCmd(), newRankCmd(), newDiffNLRCmd(), newReportCmd(), newSummarizeCmd())
	return root
}

// command returns the command use names first: its short help, what
// arguments it takes and how they complete (nil: as files), and what it
// runs; its long help and examples are help/NAME.txt and
// help/NAME.examples.txt.
func command(use, short string, args cobra.PositionalArgs, complete cobra.CompletionFunc, run func(*cobra.Command, []string) error) *cobra.Command {
	name, _, _ := strings.Cut(use, " ")
	return &cobra.Command{Use: use, Short: short, Long: help(name), Example: examples(name), Args: args, ValidArgsFunction: complete, RunE: run}
}
