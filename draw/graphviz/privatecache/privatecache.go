// Package privatecache points TMPDIR at a directory only this user can
// write (see package draw/cache) when it is initialised, which the Go
// specification orders before go-graphviz's own initialisation: packages
// initialise in import-path order among those whose imports are ready, and
// this one imports only the standard library, draw/cache and
// internal/private, and sorts before github.com/goccy/go-graphviz.
// Importing it is all a program that links go-graphviz needs to do;
// package draw/graphviz does.
package privatecache

import (
	"fmt"
	"os"

	"github.com/difftrace/difftrace/draw/cache"
)

// Dir is the directory TMPDIR was set to; Note says why it is not the
// private cache, if it is not; Done removes it when it is a temporary one.
var (
	Dir  string
	Note string
	Done = func() {}
)

func init() {
	dir, note, done, err := cache.Prepare()
	if err != nil {
		fmt.Fprintf(os.Stderr, "difftrace-draw: %v\n", err)
		os.Exit(1)
	}
	Dir, Note, Done = dir, note, done
	os.Setenv("TMPDIR", dir)
}
