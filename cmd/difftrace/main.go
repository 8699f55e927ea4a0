// Command difftrace finds the threads and processes a bug changed by
// comparing whole-program call traces of a good and a bad run of a parallel
// program (DiffTrace, seeds/002 chapter 3, on ParLOT traces).
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/difftrace/difftrace/internal/atomicfile"
	"github.com/difftrace/difftrace/internal/interrupt"
	"github.com/difftrace/difftrace/internal/memlimit"
	"github.com/difftrace/difftrace/trace"
)

func main() {
	// The heap's soft limit: 3 GB, or less under an address-space limit
	// (ulimit -v), where the runtime has reserved much of it already.
	memlimit.Apply()
	if err := newRootCmd().Execute(); err != nil {
		if interrupt.Interrupted() {
			// The signal's handler is ending the command: its exit
			// status (128 + the signal) is the one to leave with, and
			// this error (a helper it killed, say) is only its echo.
			for {
				time.Sleep(time.Second)
			}
		}
		// Outputs not committed (a --cpuprofile the failed command did
		// not get to write) leave no temporary file behind.
		atomicfile.RemoveTemps()
		// An error may quote a name or a path from the traces: escaped
		// as output is (trace.Printable), keeping its lines.
		fmt.Fprintln(os.Stderr, "difftrace:", trace.PrintableLines(err.Error()))
		os.Exit(1)
	}
}
