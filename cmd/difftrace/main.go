// Command difftrace finds the threads and processes a bug changed by
// comparing whole-program call traces of a good and a bad run of a parallel
// program (DiffTrace, seeds/002 chapter 3, on ParLOT traces).
package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"time"

	"github.com/difftrace/difftrace/internal/atomicfile"
	"github.com/difftrace/difftrace/internal/interrupt"
	"github.com/difftrace/difftrace/trace"
)

// defaultMemoryLimit is the soft limit of the Go heap when GOMEMLIMIT
// does not set one: the collector then works to keep the process near
// what is live (a few hundred MB for a ranking of 16,384 traces) instead
// of letting the heap grow to twice that between collections, which on
// such a run had reached 5.4 GB. A run that needs more still gets it.
const defaultMemoryLimit = 3 << 30

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
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
