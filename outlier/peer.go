package outlier

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// PeerDiff is the diffNLR of trace id against trace against of the same
// run (the only run of n's comparison), under n's filter and K: against
// takes the place of the normal run (the "-" side), id that of the faulty
// one ("+"). Its Partings hold the first difference, said as a two-run
// diffNLR says it with the runs named by their traces.
func PeerDiff(n *compare.NLR, id, against trace.ID, ab diffnlr.Abridge) (*compare.DiffNLR, error) {
	c := n.Comparison()
	if len(c.Runs) != 1 {
		return nil, errors.New("outlier: a peer diff is of two traces of one run")
	}
	i, err := traceIndex(c, id)
	if err != nil {
		return nil, err
	}
	j, err := traceIndex(c, against)
	if err != nil {
		return nil, err
	}
	if i == j {
		return nil, fmt.Errorf("outlier: trace %s against itself: name another trace of the run to compare it with", id)
	}
	sus, peer := n.Seq(0, i), n.Seq(0, j)
	blocks, err := diffnlr.Diff(peer, sus)
	if err != nil {
		return nil, fmt.Errorf("diffNLR(%s against %s): %w", id, against, err)
	}
	names := n.Names()
	d := &compare.DiffNLR{ID: id, NLR: n, Threads: []trace.ID{id}, Blocks: [][]diffnlr.Block{blocks}}
	pic := &diffnlr.Picture{
		Title:  fmt.Sprintf("diffNLR(%s against %s): %s · filter %s, K %d", id, against, c.RunLabel(0), n.Filter.Name(), n.K),
		Normal: shown(c, against).String(),
		Faulty: shown(c, id).String(),
		Label:  func(e nlr.Element) string { return e.Format(names) },
		Blocks: blocks,
	}
	d.Picture = pic
	if len(sus) == 0 && len(peer) == 0 {
		d.Empty = []string{id.String(), against.String()}
	}
	p, ok, noStacks, err := explain(n, i, j)
	if err != nil {
		return nil, err
	}
	d.NoStacks = noStacks
	if ok {
		d.Partings = []compare.Parting{p}
		pic.Notes = append(pic.Notes, p.Text)
	}
	pic.Abridge = ab
	pic.Ended = c.Runs[0].Ending(id.Proc)
	shown := pic.Shown()
	d.Loops = n.Table.Legend(names, shown)
	var drawn []int32
	for _, e := range shown {
		if e.IsLoop() && !slices.Contains(drawn, e.Loop) {
			drawn = append(drawn, e.Loop)
		}
	}
	slices.Sort(drawn)
	for _, l := range drawn {
		pic.Legend = append(pic.Legend, n.Table.Define(l, names))
	}
	return d, nil
}

// traceIndex finds a trace of the run; a process with one thread is that
// thread.
func traceIndex(c *compare.Comparison, id trace.ID) (int, error) {
	if id.IsProcess() {
		var ts []int
		for i, t := range c.IDs {
			if t.Proc == id.Proc {
				ts = append(ts, i)
			}
		}
		if len(ts) == 1 {
			return ts[0], nil
		}
		if len(ts) > 1 {
			return 0, fmt.Errorf("process %s has %d threads: name one, %s.0 … %s.%d", id, len(ts), id, id, len(ts)-1)
		}
	} else if i, ok := c.Index(id); ok {
		return i, nil
	}
	return 0, fmt.Errorf("trace %s: not in %s; the traces are %s … %s (see difftrace info)", id, c.Runs[0].Dir, c.IDs[0], c.IDs[len(c.IDs)-1])
}

// explain says where trace i first parts from its peer j and how, read on
// their whole call trees, as rank's Explain says it of a trace's two runs.
func explain(n *compare.NLR, i, j int) (p compare.Parting, ok bool, noStacks, err error) {
	c := n.Comparison()
	id, peer := c.IDs[i], c.IDs[j]
	p.Trace = id
	f, ok := diffnlr.FirstDifference(n.Table, n.Seq(0, j), n.Seq(0, i))
	if !ok {
		return p, false, nil, nil
	}
	w := diffnlr.Whole{Keep: n.Filter.Compile(c.Symbols).Keep, Filter: n.Filter.Name()}
	if w.Normal, err = c.Events(0, peer); err == nil {
		w.Faulty, err = c.Events(0, id)
	}
	switch {
	case errors.Is(err, decode.ErrNoEvents):
		noStacks, w = err, diffnlr.Whole{}
	case err != nil:
		return p, false, nil, err
	}
	if w.Normal != nil {
		w.Poll = c.QuietPolling(n.Filter)
	}
	x := diffnlr.ExplainFirst(f, w, f.Common, f.Common)
	if !x.Whole {
		var stack []trace.Symbol
		switch {
		case !f.NormalEnded:
			stack, err = c.CallStack(0, peer, n.Filter, f.Common)
		case !f.FaultyEnded:
			stack, err = c.CallStack(0, id, n.Filter, f.Common)
		}
		if err != nil && !errors.Is(err, decode.ErrNoEvents) {
			return p, false, nil, err
		}
		if len(stack) > 0 {
			stack = stack[:len(stack)-1]
		}
		x.Stack = stack
	}
	p.Explanation, p.Stack = x, x.Stack
	p.Text = peerWords(x.Text(c.Symbols.Label), shown(c, id), shown(c, peer))
	if x.Kind == diffnlr.NormalEnds && len(x.Faulty) == 0 && len(f.Faulty) > 0 {
		// The peer stopped there (a hang stops every rank): what the
		// trace did instead is the change.
		var names []string
		for _, s := range f.Faulty[:min(3, len(f.Faulty))] {
			names = append(names, c.Symbols.Label(s))
		}
		more := ""
		if k := len(f.Faulty) - 3 + f.FaultyMore; k > 0 {
			more = fmt.Sprintf(" and %d more", k)
		}
		p.Text += fmt.Sprintf("; %s goes on with %s%s", shown(c, id), strings.Join(names, ", "), more)
	}
	return p, true, noStacks, nil
}

// shown names a trace by its process when the process has one thread.
func shown(c *compare.Comparison, t trace.ID) trace.ID {
	n := 0
	for _, id := range c.IDs {
		if id.Proc == t.Proc {
			n++
		}
	}
	if n == 1 {
		return t.Process()
	}
	return t
}

// peerWords puts the traces' names where a two-run sentence names the
// runs.
func peerWords(s string, id, peer trace.ID) string {
	r := strings.NewReplacer(
		"the normal trace", "trace "+peer.String(),
		"the faulty trace", "trace "+id.String(),
		"the normal run", peer.String(),
		"the faulty run", id.String(),
		"the normal runs", "other runs",
	)
	return r.Replace(s)
}
