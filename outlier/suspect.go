package outlier

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/internal/plural"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

// Suspect is a trace that stands apart from its peers, and the peer its
// diffNLR compares it with.
type Suspect struct {
	ID trace.ID `json:"id"`
	// Reason says why it is a suspect: it stood apart from its peers in
	// the consensus, or the hang analysis names it (its reason then).
	Reason string `json:"reason"`
	// First and Listed: in how many rows it was the first suspect, and a
	// suspect at all.
	First  int `json:"first"`
	Listed int `json:"listed"`
	// Peer is its nearest class-mate under View, the view of its
	// clearest diff.
	Peer       trace.ID `json:"peer"`
	Similarity float64  `json:"similarity"`
	View       View     `json:"view"`
	// Difference is the diffNLR's first line: where it parts from its
	// peer, and how; Changes counts the elements only one of them has.
	Difference string `json:"difference"`
	Changes    int    `json:"changes"`
	// Command shows the diffNLR.
	Command string `json:"command"`
}

// Suspects shown at most, and the share of the rows a trace must lead to
// be one (see suspects).
const (
	MaxSuspects = 3
	// MinFirstShare: a trace is a suspect when it is the first suspect
	// of at least this share of the rows that find any, and of rows of at
	// least MinViews views (filter × K × attribute mode): a trace that
	// stands apart under one view only is as likely a count that varies
	// by itself (how often a thread won a critical section).
	MinFirstShare = 0.25
	MinViews      = 2
)

// suspects picks the consensus leaders that stand apart clearly enough
// and explains each against its peer; then, for a run that hung, the hang
// analysis's suspects that are not roles.
func (a *analysis) suspects() error {
	rep := a.rep
	withSuspects := 0
	for _, r := range rep.Rows {
		if len(r.Suspects) > 0 {
			withSuspects++
		}
	}
	rep.Suspects = []Suspect{}
	for _, v := range rep.Votes {
		if len(rep.Suspects) == MaxSuspects || v.First == 0 {
			break
		}
		if float64(v.First) < MinFirstShare*float64(withSuspects) || a.viewsLed(v.ID) < MinViews {
			continue
		}
		s, ok, err := a.explainSuspect(v)
		if err != nil {
			return err
		}
		if ok {
			rep.Suspects = append(rep.Suspects, s)
		}
	}
	switch {
	case len(rep.Suspects) > 0:
	case withSuspects == 0:
		rep.NoSuspect = "no trace stands apart from its peers under any combination: the traces of each position behave alike, or differ only as whole classes (roles)"
	default:
		lead := rep.Votes[0]
		rep.NoSuspect = fmt.Sprintf("no trace stands apart clearly: %s led %d of the %d combinations that found a trace apart from its peers, under %d %s (a suspect leads at least %.0f%% of them, under %d views or more)",
			a.id(lead.ID), lead.First, withSuspects, a.viewsLed(lead.ID), plural.Word(a.viewsLed(lead.ID), "view", "views"), 100*MinFirstShare, MinViews)
	}
	return a.hangSuspects()
}

// viewsLed counts the views (filter, K, attribute mode) under which id was
// the first suspect of a row.
func (a *analysis) viewsLed(id trace.ID) int {
	seen := map[View]bool{}
	for _, r := range a.rep.Rows {
		if len(r.Suspects) > 0 && r.Suspects[0].Score == scoreOf(r, id) {
			seen[View{r.Filter, r.K, r.Attrs}] = true
		}
	}
	return len(seen)
}

// hangSuspects adds, for a run that hung where no trace stands apart
// clearly, the hang analysis's suspects that have peers (a trace without peers, rank 0 or the last rank, ends
// where none does by its role), each diffed against its class-mate under
// the grid's first filter.
func (a *analysis) hangSuspects() error {
	rep := a.rep
	if rep.Hang == nil || len(rep.Suspects) > 0 {
		return nil
	}
	for _, hs := range rep.Hang.Suspects {
		if len(rep.Suspects) == MaxSuspects {
			break
		}
		i, ok := a.c.Index(hs.Trace)
		if !ok || slices.ContainsFunc(rep.Suspects, func(s Suspect) bool { return a.id(s.ID) == a.id(hs.Trace) }) {
			continue
		}
		v := a.views[0]
		if len(v.peers(i)) < 2 {
			continue
		}
		peer, ok := a.classMate(v, i)
		if !ok {
			continue
		}
		s, err := a.explain(v, hs.Trace, peer)
		if err != nil {
			return err
		}
		s.Reason = "hang: " + hs.Reason
		rep.Suspects = append(rep.Suspects, s)
	}
	if len(rep.Suspects) > 0 {
		rep.NoSuspect = ""
	}
	return nil
}

