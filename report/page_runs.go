package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

// pageRuns describes the runs of the comparison.
func pageRuns(c *rank.Comparison) []Run {
	var out []Run
	for r, run := range c.Runs {
		role := "normal"
		switch {
		case r == rank.Faulty:
			role = "faulty"
		case r > rank.Faulty:
			role = "normal (noise floors)"
		}
		rr := Run{Role: role, Dir: trace.Printable(run.Dir), Program: trace.Printable(strings.Join(pagePrograms(run), ", "))}
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
		threads := pagePlural(uint64(hi), "thread")
		if lo != hi {
			threads = fmt.Sprintf("%d–%d threads", lo, hi)
		}
		rr.Shape = fmt.Sprintf("%s × %s (%s)", pagePlural(uint64(len(run.Procs)), "process"), threads, pagePlural(uint64(rr.Traces), "trace"))
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
		how := pageEnded(p.Rank)
		if ranks[how] == nil {
			order = append(order, how)
		}
		ranks[how] = append(ranks[how], p.Index)
		bad[how] = p.Rank == nil || p.Rank.Ending() != ""
	}
	var out []Ending
	for _, how := range order {
		out = append(out, Ending{How: trace.Printable(how), Ranks: pageRankList(ranks[how]), Bad: bad[how]})
	}
	return out
}

// pageRankList names ascending ranks compactly: "rank 3", "ranks 0, 2–5".
func pageRankList(ranks []int) string {
	var parts []string
	for i := 0; i < len(ranks); {
		j := i
		for j+1 < len(ranks) && ranks[j+1] == ranks[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, strconv.Itoa(ranks[i]))
		case j == i+1:
			parts = append(parts, strconv.Itoa(ranks[i]), strconv.Itoa(ranks[j]))
		default:
			parts = append(parts, fmt.Sprintf("%d–%d", ranks[i], ranks[j]))
		}
		i = j + 1
	}
	if len(ranks) == 1 {
		return "rank " + parts[0]
	}
	return "ranks " + strings.Join(parts, ", ")
}

// pagePrograms lists the distinct paths of the run's programs as recorded, in
// process order.
func pagePrograms(run *decode.Run) []string {
	var ps []string
	for _, p := range run.Procs {
		if p.Program != "" && !slices.Contains(ps, p.Program) {
			ps = append(ps, p.Program)
		}
	}
	return ps
}

// pageEnded says how a rank ended, from its manifest record.
func pageEnded(r *decode.Rank) string {
	switch {
	case r == nil:
		return "no record"
	case r.Status != "":
		return r.Status
	case r.KilledByTimeout:
		if r.Signal != "" {
			return "killed by timeout (" + r.Signal + ")"
		}
		return "killed by timeout"
	case r.Signal != "":
		return "killed by " + r.Signal
	case r.Exited:
		return fmt.Sprintf("exited with status %d", r.ExitStatus)
	}
	return "no record of the end (the recorder stopped first)"
}
