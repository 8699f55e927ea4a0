package session

import (
	"cmp"
	"io"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/outlier"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

// The view of a diffNLR when neither it nor the session names one.
const (
	DefaultFilter = "mpi"
	DefaultK      = 10
)

// View is what the diffNLR of one trace is shown under: the runs, the
// filter and K, and where they come from.
type View struct {
	// Runs are the normal run, the faulty run, then further normal runs.
	Runs   []string
	Filter string
	K      int
	// ExactPolling is the session's, false for runs given.
	ExactPolling bool
	// Source says where Filter and K come from, for the diff's header;
	// "" when they were given.
	Source string

	// s and rk, when set, pick the filter and K for the trace (Pick).
	s  *Session
	rk *rank.Ranking
}

// Given is the view of the runs given, under filter and k, or under
// DefaultFilter and DefaultK where they are "" and 0.
func Given(runs []string, filter string, k int) *View {
	return &View{Runs: runs, Filter: cmp.Or(filter, DefaultFilter), K: cmp.Or(k, DefaultK)}
}

// Follow is the view of the session in the current directory: its runs,
// under filter and k where they are set ("" and 0 are not), else its
// best-ranked row's, else DefaultFilter and DefaultK. Unless fixed says
// the filter or K was chosen, and when the session has a best row, Pick
// then chooses the view for the trace. The session and its ranking are
// read as LoadWithRanking reads them (stderr, readFix).
func Follow(stderr io.Writer, readFix string, filter string, k int, fixed bool) (*View, error) {
	s, rk, err := LoadWithRanking(stderr, readFix)
	if err != nil {
		return nil, err
	}
	v := &View{Runs: append([]string{s.Normal, s.Faulty}, s.AlsoNormal...), ExactPolling: s.ExactPolling,
		Filter: DefaultFilter, K: DefaultK}
	if s.Best != nil {
		v.Filter, v.K = s.Best.Filter, s.Best.K
	}
	v.Filter, v.K = cmp.Or(filter, v.Filter), cmp.Or(k, v.K)
	if fixed || s.Best == nil {
		v.Source = "runs from " + Path
	} else {
		v.s, v.rk = s, rk
	}
	return v, nil
}

// Pick chooses the filter and K for the diffNLR of id in the runs c
// opened (Session.Pick), when the view follows a session's best row and
// was not fixed (Follow); otherwise the view stays as it is. The note,
// when not "", says why the view does not show the trace changed.
func (v *View) Pick(c *compare.Comparison, id trace.ID) (note string, err error) {
	if v.s == nil {
		return "", nil
	}
	p, err := v.s.Pick(c, v.rk, id)
	if err != nil {
		return "", err
	}
	v.Filter, v.K, v.Source = p.Filter, p.K, p.Source
	return p.Note, nil
}

// Params checks the view's filter and K (rank.ParamSpec.Params): a
// *param.Error names the one that cannot be used.
func (v *View) Params() (rank.Params, error) {
	return rank.ParamSpec{Filter: v.Filter, K: v.K}.Params()
}

// NLR returns the NLRs of the view's runs, which open opens, for the
// diffNLR of id: it checks the view (Params) before the runs are opened
// and that they hold id, picks the view for id (Pick), and recognises the
// loops under it. say gets the notes on the way, in order: why the view
// does not show id changed, the comparison's notes, and where id's loops
// were left unfolded (compare.NLR.UnfoldedNotes).
func (v *View) NLR(id trace.ID, open func(runs []string) (*compare.Comparison, error), say func(notes ...string)) (*compare.NLR, error) {
	if _, err := v.Params(); err != nil {
		return nil, err
	}
	c, err := open(v.Runs)
	if err != nil {
		return nil, err
	}
	if _, err := c.DiffTraces(id); err != nil {
		return nil, err
	}
	note, err := v.Pick(c, id)
	if err != nil {
		return nil, err
	}
	if note != "" {
		say(note)
	}
	p, err := v.Params()
	if err != nil {
		return nil, err
	}
	n, err := p.Recognize(c)
	if err != nil {
		return nil, err
	}
	say(c.Notes()...)
	say(n.UnfoldedNotes(id)...)
	return n, nil
}

// PeerDiff returns the diffNLR of trace id against trace against of the
// view's one run, which open opens (outlier.PeerDiff), abridged as ab: it
// checks the view (Params) before the run is opened, recognises the loops
// under it, and gives say the comparison's notes.
func (v *View) PeerDiff(id, against trace.ID, ab diffnlr.Abridge, open func(runs []string) (*compare.Comparison, error), say func(notes ...string)) (*compare.DiffNLR, error) {
	p, err := v.Params()
	if err != nil {
		return nil, err
	}
	c, err := open(v.Runs)
	if err != nil {
		return nil, err
	}
	n, err := p.Recognize(c)
	if err != nil {
		return nil, err
	}
	say(c.Notes()...)
	return outlier.PeerDiff(n, id, against, ab)
}
