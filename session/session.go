// Package session is what "difftrace rank" remembers in .difftrace/ of the
// current directory, so that "difftrace diffnlr 5" needs no repetition: the
// runs, the grid, the best-ranked combination, the suggested view, and the
// ranking itself. The directory is private to the user (internal/private).
package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/internal/atomicfile"
	"github.com/difftrace/difftrace/internal/private"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/report"
	"github.com/difftrace/difftrace/trace"
)

// Dir is where rank leaves its inputs, parameters and result for later
// commands (diffnlr), in the current directory.
const Dir = ".difftrace"

// The files of Dir, and the schema of File this package reads and writes.
const (
	File        = "session.json"
	RankingFile = "ranking.json"
	Schema      = 1
)

// Path is the session's file, .difftrace/session.json.
var Path = filepath.Join(Dir, File)

// Session is what rank remembers so that "difftrace diffnlr 5" needs no
// repetition: the runs (absolute paths), the grid, and the best-ranked
// combination.
type Session struct {
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

// Save writes .difftrace/session.json and .difftrace/ranking.json, each
// under a temporary name renamed into place, both under the session's
// lock: another rank in the same directory waits (saying so on stderr), and
// a reader (LoadWithRanking) sees both files of one rank or of the other,
// never one of each. fix says in the errors how the user does without a
// session ("pass --no-session").
func Save(s *Session, rk *rank.Ranking, stderr io.Writer, fix string) error {
	if err := private.MkdirAll(Dir); errors.Is(err, private.ErrNotPrivate) {
		return fmt.Errorf("cannot use the session: %w, or %s", err, fix)
	} else if err != nil {
		return fmt.Errorf("%s: cannot create the session directory: %w (run rank in a writable directory, or %s)", Dir, err, fix)
	}
	unlock, err := lockSession(syscall.LOCK_EX, stderr)
	if err != nil {
		return withFix(err, fix)
	}
	defer unlock()
	if err := writeSessionFile(filepath.Join(Dir, RankingFile), rk); err != nil {
		return err
	}
	return writeSessionFile(filepath.Join(Dir, File), s)
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
		if err := private.CheckDir(Dir); errors.Is(err, fs.ErrNotExist) {
			return func() {}, nil // nothing to read under a lock
		} else if err != nil {
			return nil, fmt.Errorf("cannot use the session: %w", err)
		}
	}
	path := filepath.Join(Dir, lockFile)
	f, err := private.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot open the session's lock: %w", err)
	}
	err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		fmt.Fprintf(stderr, "note: another difftrace is using the session in %s; waiting for it\n", Dir)
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
	if err := private.CheckDir(Dir); err != nil {
		return nil, err
	}
	return private.ReadFile(path)
}

// LoadWithRanking reads the session and its ranking together under the
// session's lock, so that both come from one rank. readFix says in the
// errors how the user does without the session ("give --normal and
// --faulty").
func LoadWithRanking(stderr io.Writer, readFix string) (*Session, *rank.Ranking, error) {
	unlock, err := lockSession(syscall.LOCK_SH, stderr)
	if err != nil {
		return nil, nil, withFix(err, readFix)
	}
	defer unlock()
	s, err := Load(readFix)
	if err != nil {
		return nil, nil, err
	}
	rk, err := loadRanking(readFix)
	if err != nil {
		return nil, nil, err
	}
	return s, rk, nil
}

// Load reads .difftrace/session.json of the current directory. A missing
// session is reported with what to do: run rank, or readFix.
func Load(readFix string) (*Session, error) {
	path := filepath.Join(Dir, File)
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
	var s Session
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: not a difftrace session: %w (run difftrace rank again to rewrite it)", path, err)
	}
	if s.Schema != Schema {
		return nil, fmt.Errorf("%s: session schema %d, this difftrace reads %d (run difftrace rank again to rewrite it)", path, s.Schema, Schema)
	}
	if s.Normal == "" || s.Faulty == "" {
		return nil, fmt.Errorf("%s: the session names no runs (run difftrace rank again to rewrite it)", path)
	}
	return &s, nil
}

// loadRanking reads .difftrace/ranking.json of the current directory, the
// ranking the session's rank wrote.
func loadRanking(readFix string) (*rank.Ranking, error) {
	path := filepath.Join(Dir, RankingFile)
	b, err := readSessionFile(path)
	if errors.Is(err, private.ErrNotPrivate) {
		return nil, fmt.Errorf("cannot use the session: %w, or %s", err, readFix)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w (run difftrace rank again to rewrite it)", path, err)
	}
	var rk rank.Ranking
	if err := json.Unmarshal(b, &rk); err != nil {
		return nil, fmt.Errorf("%s: not a difftrace ranking: %w (run difftrace rank again to rewrite it)", path, err)
	}
	return &rk, nil
}

