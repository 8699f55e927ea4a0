package summary

import "fmt"

// NotRunError is a summary given to a reader of a run's events, which a
// summary does not hold.
type NotRunError struct {
	Dir    string // the summary
	Reader string // what reads the events: "decode", "stats", "info"
}

func (e *NotRunError) Error() string {
	return fmt.Sprintf("%s: is a summary (difftrace summarize), which rank, hang, nlr, jsm, lattice and diffnlr read; %s reads the run itself: give the run directory", e.Dir, e.Reader)
}

// CheckRun returns a *NotRunError when dir is a summary (Is), which
// reader cannot read the events of.
func CheckRun(dir, reader string) error {
	if Is(dir) {
		return &NotRunError{Dir: dir, Reader: reader}
	}
	return nil
}
