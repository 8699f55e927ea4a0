package main

import (
	"os"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/capture/record"
	"github.com/difftrace/difftrace/internal/interrupt"
)

func newCaptureCmd() *cobra.Command {
	var opt record.Options
	cmd := &cobra.Command{
		Use:   "capture -o DIR [flags] -- PROGRAM [ARGS...]",
		Short: "Record a run of a program, one MPI rank per recorder, as ParLOT traces",
		Long: `capture runs PROGRAM under a recorder and writes its whole-program call
trace as ParLOT files into the run directory DIR: DIR/trace.R.info (the
function table of rank R) and DIR/trace.R.T (thread T of rank R: 0 is the main
thread, then creation order), and adds rank R to DIR/run.json.

Start one recorder per rank, as with Pin: the launcher runs capture, capture
runs the program. The rank comes from the launcher's environment
(OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID, MV2_COMM_WORLD_RANK);
outside a launcher it is 0.

The uftrace backend records the unmodified binary: every function of the
program is patched at load time (it must not be stripped) and library calls
such as MPI_Send or GOMP_critical_start are caught where the program calls
them; --all-images also records the calls libraries make to each other.
Functions the compiler inlined are not calls and do not show; functions
uftrace cannot patch (some small optimised ones) are named on stderr and in
run.json, and a build with -pg or -fpatchable-function-entry=5 records them.

--only SPEC records only the calls a filter keeps, in rank's filter syntax
(mpi, mpi+omp, mpi+omp.crit+cust=REGEXP; "difftrace filter --help" lists
the terms): uftrace then patches none of the program's functions and records
the library calls the filter keeps where the program calls them, and nothing
else. No function of the program is kept for the call stack (run.json says so,
under "recorded"), so the traces hold the selected calls alone; a cust=REGEXP
that names functions of the program patches and records those. It costs less
than a full recording, most where the program makes many calls of its own
(BENCHMARKS.md, "Capture cost"). rank, diffnlr and hang then refuse filters
that need calls the run did not record, and rank's default grid holds the
filters the run can serve. Use it when you know which interfaces to compare
(MPI, OpenMP) and the full recording is too slow or too large; record
without it to let rank try every filter.

A program that hangs is the case that matters most: on --timeout, or when the
launcher or the user ends the job (SIGINT, SIGTERM, SIGHUP), capture takes a
stack snapshot of the program (with eu-stack), kills it, and writes every
trace up to the last call, including the call each thread was blocked in.
run.json then says the rank was killed and why. capture exits with the
program's status (128+N if signal N killed it, 124 if --timeout did), or
128+N when capture itself got signal N (130 for Ctrl-C, as every command).

A program that varies from run to run by itself (receives from any source,
dynamic schedules, work stealing) needs more than one normal run for rank to
tell its noise from a bug: record the normal run two or three times, each into
a directory of its own with the same command line, and give the others to rank
with --also-normal.`,
		Example: `  mpirun -np 16 difftrace capture -o normal -- ./oddeven
  mpirun -np 16 difftrace capture -o dlbug --timeout 10s -- ./oddeven --deadlock-bug 5 7
  mpirun -np 16 difftrace capture -o normal --only mpi+omp -- ./app
  difftrace capture -o single --all-images -- ./a.out input.txt
  for i in 1 2; do mpirun -np 8 difftrace capture -o normal-$i -- ./farm; done`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt.Command = args
			opt.ToolVersion = version
			opt.Args = os.Args[1:]
			code, err := record.Main(opt)
			if err != nil {
				return err
			}
			if code == 128+int(syscall.SIGINT) {
				interrupt.Exit(syscall.SIGINT) // a shell's loop stops too
			}
			if code != 0 {
				os.Exit(code)
			}
			return nil
		},
	}
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