// explainSuspect finds the view of v's clearest diff against its
// class-mate: among the filters and K of the rows it leads, in grid order,
// the one whose diff has the fewest changed elements but some.
func (a *analysis) explainSuspect(vote rank.Vote) (Suspect, bool, error) {
	rows := slices.Clone(a.rep.Rows)
	slices.SortFunc(rows, func(x, y Row) int { return x.order - y.order })
	seen := map[View]bool{}
	best, found := Suspect{}, false
	for _, r := range rows {
		if len(r.Suspects) == 0 || r.Suspects[0].Score != scoreOf(r, vote.ID) {
			continue
		}
		key := View{Filter: r.Filter, K: r.K}
		if seen[key] {
			continue
		}
		seen[key] = true
		v := a.viewOf(r)
		i, _ := a.c.Index(vote.ID)
		peer, ok := a.classMate(v, i)
		if !ok {
			continue
		}
		s, err := a.explain(v, vote.ID, peer)
		if err != nil {
			return Suspect{}, false, err
		}
		if s.Changes == 0 || found && s.Changes >= best.Changes {
			continue
		}
		s.First, s.Listed = vote.First, vote.Listed
		s.Reason = fmt.Sprintf("apart from its peers: first in %d and listed in %d combinations", vote.First, vote.Listed)
		best, found = s, true
	}
	return best, found, nil
}

// classMate returns the peer of trace i that, among those that share
// their class under v with another trace, keeps company with it longest:
// the most calls in common before they part (the class it otherwise
// belongs to; a rank that swapped two calls for a while is compared with
// the ranks of its own kind, not with those whose order it took); ties to
// the more similar, then the nearer process. At most 64 peers, the nearest
// processes, are tried.
func (a *analysis) classMate(v *view, i int) (int, bool) {
	var cands []int
	for _, q := range v.peers(i) {
		if v.classSize(q) >= 2 {
			cands = append(cands, q)
		}
	}
	if len(cands) == 0 {
		return 0, false
	}
	slices.SortStableFunc(cands, func(x, y int) int {
		return abs(v.ids[x].Proc-v.ids[i].Proc) - abs(v.ids[y].Proc-v.ids[i].Proc)
	})
	cands = cands[:min(len(cands), 64)]
	best, bestCommon := -1, uint64(0)
	for _, q := range cands {
		f, _ := diffnlr.FirstDifference(v.n.Table, v.n.Seq(0, q), v.n.Seq(0, i))
		if best < 0 || f.Common > bestCommon || f.Common == bestCommon && closer(v, i, q, best) {
			best, bestCommon = q, f.Common
		}
	}
	return best, true
}

// explain diffs trace id against peer q under v's filter and K.
func (a *analysis) explain(v *view, id trace.ID, q int) (Suspect, error) {
	peer := a.c.IDs[q]
	d, err := PeerDiff(v.n, id, peer, diffnlr.Abridge{})
	if err != nil {
		return Suspect{}, err
	}
	i, _ := a.c.Index(id)
	s := Suspect{ID: a.id(id), Peer: a.id(peer), Similarity: round(v.sim(i, q)),
		View: View{Filter: v.n.Filter.Name(), K: v.n.K, Attrs: v.ctx.Mode().String()}, Changes: changes(d.Blocks[0])}
	if len(d.Partings) > 0 {
		s.Difference = d.Partings[0].Text
	}
	s.Command = fmt.Sprintf("difftrace diffnlr %s --against %s --faulty %s --filter %s --k %d",
		s.ID, s.Peer, shellWord(a.rep.Run), shellWord(s.View.Filter), s.View.K)
	return s, nil
}

// scoreOf is id's score in row r (-1 when it is not a suspect there).
func scoreOf(r Row, id trace.ID) float64 {
	for _, s := range r.Suspects {
		if s.ID == id {
			return s.Score
		}
	}
	return -1
}

// changes counts the elements only one side of a diff has.
func changes(blocks []diffnlr.Block) int {
	n := 0
	for _, b := range blocks {
		if b.Kind != diffnlr.Common {
			n += len(b.Elems)
		}
	}
	return n
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./+=:,@%-]+$`)

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	out := "'"
	for _, r := range s {
		if r == '\'' {
			out += `'\''`
			continue
		}
		out += string(r)
	}
	return out + "'"
}
