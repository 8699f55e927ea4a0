package report

import (
	"fmt"
	"slices"

	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

// verdict says whom to suspect and why, from the ranking (as rank's "how
// it changed" does) and the suspect's diffNLR.
func verdict(rpt *Report, rk *rank.Ranking) Verdict {
	v := Verdict{Diff: -1}
	rows := len(rk.Rows)
	noNoise := "Only one normal run was given, so there is no noise floor: if the program varies by itself (receives from any source, dynamic schedules, work stealing), record the normal run once more and give it with --also-normal."
	switch s := rk.Suggestion; {
	case s != nil:
		what := "trace"
		if s.Trace.IsProcess() {
			what = "process"
		}
		v.Suspect = s.Trace.String()
		v.Headline = fmt.Sprintf("Look at %s %s first.", what, s.Trace)
		v.View = fmt.Sprintf("filter %s, K %d", s.Filter, s.K)
		if len(rpt.Diffs) > 0 && rpt.Diffs[0].Trace == v.Suspect {
			v.Diff = 0
			v.First = rpt.Diffs[0].First
		}
		votes, line := rk.ThreadVotes, rpt.Consensus.ThreadLine
		if s.Trace.IsProcess() {
			votes, line = rk.ProcessVotes, rpt.Consensus.ProcessLine
		}
		if i := slices.IndexFunc(votes, func(x rank.Vote) bool { return x.ID == s.Trace }); i >= 0 {
			why := fmt.Sprintf("%s was the top suspect in %d and a suspect in %d of the %d combinations", votes[i].ID, votes[i].First, votes[i].Listed, rows)
			if top := rank.Top(votes); len(top) != 1 || top[0].ID != s.Trace {
				why += "; " + line
			}
			v.Why = append(v.Why, why+".")
		} else {
			v.Why = append(v.Why, line+".")
		}
		if best, ok := rk.Best(); ok {
			v.Why = append(v.Why, fmt.Sprintf("The best-ranked combination (filter %s, K %d, %s, %s linkage) has B-score %.3f (1: the traces cluster as in the normal run; lower: the bug changed how they cluster).",
				best.Filter, best.K, best.Attrs, best.Linkage, best.BScore))
		}
		v.Why = append(v.Why, fmt.Sprintf("Its diffNLR is shown under filter %s, K %d: the clearest diff among the rows where %s is %s (%s).",
			s.Filter, s.K, s.Trace, pageViewWhy(s), Count(uint64(s.Changes), "changed element")))
		if s.Culprit != "" {
			v.Why = append(v.Why, fmt.Sprintf("The faulty run did not end normally, and in a hang the ranks left waiting change as much as the one that caused it: %s is the first suspect of the hang analysis (%s).",
				s.Trace, trace.Printable(s.Culprit)))
		} else if s.Parted {
			v.Why = append(v.Why, fmt.Sprintf("The faulty run did not end normally, and in a hang the ranks left waiting change as much as the one that caused it: %s is the first of the leading traces whose calls part from its normal run while both go on; the others only stopped earlier.", s.Trace))
		}
		if s.CountsOnly {
			v.Why = append(v.Why, fmt.Sprintf("Only loop counts changed in %s.", s.Trace))
		}
		if len(rk.AlsoNormal) > 0 {
			v.Why = append(v.Why, noiseSentence(rk, s))
		} else {
			v.Why = append(v.Why, noNoise)
		}
	case rk.NoClearSuspect != "":
		v.Unclear = true
		v.Headline = "No clear suspect."
		v.Why = append(v.Why, "No clear suspect: "+trace.Printable(rk.NoClearSuspect)+"; no diff is suggested.", rpt.Consensus.ThreadLine+".")
		if len(rk.AlsoNormal) == 0 {
			v.Why = append(v.Why, noNoise)
		}
		v.Why = append(v.Why, "The diffNLRs of the leading traces are below all the same.")
	case len(rk.ThreadVotes) > 0 && rk.ThreadVotes[0].First > 0:
		v.Unclear = true
		v.Headline = fmt.Sprintf("No filter shows a change in the calls of %s.", rk.ThreadVotes[0].ID)
		v.Why = append(v.Why, rpt.Consensus.ThreadLine+"; its similarity to the other traces changed, not its own calls.")
	case len(rk.RunWide) > 0:
		v.Unclear = true
		v.Headline = "No trace stands out."
		v.Why = append(v.Why, "Apart from the run-wide changes, every trace made the same calls in both runs (a bug that changes values but not calls does not show in call traces).")
	default:
		v.Unclear = true
		v.Headline = "No trace stands out."
		v.Why = append(v.Why, "Every trace made the same calls in both runs (a bug that changes values but not calls does not show in call traces).")
	}
	return v
}

// noiseSentence says how far the suspect's change stands above its noise
// floor in the suggested view's best row.
func noiseSentence(rk *rank.Ranking, s *rank.View) string {
	n := len(rk.AlsoNormal)
	if n < 2 {
		return "Noise: what changes between the 2 normal runs does not count (a count that varies carries no frequency, an attribute that comes and goes is left out); with three normal runs or more each trace would also get a noise floor."
	}
	runs := fmt.Sprintf("%d normal runs", n+1)
	for _, r := range rk.Rows {
		if r.Filter != s.Filter || r.K != s.K {
			continue
		}
		sus := r.Threads
		if s.Trace.IsProcess() {
			sus = r.Processes
		}
		for _, x := range sus {
			if x.ID == s.Trace {
				return fmt.Sprintf("Noise: with %s, %s changed %.3f in the row filter %s, K %d, %s, %s, against a noise floor of %.3f (how much a normal run still differs from the others); a trace is a suspect only where it changed at least %d times its floor.",
					runs, x.ID, x.Score, r.Filter, r.K, r.Attrs, r.Linkage, x.Floor, rank.NoiseFactor)
			}
		}
	}
	return fmt.Sprintf("Noise: %s set the noise floors; what changes between the normal runs does not count.", runs)
}
