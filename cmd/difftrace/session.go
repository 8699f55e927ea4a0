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

// saveSession writes .difftrace/session.json and .difftrace/ranking.json,
// each under a temporary name renamed into place, both under the session's
// lock: another rank in the same directory waits (saying so on stderr), and
// a reader (lockSession) sees both files of one rank or of the other, never
// one of each.
func saveSession(s *session, rk *rank.Ranking, stderr io.Writer) error {
	if err := os.MkdirAll(sessionDir, 0o755); err != nil {
		return fmt.Errorf("%s: cannot create the session directory: %v (run rank in a writable directory, or pass --no-session)", sessionDir, err)
	}
	unlock, err := lockSession(syscall.LOCK_EX, stderr)
	if err != nil {
		return err
	}
	defer unlock()
	if err := writeJSONFile(filepath.Join(sessionDir, rankingFile), rk); err != nil {
		return err
	}
	return writeJSONFile(filepath.Join(sessionDir, sessionFile), s)
}

// lockFile is the session's lock, taken exclusively to write the session
// and shared to read it.
const lockFile = "lock"

// lockSession takes the session's lock (how: syscall.LOCK_EX or LOCK_SH),
// waiting for another difftrace that holds it, and saying so on stderr
// when it has to wait. The lock goes with the returned function, or with
// the process.
func lockSession(how int, stderr io.Writer) (unlock func(), err error) {
	path := filepath.Join(sessionDir, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if errors.Is(err, fs.ErrNotExist) && how == syscall.LOCK_SH {
		return func() {}, nil // no session directory: nothing to read under a lock
	}
	if err != nil {
		return nil, fmt.Errorf("%s: cannot open the session's lock: %v", path, err)
	}
	err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		fmt.Fprintf(stderr, "note: another difftrace is using the session in %s; waiting for it\n", sessionDir)
		err = syscall.Flock(int(f.Fd()), how)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: cannot lock the session: %v", path, err)
	}
	return func() { f.Close() }, nil
}

func writeJSONFile(path string, v any) error {
	out, err := createOutput(path, nil)
	if err != nil {
		return err
	}
	defer out.Abort()
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing %s: %v", path, err)
	}
	return out.Commit()
}

// loadSessionAndRanking reads the session and its ranking together under
// the session's lock, so that both come from one rank.
func loadSessionAndRanking(stderr io.Writer) (*session, *rank.Ranking, error) {
	unlock, err := lockSession(syscall.LOCK_SH, stderr)
	if err != nil {
		return nil, nil, err
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

// loadSession reads .difftrace/session.json of the current directory. A
// missing session is reported with what to do.
func loadSession() (*session, error) {
	path := filepath.Join(sessionDir, sessionFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no session here (%s does not exist): run \"difftrace rank NORMAL FAULTY\" in this directory first, or give --normal and --faulty", path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
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
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %v (run difftrace rank again to rewrite it)", path, err)
	}
	var rk rank.Ranking
	if err := json.Unmarshal(b, &rk); err != nil {
		return nil, fmt.Errorf("%s: not a difftrace ranking: %v (run difftrace rank again to rewrite it)", path, err)
	}
	return &rk, nil
}
