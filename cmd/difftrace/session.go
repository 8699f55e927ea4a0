package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/difftrace/difftrace/internal/atomicfile"
	"github.com/difftrace/difftrace/internal/private"
	"github.com/difftrace/difftrace/rank"
)

// sessionDir is where rank leaves its inputs, parameters and result for
// later commands (diffnlr), in the current directory.
const sessionDir = ".difftrace"

const (
	sessionFile   = "session.json"
	rankingFile   = "ranking.json"
	sessionSchema = 1
)

// session is what rank remembers so that "difftrace diffnlr 5" needs no
// repetition: the runs (absolute paths), the grid, and the best-ranked
// combination.
type session struct {
	Schema int    `json:"schema"`
	Normal string `json:"normal"`
	Faulty string `json:"faulty"`
	// AlsoNormal are the further normal runs rank was given (absolute
	// paths), and ExactPolling its --exact-polling.
	AlsoNormal   []string `json:"also_normal,omitempty"`
	ExactPolling bool     `json:"exact_polling,omitempty"`
	Filters      []string `json:"filters"`
	Custom       string   `json:"custom,omitempty"`
	Ks           []int    `json:"k"`
	Attrs        []string `json:"attrs"`
	Linkages     []string `json:"linkages"`
	// Best is the first row of the ranking (lowest B-score).
	Best *rank.Row `json:"best,omitempty"`
	// Suggestion is the view rank suggests for the consensus top
	// (rank.Suggest); diffnlr of that trace with no flags shows it.
	Suggestion *rank.View `json:"suggestion,omitempty"`
	// TopThread and TopProcess are the consensus leaders.
	TopThread  string `json:"top_thread,omitempty"`
	TopProcess string `json:"top_process,omitempty"`
}

// The session directory is private to this user (internal/private): made
// 0700, and used only if it is this user's and nobody else may write it.
// A .difftrace another user made, or may write, could hold a session that
// points later commands at runs of theirs, or links that make rank write
// where they choose; it is refused, and left as it is. Its files are
// opened without following links and checked, and written under a
// temporary name renamed into place, replacing a link, never writing
// through it.

// saveSession writes .difftrace/session.json and .difftrace/ranking.json,
// each under a temporary name renamed into place, both under the session's
// lock: another rank in the same directory waits (saying so on stderr), and
// a reader (lockSession) sees both files of one rank or of the other, never
// one of each.
func saveSession(s *session, rk *rank.Ranking, stderr io.Writer) error {
	const fix = "pass --no-session"
	if err := private.MkdirAll(sessionDir); errors.Is(err, private.ErrNotPrivate) {
		return fmt.Errorf("cannot use the session: %w, or %s", err, fix)
	} else if err != nil {
		return fmt.Errorf("%s: cannot create the session directory: %w (run rank in a writable directory, or %s)", sessionDir, err, fix)
	}
	unlock, err := lockSession(syscall.LOCK_EX, stderr)
	if err != nil {
		return withFix(err, fix)
	}
	defer unlock()
	if err := writeSessionFile(filepath.Join(sessionDir, rankingFile), rk); err != nil {
		return err
	}
	return writeSessionFile(filepath.Join(sessionDir, sessionFile), s)
}

// withFix adds to an error of package private, which says what is wrong
// and to remove it, the other way round it, fix.
func withFix(err error, fix string) error {
	if errors.Is(err, private.ErrNotPrivate) {
		return fmt.Errorf("%w, or %s", err, fix)
	}
	return err
}

// lockFile is the session's lock, taken exclusively to write the session
// and shared to read it.
const lockFile = "lock"

// lockSession takes the session's lock (how: syscall.LOCK_EX or LOCK_SH),
// waiting for another difftrace that holds it, and saying so on stderr
// when it has to wait. The lock goes with the returned function, or with
// the process. A reader (LOCK_SH) creates nothing where there is no
// session directory, or where it is not private.
func lockSession(how int, stderr io.Writer) (unlock func(), err error) {
	if how == syscall.LOCK_SH {
		if err := private.CheckDir(sessionDir); errors.Is(err, fs.ErrNotExist) {
			return func() {}, nil // nothing to read under a lock
		} else if err != nil {
			return nil, fmt.Errorf("cannot use the session: %w", err)
		}
	}
	path := filepath.Join(sessionDir, lockFile)
	f, err := private.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot open the session's lock: %w", err)
	}
	err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		fmt.Fprintf(stderr, "note: another difftrace is using the session in %s; waiting for it\n", sessionDir)
		err = syscall.Flock(int(f.Fd()), how)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: cannot lock the session: %w", path, err)
	}
	return func() { f.Close() }, nil
}

// writeSessionFile writes v as JSON to path, a file of the session
// directory, replacing whatever is there (atomicfile.Replace).
func writeSessionFile(path string, v any) error {
	out, err := atomicfile.Replace(path, 0o600)
	if err != nil {
		return fmt.Errorf("%s: cannot write the session: %w", path, err)
	}
	defer out.Abort()
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := out.Commit(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// readSessionFile reads path, a file of the session directory, if the
// directory and the file are private (see above).
func readSessionFile(path string) ([]byte, error) {
	if err := private.CheckDir(sessionDir); err != nil {
		return nil, err
	}
	return private.ReadFile(path)
}

// loadSessionAndRanking reads the session and its ranking together under
// the session's lock, so that both come from one rank.
func loadSessionAndRanking(stderr io.Writer) (*session, *rank.Ranking, error) {
	unlock, err := lockSession(syscall.LOCK_SH, stderr)
	if err != nil {
		return nil, nil, withFix(err, readFix)
	}
	defer unlock()
	s, err := loadSession()
	if err != nil {
		return nil, nil, err
	}
	rk, err := loadRanking()
	if err != nil {
		return nil, nil, err
	}
	return s, rk, nil
}

// readFix is the way round a session that cannot be read.
const readFix = "give --normal and --faulty"

// loadSession reads .difftrace/session.json of the current directory. A
// missing session is reported with what to do.
func loadSession() (*session, error) {
	path := filepath.Join(sessionDir, sessionFile)
	b, err := readSessionFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no session here (%s does not exist): run \"difftrace rank NORMAL FAULTY\" in this directory first, or %s", path, readFix)
	}
	if errors.Is(err, private.ErrNotPrivate) {
		return nil, fmt.Errorf("cannot use the session: %w, or %s", err, readFix)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var s session
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: not a difftrace session: %v (run difftrace rank again to rewrite it)", path, err)
	}
	if s.Schema != sessionSchema {
		return nil, fmt.Errorf("%s: session schema %d, this difftrace reads %d (run difftrace rank again to rewrite it)", path, s.Schema, sessionSchema)
	}
	if s.Normal == "" || s.Faulty == "" {
		return nil, fmt.Errorf("%s: the session names no runs (run difftrace rank again to rewrite it)", path)
	}
	return &s, nil
}

// loadRanking reads .difftrace/ranking.json of the current directory, the
// ranking the session's rank wrote.
func loadRanking() (*rank.Ranking, error) {
	path := filepath.Join(sessionDir, rankingFile)
	b, err := readSessionFile(path)
	if errors.Is(err, private.ErrNotPrivate) {
		return nil, fmt.Errorf("cannot use the session: %w, or %s", err, readFix)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w (run difftrace rank again to rewrite it)", path, err)
	}
	var rk rank.Ranking
	if err := json.Unmarshal(b, &rk); err != nil {
		return nil, fmt.Errorf("%s: not a difftrace ranking: %v (run difftrace rank again to rewrite it)", path, err)
	}
	return &rk, nil
}
