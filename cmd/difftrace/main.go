// Command difftrace finds the threads and processes a bug changed by
// comparing whole-program call traces of a good and a bad run of a parallel
// program (DiffTrace, seeds/002 chapter 3, on ParLOT traces).
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := newRootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "difftrace:", err)
		os.Exit(1)
	}
}
