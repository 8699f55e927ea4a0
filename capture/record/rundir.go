package record

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/difftrace/difftrace/internal/atomicfile"
	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/internal/private"
	"github.com/difftrace/difftrace/rundir"
)

// A run directory is written by every rank's recorder at once: the first
// writes run.json, each one appends its rank's entry to the rank log
// (rundir.RankLogName) while holding an exclusive flock on a lock file,
// and the last to end folds the log into run.json, written under a
// temporary name before it is renamed into place.

// lockName is the lock file of a run directory.
const lockName = ".run.lock"

// activeName is the file every recorder of a run directory holds a shared
// flock on from its start until its traces and its entry of run.json are
// written. A launcher that ends a job kills the recorders it started, but
// their workers go on writing for a moment after the launcher returns;
// readers take the lock exclusively to wait for them (WaitRecorded). The
// kernel drops the lock of a recorder that dies, so it never goes stale.
const activeName = ".run.active"

// holdActive creates dir and takes a shared lock on its activeName, held
// until release is called.
func holdActive(dir string) (release func(), err error) {
	if err := atomicfile.MkdirAll(dir, 0o755); err != nil {
		return nil, fileError(dir, err)
	}
	p := filepath.Join(dir, activeName)
	// Never through a link, nor a file another user may write
	// (openLock): the lock is difftrace's own.
	f, err := openLock(p)
	if err != nil {
		return nil, err
	}
	if err := flock(f, syscall.LOCK_SH); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", p, err)
	}
	return func() { f.Close() }, nil
}

// openLock opens a lock file of a run directory, making it if need be,
// never through a symbolic link: one another user planted there would have
// difftrace make or lock a file elsewhere.
func openLock(p string) (*os.File, error) {
	f, err := private.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if errors.Is(err, private.ErrNotPrivate) {
		return nil, fmt.Errorf("%w (difftrace keeps a lock file of the run there), or write the run to another directory with -o", err)
	}
	if err != nil {
		return nil, fileError(p, err)
	}
	return f, nil
}

// flock applies a flock operation, retrying when a signal interrupts it.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}

// RecordedWait bounds Waiter's wait for recorders still writing a run:
// longer than a recorder takes to snapshot, kill and write out a hung
// rank.
const RecordedWait = 5 * time.Minute

// Waiter returns a function that waits until the recorders of a run
// directory have written it (WaitRecorded, for at most RecordedWait),
// saying on w that it waits: a launcher that ends a job (a hang, a
// timeout, Ctrl-C) returns while the recorders it killed are still
// writing their traces. Readers take it as their Wait option.
func Waiter(w io.Writer) func(dir string) error {
	return func(dir string) error {
		return WaitRecorded(dir, RecordedWait, func() {
			fmt.Fprintf(w, "waiting for the recorders still writing %s (the job ended before they finished)\n", dir)
		})
	}
}

