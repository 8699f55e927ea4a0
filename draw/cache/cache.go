// Package cache chooses where go-graphviz keeps the native code it compiles
// from Graphviz's WebAssembly module (wazero's compilation cache), so that
// no other user can plant code there.
//
// go-graphviz puts its cache in $TMPDIR/go-graphviz, decided when the
// package initialises. On a shared machine /tmp is everybody's: another
// user could create that directory first and plant a file whose code the
// next drawing would run, or an empty one that breaks drawing for all. The
// drawing helper therefore sets TMPDIR, before go-graphviz initialises, to
// a directory of its own user (Prepare): Dir, under the user's cache
// directory (os.UserCacheDir), made 0700, and used only if it and every
// file in it belong to the user and nobody else may write them (package
// internal/private). Otherwise
// it draws with a fresh private directory that goes away afterwards, which
// costs the compilation (under a second) on every picture.
package cache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/difftrace/difftrace/internal/private"
)

// Dir returns the private cache directory of this user:
// $XDG_CACHE_HOME/difftrace/graphviz, or ~/.cache/difftrace/graphviz.
func Dir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "difftrace", "graphviz"), nil
}

// Prepare returns the directory to hand go-graphviz as TMPDIR: the private
// cache directory, created if need be, when it is safe (private.Check);
// else a fresh temporary directory that done removes, with a note saying
// why the cache was not used. done is never nil.
func Prepare() (dir, note string, done func(), err error) {
	done = func() {}
	dir, err = Dir()
	if err == nil {
		// Each level on its own: nothing is made through a link planted
		// at difftrace's cache directory.
		if err = private.MkdirAll(filepath.Dir(dir)); err == nil {
			err = private.MkdirAll(dir)
		}
		if err == nil {
			err = private.Check(filepath.Dir(dir)) // difftrace's cache directory and all in it
		}
		if err == nil {
			return dir, "", done, nil
		}
		fix := ""
		if errors.Is(err, private.ErrNotPrivate) {
			fix = ", or set XDG_CACHE_HOME to a directory of your own"
		}
		note = fmt.Sprintf("not using the drawing cache: %v%s; drawing without it (slower)", err, fix)
	} else {
		note = fmt.Sprintf("no drawing cache (%v); drawing without it (slower)", err)
	}
	tmp, terr := os.MkdirTemp("", "difftrace-draw-")
	if terr != nil {
		return "", note, done, fmt.Errorf("no private directory to draw in: %w", terr)
	}
	return tmp, note, func() { os.RemoveAll(tmp) }, nil
}

// Clear removes the cached code of the private cache directory, so that
// the next drawing compiles afresh (after the cache was found damaged).
func Clear() error {
	dir, err := Dir()
	if err != nil {
		return err
	}
	if err := private.Check(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.RemoveAll(filepath.Join(dir, "go-graphviz"))
}
