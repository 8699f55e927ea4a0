// Command difftrace finds the threads and processes a bug changed by
// comparing whole-program call traces of a good and a bad run of a parallel
// program (DiffTrace, seeds/002 chapter 3, on ParLOT traces).
package main

import (
	"errors"
	"fmt"
	"github.com/difftrace/difftrace/internal/param"
	"os"
	"time"

	"github.com/difftrace/difftrace/capture/record"
	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/internal/atomicfile"
	"github.com/difftrace/difftrace/internal/interrupt"
	"github.com/difftrace/difftrace/internal/memlimit"
	"github.com/difftrace/difftrace/parlot"
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
		flagWords(err)
		fmt.Fprintln(os.Stderr, "difftrace:", trace.PrintableLines(err.Error()))
		os.Exit(1)
	}
}

// flagWords has the errors of the libraries that speak of a parameter name
// the flag or command that sets it.
func flagWords(err error) {
	var le *parlot.LimitError
	if errors.As(err, &le) {
		le.Param = "--max-events"
	}
	var me *decode.MixedProgramsError
	if errors.As(err, &me) {
		me.Allow = "pass --mixed-programs"
	}
	var de *record.DirError
	if errors.As(err, &de) {
		de.DirParam, de.ForceParam = "-o", "--force"
	}
	var ad *param.Advice
	if errors.As(err, &ad) {
		ad.Say(adviceFlags)
	}
	var nd *decode.NotDirError
	if errors.As(err, &nd) {
		nd.Hint = "use: difftrace decode --raw " + nd.Path + " --format u16"
	}
}

// adviceFlags says the libraries' advice (param.Advice) in flags.
var adviceFlags = map[string]string{
	"set Options.Unrelated":                       "--force",
	"recorded keeping only the calls of filter":   "recorded with capture --only",
	"keeping more calls, or all":                  "with a wider --only or without it",
	"exact polling":                               "--exact-polling",
	"the grid's filters and K":                    "--filters and --k",
	"name the grid's filters":                     "name filters with --filters",
	"name the grid's filters, or a custom regexp": "name filters with --filters or a regexp with --custom",
	"the call stack at an event":                  "--stack-at",
	"is text or JSON, not u16 values":             "prints tree/flat text or json, not u16",
	"u16 values work":                             "--format u16 works",
	"u16 values are":                              "--format u16 writes",
	", or list it flat":                           " or choose --format flat",
	"select one trace":                            "choose one with --trace P.T",
	"the process level":                           "--level process",
}
