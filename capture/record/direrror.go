package record

import "fmt"

// DirError is an output directory that capture does not write a run into
// unless told to: it is a file, or holds another run, a damaged one, or
// files of no run of this launch.
type DirError struct {
	Dir   string
	Kind  DirProblem
	Holds string // what it holds: the other run's command and start, or a file's name
	Err   error  // a damaged run's error (DirDamaged)
	// DirParam and ForceParam name how the caller chooses the output
	// directory and forces its use; "" names Options.Dir and Options.Force.
	// A command line names its flags.
	DirParam, ForceParam string
}

// DirProblem is what is wrong with an output directory.
type DirProblem int

// What an output directory may hold that capture will not write over.
const (
	DirIsFile   DirProblem = iota // a file, not a directory
	DirDamaged                    // a run whose run.json cannot be read
	DirOtherRun                   // another launch's run
	DirNotEmpty                   // files of no run of this launch
)

func (e *DirError) Error() string {
	dir, force := e.DirParam, e.ForceParam
	if dir == "" {
		dir = "Options.Dir"
	}
	if force == "" {
		force = "Options.Force"
	}
	switch e.Kind {
	case DirIsFile:
		return fmt.Sprintf("%s is a file, not a directory; choose a new directory for the run with %s", e.Dir, dir)
	case DirDamaged:
		return fmt.Sprintf("%v\n(the output directory holds a damaged run; choose another %s, or pass %s to replace it)", e.Err, dir, force)
	case DirOtherRun:
		return fmt.Sprintf("%s already holds another run (%s); choose another %s, or pass %s to replace it", e.Dir, e.Holds, dir, force)
	}
	return fmt.Sprintf("%s is not empty and holds no run of this launch (%s…); choose an empty or new directory, or pass %s to write into it anyway", e.Dir, e.Holds, force)
}

func (e *DirError) Unwrap() error { return e.Err }
