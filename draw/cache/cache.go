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
// file in it belong to the user and nobody else may write them. Otherwise
// it draws with a fresh private directory that goes away afterwards, which
// costs the compilation (under a second) on every picture.
package cache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
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
// cache directory, created if need be, when it is safe (see Check); else a
// fresh temporary directory that done removes, with a note saying why the
// cache was not used. done is never nil.
func Prepare() (dir, note string, done func(), err error) {
	done = func() {}
	dir, err = Dir()
	if err == nil {
		if err = os.MkdirAll(dir, 0o700); err == nil {
			err = Check(filepath.Dir(dir)) // difftrace's cache directory and all in it
		}
		if err == nil {
			return dir, "", done, nil
		}
		note = fmt.Sprintf("not using the drawing cache: %v; drawing without it (slower)", err)
	} else {
		note = fmt.Sprintf("no drawing cache (%v); drawing without it (slower)", err)
	}
	tmp, terr := os.MkdirTemp("", "difftrace-draw-")
	if terr != nil {
		return "", note, done, fmt.Errorf("no private directory to draw in: %v", terr)
	}
	return tmp, note, func() { os.RemoveAll(tmp) }, nil
}

// Check walks the directory dir and refuses it when it, or anything in it,
// is a symbolic link, is not owned by this user, or may be written by
// others (group or world write permission).
func Check(dir string) error {
	uid := os.Getuid()
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s is a symbolic link (remove it)", p)
		case !st.Mode().IsDir() && !st.Mode().IsRegular():
			return fmt.Errorf("%s is not a regular file (remove it)", p)
		case st.Mode().Perm()&0o022 != 0:
			return fmt.Errorf("%s may be written by other users (mode %04o; remove it, or chmod go-w it)", p, st.Mode().Perm())
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != uid {
			return fmt.Errorf("%s belongs to uid %d, not to this user (uid %d; remove it)", p, sys.Uid, uid)
		}
		return nil
	})
}

// Clear removes the cached code of the private cache directory, so that
// the next drawing compiles afresh (after the cache was found damaged).
func Clear() error {
	dir, err := Dir()
	if err != nil {
		return err
	}
	if err := Check(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.RemoveAll(filepath.Join(dir, "go-graphviz"))
}