// WaitRecorded waits until no recorder is writing the run directory dir,
// for at most timeout; waiting is called once, before the wait, if a
// recorder is. A directory that no recorder of this version wrote (no
// activeName in it) is never waited for. It returns an error if recorders
// are still writing when the time is up.
func WaitRecorded(dir string, timeout time.Duration, waiting func()) error {
	p := filepath.Join(dir, activeName)
	// Read as found, whoever's run it is, but never through a link nor
	// blocking on a named pipe put in its place: only a regular file is
	// capture's mark.
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	deadline := time.Now().Add(timeout)
	for i := 0; ; i++ {
		err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			flock(f, syscall.LOCK_UN)
			return nil
		}
		if err != syscall.EWOULDBLOCK {
			return nil // a file system without flock: nothing to wait for
		}
		if i == 0 && waiting != nil {
			waiting()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: its recorders are still writing the run after %s; wait until they finish (difftrace capture is still running on this host)", dir, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// lockRunDir takes the run directory's lock, waiting for other recorders.
func lockRunDir(dir string) (unlock func(), err error) {
	f, err := openLock(filepath.Join(dir, lockName))
	if err != nil {
		return nil, err
	}
	if err := flock(f, syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", f.Name(), err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// readManifest reads run.json as written, without the ranks logged since
// (rundir.ReadWritten), returning nil if there is none.
func readManifest(dir string) (*rundir.Manifest, error) {
	m, err := rundir.ReadWritten(filepath.Join(dir, rundir.ManifestName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return m, err
}

// writeManifest writes run.json atomically (rundir.WriteManifest), its
// errors naming the file and, for a full disk, what to do.
func writeManifest(dir string, m *rundir.Manifest) error {
	if err := rundir.WriteManifest(dir, m); err != nil {
		return fileError(filepath.Join(dir, rundir.ManifestName), err)
	}
	return nil
}

// isRunFile reports whether a file name in a run directory belongs to a
// recorded run: the manifest, the locks, trace files of prefix, a kept
// uftrace recording, or a temporary file of any of them.
func isRunFile(name, prefix string) bool {
	name = strings.TrimPrefix(name, ".")
	return name == rundir.ManifestName || name == strings.TrimPrefix(rundir.RankLogName, ".") || name == strings.TrimPrefix(lockName, ".") || name == strings.TrimPrefix(activeName, ".") ||
		strings.HasPrefix(name, prefix+".") || strings.HasPrefix(name, rundir.ManifestName+".tmp") ||
		strings.HasPrefix(name, "uftrace.") || name == UnpatchedName
}

// checkRunDir refuses, without creating or changing anything, a directory
// that claimRunDir would refuse: one that holds another launch's run, a
// damaged run.json, or files that are not a run (all unless force). A
// directory that does not exist yet is fine. claimRunDir checks again
// under the directory's lock. A directory reached through a link that
// another user may have planted is refused, force or not (see
// atomicfile.Resolve).
func checkRunDir(dir string, tmpl rundir.Manifest, force bool) error {
	if _, err := atomicfile.Resolve(dir); err != nil {
		return fileError(dir, err)
	}
	if force {
		return nil
	}
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fileError(dir, err)
	}
	if !st.IsDir() {
		return &DirError{Dir: dir, Kind: DirIsFile}
	}
	m, err := readManifest(dir)
	switch {
	case err != nil:
		return &DirError{Dir: dir, Kind: DirDamaged, Err: err}
	case m != nil && m.Launch != tmpl.Launch:
		return &DirError{Dir: dir, Kind: DirOtherRun, Holds: otherRun(m)}
	case m == nil:
		// Another rank of this launch may be writing the first run.json
		// (under the lock, as a temporary file), or may have written it
		// since it was read here: claimRunDir decides then.
		ents, err := os.ReadDir(dir)
		if err != nil {
			return fileError(dir, err)
		}
		for _, e := range ents {
			if n := e.Name(); n != lockName && n != activeName && n != rundir.ManifestName && !strings.HasPrefix(n, "."+rundir.ManifestName+".tmp") {
				return &DirError{Dir: dir, Kind: DirNotEmpty, Holds: n}
			}
		}
	}
	return nil
}

// otherRun says which run m is: its command and when it started.
func otherRun(m *rundir.Manifest) string {
	return fmt.Sprintf("%s, started %s", strings.Join(m.Command, " "), m.Start.Local().Format(time.DateTime))
}

// claimRunDir makes dir the run directory of this launch, or refuses: a
// directory that holds another launch's run, or files that are not a run
// at all, is only reused with force (which removes the old run's files).
// It then records this rank's start. It runs under the directory's lock.
//
// Only the first rank of a launch writes run.json here; the others, finding
// it theirs, read it under a shared lock, all at once, and their entries
// are added once their programs have started (updateRank): on a node whose
// ranks start together, claims written one after the other under the
// exclusive lock held up every rank's start by tens of milliseconds.
func claimRunDir(dir string, tmpl rundir.Manifest, r rundir.Rank, force bool) error {
	if err := atomicfile.MkdirAll(dir, 0o755); err != nil {
		return fileError(dir, err)
	}
	if ok, err := joinRun(dir, tmpl, r); ok || err != nil {
		return err
	}
	unlock, err := lockRunDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	m, err := readManifest(dir)
	if err != nil && !force {
		return &DirError{Dir: dir, Kind: DirDamaged, Err: err}
	}
	if m != nil && m.Launch != tmpl.Launch {
		if !force {
			return &DirError{Dir: dir, Kind: DirOtherRun, Holds: otherRun(m)}
		}
		if err := removeRun(dir, m.Prefix); err != nil {
			return err
		}
		m = nil
	}
	if m == nil {
		if err := claimEmpty(dir, tmpl.Prefix, force); err != nil {
			return err
		}
		mm := tmpl
		m = &mm
		m.Ranks = nil
	}
	if err := sameLaunch(dir, m, tmpl); err != nil {
		return err
	}
	putRank(m, r)
	removeRankFiles(dir, m.Prefix, r.Rank)
	return writeManifest(dir, m)
}

// joinRun claims dir for rank r when it already holds this launch's
// run.json: it checks the rank records as the others do and removes what
// an earlier attempt of this rank left, under a shared lock. It returns
// false, and no error, when dir holds no run of this launch yet.
func joinRun(dir string, tmpl rundir.Manifest, r rundir.Rank) (bool, error) {
	f, err := openLock(filepath.Join(dir, lockName))
	if err != nil {
		return false, err
	}
	defer f.Close()
	if err := flock(f, syscall.LOCK_SH); err != nil {
		return false, fmt.Errorf("locking %s: %w", f.Name(), err)
	}
	m, err := readManifest(dir)
	if err != nil || m == nil || m.Launch != tmpl.Launch {
		return false, nil // claimRunDir decides, under the exclusive lock
	}
	if err := sameLaunch(dir, m, tmpl); err != nil {
		return false, err
	}
	removeRankFiles(dir, m.Prefix, r.Rank)
	return true, nil
}

// sameLaunch refuses a rank whose options differ from those the launch's
// run.json m records.
func sameLaunch(dir string, m *rundir.Manifest, tmpl rundir.Manifest) error {
	if m.Backend != tmpl.Backend || m.Images != tmpl.Images || m.Prefix != tmpl.Prefix {
		return fmt.Errorf("%s: the other ranks of this launch record with backend %s, images %s, prefix %s; give every rank the same options", dir, m.Backend, m.Images, m.Prefix)
	}
	if recordedFilter(m.Recorded) != recordedFilter(tmpl.Recorded) {
		return param.Errorf("only", "", "the other ranks of this launch in %s record %s, this one %s; give every rank the same filter", dir, recordedFilter(m.Recorded), recordedFilter(tmpl.Recorded))
	}
	if m.Size != tmpl.Size {
		return fmt.Errorf("%s: the other ranks of this launch say it started %d processes, this one %d; record each launch into a directory of its own", dir, m.Size, tmpl.Size)
	}
	return nil
}

// removeRankFiles removes the files an earlier attempt of this launch
// left for rank, which the new recording replaces.
func removeRankFiles(dir, prefix string, rank int) {
	old, _ := filepath.Glob(filepath.Join(dir, rundir.Stem(prefix, rank)+".*"))
	partial, _ := filepath.Glob(filepath.Join(dir, "."+rundir.Stem(prefix, rank)+".partial-*"))
	for _, p := range append(old, partial...) {
		os.Remove(p)
	}
}

// recordedFilter says what a recording selected: "only the calls F
// keeps" for its filter F, or "every call".
func recordedFilter(r *rundir.Recorded) string {
	if r == nil {
		return "every call"
	}
	return "only the calls " + r.Filter + " keeps"
}

// claimEmpty checks that dir, which holds no run.json, holds nothing else
// but the locks; with force it removes what a run with prefix left there
// and lets any other file be.
func claimEmpty(dir, prefix string, force bool) error {
	if force {
		return removeRun(dir, prefix)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.Name() != lockName && e.Name() != activeName {
			return &DirError{Dir: dir, Kind: DirNotEmpty, Holds: e.Name()}
		}
	}
	return nil
}

// removeRun deletes the files of the run recorded in dir with prefix.
func removeRun(dir, prefix string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.Name() != lockName && e.Name() != activeName && isRunFile(e.Name(), prefix) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// updateRank replaces this rank's entry of run.json and extends the run's
// end, under the directory's lock: it appends the entry to the rank log
// (rundir.AppendRank), which the last recorder to end folds into run.json
// (assembleIfLast), so that no rank rewrites the whole manifest.
func updateRank(dir string, tmpl rundir.Manifest, r rundir.Rank) error {
	unlock, err := lockRunDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	m, err := readManifest(dir)
	if err != nil {
		return err
	}
	if m == nil || m.Launch != tmpl.Launch {
		// Another launch took the directory over with --force while this
		// one ran: do not mix the two.
		return fmt.Errorf("%s: the run directory was taken over by another launch while rank %d was recording; its traces are incomplete", dir, r.Rank)
	}
	if err := rundir.AppendRank(dir, r); err != nil {
		return fileError(filepath.Join(dir, rundir.RankLogName), err)
	}
	return nil
}

// assembleIfLast folds the rank log into run.json (rundir.Assemble) when
// no other recorder of the run directory is running: the caller has
// written its rank's end and let go of its own hold (holdActive). A
// recorder that starts later assembles again when it ends.
func assembleIfLast(dir string) error {
	f, err := openLock(filepath.Join(dir, activeName))
	if err != nil {
		return err
	}
	defer f.Close()
	if err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return nil // others still record (or no flock here): the last one assembles
	}
	return assemble(dir)
}

// assemble folds the rank log into run.json under the directory's lock.
func assemble(dir string) error {
	unlock, err := lockRunDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	if err := rundir.Assemble(dir); err != nil {
		return fileError(filepath.Join(dir, rundir.ManifestName), err)
	}
	return nil
}

// putRank replaces r's entry of the manifest and widens the run's start
// and end to cover it.
func putRank(m *rundir.Manifest, r rundir.Rank) {
	m.Ranks = slices.DeleteFunc(m.Ranks, func(x rundir.Rank) bool { return x.Rank == r.Rank })
	m.Ranks = append(m.Ranks, r)
	if m.Start.IsZero() || r.Start.Before(m.Start) {
		m.Start = r.Start
	}
	if r.End.After(m.End) {
		m.End = r.End
	}
}
