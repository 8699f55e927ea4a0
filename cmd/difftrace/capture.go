package main

import (
	"os"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/capture/record"
	"github.com/difftrace/difftrace/internal/interrupt"
	"github.com/difftrace/difftrace/internal/param"
)

func newCaptureCmd() *cobra.Command {
	var opt record.Options
	cmd := command("capture -o DIR [flags] -- PROGRAM [ARGS...]", "Record a run of a program, one MPI rank per recorder, as ParLOT traces",
		cobra.MinimumNArgs(1), nil, func(cmd *cobra.Command, args []string) error {
			opt.Command = args
			opt.ToolVersion = version
			opt.Args = os.Args[1:]
			code, err := record.Main(opt)
			if err != nil {
				return param.Flags(err, captureFlags)
			}
			if code == 128+int(syscall.SIGINT) {
				interrupt.Exit(syscall.SIGINT) // a shell's loop stops too
			}
			if code != 0 {
				os.Exit(code)
			}
			return nil
		})
	f := cmd.Flags()
	f.SetInterspersed(false)
	f.StringVarP(&opt.Dir, "output", "o", "", "run directory to write (required)")
	f.StringVar(&opt.Backend, "backend", "uftrace", "recorder: uftrace or pin")
	f.BoolVar(&opt.AllImages, "all-images", false, "also record calls made inside libraries (larger traces)")
	f.StringVar(&opt.Only, "only", "", "record only the calls this filter keeps (e.g. mpi+omp; default: every call)")
	f.BoolVarP(&opt.Verbose, "verbose", "v", false, "say more on stderr: every function uftrace could not patch, and what capture itself cost (time, CPU)")
	f.DurationVar(&opt.Timeout, "timeout", 0, "kill the program after this long, keeping its traces (e.g. 30s; 0 = never)")
	f.BoolVar(&opt.Force, "force", false, "replace another run already in the output directory")
	f.BoolVar(&opt.KeepUftrace, "keep-uftrace", false, "also keep the raw uftrace recording as DIR/uftrace.RANK")
	f.BoolVar(&opt.NoPeers, "no-peers", false, "do not preload the MPI wrapper that tells, when a run hangs, whom each rank waits for")
	cmd.MarkFlagRequired("output")
	cmd.MarkFlagDirname("output")
	completeWords(cmd, "backend", "uftrace", "pin")
	filterSpecs(cmd, "only")
	return cmd
}

// captureFlags maps the parameters capture's errors name to the flags that
// set them.
var captureFlags = map[string]string{"output directory": "-o", "timeout": "--timeout", "only": "--only", "backend": "--backend"}
