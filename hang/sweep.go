package hang

import (
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

// Sweep runs the ranking of c over g, with the hang analysis when the
// faulty run did not end normally: the hang analysis's first suspect is
// then the trace whose diffNLR the ranking suggests (rank.Grid.Culprit).
// hung is the hang analysis (nil when the faulty run did not hang, or
// when c holds one run).
func Sweep(c *rank.Comparison, g rank.Grid) (rk *rank.Ranking, hung *Report, err error) {
	var hangErr error
	g.Culprit = func() (trace.ID, string, bool) {
		rep, err := Analyze(c, Options{})
		if err != nil {
			hangErr = err
			return trace.ID{}, "", false
		}
		if !rep.Hung {
			return trace.ID{}, "", false
		}
		hung = rep
		if len(rep.Suspects) == 0 {
			return trace.ID{}, "", false
		}
		return rep.Suspects[0].Trace, rep.Suspects[0].Reason, true
	}
	if rk, err = c.Sweep(g); err != nil {
		return nil, nil, err
	}
	if hangErr != nil {
		return nil, nil, hangErr
	}
	if hung == nil && len(c.Runs) == 2 {
		// No suggestion asked for the culprit (no row found a suspect):
		// the hang analysis all the same.
		rep, err := Analyze(c, Options{})
		if err != nil {
			return nil, nil, err
		}
		if rep.Hung {
			hung = rep
		}
	}
	return rk, hung, nil
}
