package report

import (
	"fmt"
	"strings"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/trace"
)

// pageRuns describes the runs of the comparison.
func pageRuns(c *compare.Comparison) []Run {
	var out []Run
	for r, run := range c.Runs {
		role := "normal"
		switch {
		case r == compare.Faulty:
			role = "faulty"
		case r > compare.Faulty:
			role = "normal (noise floors)"
		}
		rr := Run{Role: role, Dir: trace.Printable(run.Dir), Program: trace.Printable(strings.Join(Programs(run), ", "))}
		if m := run.Manifest; m != nil {
			rr.Command = trace.Printable(strings.Join(m.Command, " "))
			if !m.Start.IsZero() {
				rr.Started = m.Start.Format("2006-01-02 15:04:05 MST")
				if !m.End.IsZero() {
					rr.Took = m.End.Sub(m.Start).Round(1e6).String()
				}
			}
		}
		lo, hi := -1, 0
		for _, p := range run.Procs {
			rr.Traces += len(p.Threads)
			if lo < 0 || len(p.Threads) < lo {
				lo = len(p.Threads)
			}
			hi = max(hi, len(p.Threads))
		}
		threads := Count(uint64(hi), "thread")
		if lo != hi {
			threads = fmt.Sprintf("%d–%d threads", lo, hi)
		}
		rr.Shape = fmt.Sprintf("%s × %s (%s)", Count(uint64(len(run.Procs)), "process"), threads, Count(uint64(rr.Traces), "trace"))
		rr.Endings = endings(run)
		out = append(out, rr)
	}
	return out
}

// endings groups the ranks of a run by how they ended.
func endings(run *decode.Run) []Ending {
	var order []string
	ranks := map[string][]int{}
	bad := map[string]bool{}
	for _, p := range run.Procs {
		how := Ended(p.Rank)
		if ranks[how] == nil {
			order = append(order, how)
		}
		ranks[how] = append(ranks[how], p.Index)
		bad[how] = p.Rank == nil || p.Rank.Ending() != ""
	}
	var out []Ending
	for _, how := range order {
		out = append(out, Ending{How: trace.Printable(how), Ranks: RankList(ranks[how]), Bad: bad[how]})
	}
	return out
}