// New returns what diffnlr needs to follow the ranking rk of the runs
// normal, faulty and alsoNormal (made absolute), swept with the custom
// expression custom and exactPolling as given.
func New(normal, faulty string, alsoNormal []string, custom string, exactPolling bool, rk *rank.Ranking) (*Session, error) {
	s := &Session{Schema: Schema, Filters: rk.Filters, Custom: custom, Ks: rk.Ks, Attrs: rk.Attrs, Linkages: rk.Links}
	var err error
	if s.Normal, err = filepath.Abs(normal); err != nil {
		return nil, err
	}
	if s.Faulty, err = filepath.Abs(faulty); err != nil {
		return nil, err
	}
	for _, d := range alsoNormal {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, err
		}
		s.AlsoNormal = append(s.AlsoNormal, abs)
	}
	s.ExactPolling = exactPolling
	if best, ok := rk.Best(); ok {
		s.Best = &best
	}
	s.Suggestion = rk.Suggestion
	if len(rk.ThreadVotes) > 0 {
		s.TopThread = rk.ThreadVotes[0].ID.String()
	}
	if len(rk.ProcessVotes) > 0 {
		s.TopProcess = rk.ProcessVotes[0].ID.String()
	}
	return s, nil
}

// Keep saves (Save) the session that follows the ranking rk of the runs
// normal, faulty and alsoNormal (New) together with rk: what rank leaves
// for diffnlr. stderr and fix are Save's.
func Keep(normal, faulty string, alsoNormal []string, custom string, exactPolling bool, rk *rank.Ranking, stderr io.Writer, fix string) error {
	s, err := New(normal, faulty, alsoNormal, custom, exactPolling, rk)
	if err != nil {
		return err
	}
	return Save(s, rk, stderr, fix)
}

// Pick is the view a session picks for the diffNLR of one trace.
type Pick struct {
	Filter string
	K      int
	// Source says where the view comes from, for the diff's header; Note,
	// when set, why it is not one that shows the trace changed.
	Source, Note string
}

// Pick chooses the filter and K for the diffNLR of id: the view rank
// suggested for id, or for another trace the one rank.Suggest picks over
// the session's ranking rk (the shortest non-empty diff among the rows
// where id is the top suspect, …), folding the runs of c as needed. When
// no filter shows id changed, the best-ranked row's stays, and the note
// says so. The session must have a best row.
func (s *Session) Pick(c *compare.Comparison, rk *rank.Ranking, id trace.ID) (Pick, error) {
	v := s.Suggestion
	if v == nil || v.Trace != id {
		fold := func(specs []string, ks []int) ([]*compare.NLR, error) {
			fs := make([]*filters.Filter, len(specs))
			for i, spec := range specs {
				var err error
				if fs[i], err = filters.Parse(spec); err != nil {
					return nil, fmt.Errorf("%s: filter %q: %w (run difftrace rank again)", Path, spec, err)
				}
			}
			return c.Recognize(fs, ks)
		}
		broadest := ""
		if len(rk.Filters) > 0 {
			broadest = rk.Filters[len(rk.Filters)-1]
		}
		found, ok, err := rank.Suggest(rk.Rows, id, broadest, fold)
		if err != nil {
			return Pick{}, err
		}
		if !ok {
			return Pick{Filter: s.Best.Filter, K: s.Best.K,
				Source: fmt.Sprintf("best-ranked in %s, B-score %.3f", Path, s.Best.BScore),
				Note:   fmt.Sprintf("no filter of the ranking shows a change in the calls of %s; its similarity to the other traces changed, not its own calls", id)}, nil
		}
		v = &found
	}
	p := Pick{Filter: v.Filter, K: v.K}
	if v.Why == "stopped" {
		p.Source = "the hang analysis's first suspect, which made the calls of its normal run and stopped inside the last one"
	} else {
		p.Source = fmt.Sprintf("the clearest diff among the ranking's rows where %s is %s", id, report.ViewWhy(v))
	}
	return p, nil
}

// Suspect is a trace (P.T) or process (P) the session suspects, and why.
type Suspect struct{ ID, Why string }

// Suspects lists the traces and processes the session suspects, most
// suspicious first, each once: the consensus leaders, then the suspects of
// the best-ranked row.
func (s *Session) Suspects() []Suspect {
	var out []Suspect
	add := func(id, why string) {
		if id == "" || slices.ContainsFunc(out, func(x Suspect) bool { return x.ID == id }) {
			return
		}
		out = append(out, Suspect{id, why})
	}
	add(s.TopThread, "thread most often the top suspect")
	add(s.TopProcess, "process most often the top suspect")
	if s.Best != nil {
		for _, t := range s.Best.Threads {
			add(t.ID.String(), "a suspect thread of the best-ranked row")
		}
		for _, p := range s.Best.Processes {
			add(p.ID.String(), "a suspect process of the best-ranked row")
		}
	}
	return out
}
