// Package atomicfile writes a file so that readers see either the old file
// or the whole new one, never a part: the data goes to a temporary file in
// the same directory, which is synced and renamed into place only when the
// writer commits. Every file difftrace writes (run files, pictures, tables)
// goes through it.
//
// A new file gets the mode the umask allows (0666 less the umask), a file
// written over keeps the mode it had (Replace gives the mode asked). Temporary files are named
// ".NAME.tmp-PID-RANDOM", created with O_EXCL (never through a link): Create
// removes those a killed process left beside NAME, and RemoveTemps, called
// when a command is interrupted, those of the running process.
//
// A symbolic link stays one: its target is written. Since difftrace
// resolves links itself, one at a time (Resolve), the kernel's
// fs.protected_symlinks cannot guard them, so Create applies a stricter
// form of its rule to every link on the path: a link is followed only if
// it belongs to the user running difftrace or to root, or if the
// directory holding it is neither sticky nor writable by its group or by
// others (so that only its owner or root could have put the link there).
// The kernel's rule looks at sticky world-writable directories only, and
// also trusts a link owned by the directory's owner; this one does not.
// Any other link may have been planted by another user to lead the output
// onto one of the user's files; it is refused, naming the link, its owner
// and the directory. Likewise a named pipe, socket or device is written only if it
// is the user's or root's, or lies in a directory only its owner may
// change (so /dev/null, /dev/pts/N and the user's own pipes are, another
// user's pipe in /tmp is not); and another user's file in a sticky
// directory is not replaced (only root could, keeping the mode that user
// chose).
//
// A device or a pipe is written directly, never replaced. It is opened
// without blocking: a named pipe that no reader opens within a second is
// an error, not a command that waits forever; once open, it is written as
// any pipe. Links in /proc (-o /dev/stdout, /dev/fd/N, bash's >(cmd)) are
// the process's own descriptors: the kernel follows them and what they
// lead to is written directly.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// File is a file being written under a temporary name.
type File struct {
	f    *os.File
	path string
	mode fs.FileMode
	// direct is set when path is a device or a pipe (/dev/null,
	// /dev/stdout, a named pipe): it is written as it is, since renaming
	// a file over it would replace the device with a file.
	direct bool
	noSync bool // see NoSync
}

// live are the temporary files of this process not yet committed or
// aborted; closed is set once RemoveTemps has run.
var live struct {
	sync.Mutex
	files  map[string]bool
	closed bool
}

// ErrInterrupted is returned by Create once the process is being ended.
var ErrInterrupted = errors.New("the command is being interrupted")

var umask = sync.OnceValue(func() fs.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m)
})

// Create starts writing path. Nothing at path changes until Commit, unless
// path is a device or a pipe, which is written directly. A symbolic link
// stays one: the file it names is written. Links, pipes and devices that
// another user may have planted are refused with a *RefusedError, and so
// is a named pipe that nobody reads (see the package comment).
func Create(path string) (*File, error) {
	path, err := Resolve(path)
	if err != nil {
		return nil, err
	}
	mode := 0o666 &^ umask()
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	case st.Mode()&fs.ModeSymlink != 0:
		// Only a link in /proc is left unresolved: a descriptor of
		// this process (-o /dev/stdout, -o /dev/fd/3, bash's >(cmd)),
		// written as it is, whatever it leads to.
		if st, err = os.Stat(path); err != nil {
			return nil, err
		}
		if st.IsDir() {
			return nil, &fs.PathError{Op: "create", Path: path, Err: syscall.EISDIR}
		}
		f, err := openDirect(path, st, true)
		if err != nil {
			return nil, err
		}
		return &File{f: f, path: path, direct: true}, nil
	case st.Mode().IsRegular():
		if err := mayReplace(path, st); err != nil {
			return nil, err
		}
		mode = st.Mode().Perm()
	case st.IsDir():
		return nil, &fs.PathError{Op: "create", Path: path, Err: syscall.EISDIR}
	default:
		// A device or a pipe: renaming a file over it would replace it.
		if err := mayWrite(path, st); err != nil {
			return nil, err
		}
		f, err := openDirect(path, st, false)
		if err != nil {
			return nil, err
		}
		return &File{f: f, path: path, direct: true}, nil
	}
	return create(path, mode)
}

// Replace starts writing path as Create does, but the new file has the
// mode perm, and whatever is at path (a symbolic link, a device, a pipe) is
// replaced by it at Commit, never written through: for the files difftrace
// keeps for itself in a directory of its own (internal/private), where a
// link found at path is not the user's choice of where to write.
func Replace(path string, perm fs.FileMode) (*File, error) {
	return create(path, perm.Perm())
}

// create starts writing path, to be given mode, under a temporary name.
func create(path string, mode fs.FileMode) (*File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	removeStale(dir, base)
	live.Lock()
	defer live.Unlock()
	if live.closed {
		return nil, ErrInterrupted
	}
	f, err := os.CreateTemp(dir, tempPrefix(base)+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return nil, err
	}
	if live.files == nil {
		live.files = map[string]bool{}
	}
	live.files[f.Name()] = true
	return &File{f: f, path: path, mode: mode}, nil
}

func tempPrefix(base string) string { return "." + base + ".tmp-" }

// removeStale removes the temporary files for base in dir that processes
// no longer running left behind (a command killed while writing).
func removeStale(dir, base string) {
	matches, _ := filepath.Glob(filepath.Join(dir, globEscape(tempPrefix(base))+"*"))
	for _, m := range matches {
		rest := strings.TrimPrefix(filepath.Base(m), tempPrefix(base))
		pid, err := strconv.Atoi(rest[:max(strings.IndexByte(rest, '-'), 0)])
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			os.Remove(m)
		}
	}
}

// globEscape quotes the characters filepath.Match treats specially.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Write writes to the temporary file.
func (a *File) Write(p []byte) (int, error) { return a.f.Write(p) }

// NoSync makes Commit rename the file into place without syncing it to the
// disk first: readers still never see half a file, but a crash of the
// machine soon after may leave it empty. For files written as a tracer
// writes its own (capture), where a sync per file would cost the run's
// time.
func (a *File) NoSync() { a.noSync = true }

// Commit gives the file its mode, syncs it (unless NoSync) and renames it
// into place. On an error the temporary file is removed and path is left as
// it was.
func (a *File) Commit() error {
	if a.f == nil {
		return os.ErrClosed
	}
	if a.direct {
		err := a.f.Close()
		a.f = nil
		return err
	}
	tmp := a.f.Name()
	err := a.f.Chmod(a.mode)
	if err == nil && !a.noSync {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, a.path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	forget(tmp)
	a.f = nil
	return err
}

// Abort discards the temporary file; path is left as it was. It does
// nothing after Commit.
func (a *File) Abort() {
	if a.f == nil {
		return
	}
	if a.direct {
		a.f.Close()
		a.f = nil
		return
	}
	a.f.Close()
	os.Remove(a.f.Name())
	forget(a.f.Name())
	a.f = nil
}

func forget(tmp string) {
	live.Lock()
	delete(live.files, tmp)
	live.Unlock()
}

// RemoveTemps removes every temporary file of this process and makes later
// Creates fail: for a command that is being interrupted. It returns how
// many it removed.
func RemoveTemps() (int, error) {
	live.Lock()
	defer live.Unlock()
	live.closed = true
	n := 0
	var errs []error
	for tmp := range live.files {
		if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("removing %s: %w", tmp, err))
			continue
		}
		n++
	}
	live.files = nil
	return n, errors.Join(errs...)
}
