// Package atomicfile writes a file so that readers see either the old file
// or the whole new one, never a part: the data goes to a temporary file in
// the same directory, which is synced and renamed into place only when the
// writer commits. Every file difftrace writes (run files, pictures, tables)
// goes through it.
//
// A new file gets the mode the umask allows (0666 less the umask), a file
// written over keeps the mode it had (Replace gives the mode asked). Temporary files are named
// ".NAME.tmp-PID-RANDOM": Create removes those a killed process left beside
// NAME, and RemoveTemps, called when a command is interrupted, those of the
// running process.
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
// stays one: the file it names is written.
func Create(path string) (*File, error) {
	if st, err := os.Lstat(path); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		// Through a symbolic link, its target is written: renaming over
		// the link would replace it with a file.
		if target, err := filepath.EvalSymlinks(path); err == nil {
			path = target
		}
	}
	mode := 0o666 &^ umask()
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		mode = st.Mode().Perm()
	} else if err == nil && !st.IsDir() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
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
