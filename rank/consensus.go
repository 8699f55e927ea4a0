package rank

import (
	"fmt"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/trace"
)

// Vote is one object's standing over all rows of a ranking: in how many rows
// it was first (had the highest score, ties included) and in how many it was
// a suspect at all.
type Vote struct {
	ID     trace.ID `json:"id"`
	First  int      `json:"first"`
	Listed int      `json:"listed"`
}

// Consensus counts, over all rows, how often each object of level l was
// first and how often it was listed, and returns the objects that were
// listed at least once: most often first, then most often listed, then by
// ID. First is the top suspect of a row (see Suspects for the order); when
// several have the same score and progress change, each of them counts as
// first, rather than the lowest ID taking the row. Rows with no suspect (the
// bug changed nothing under their parameters) count for nobody.
func Consensus(rows []Row, l compare.Level) []Vote {
	votes := map[trace.ID]*Vote{}
	get := func(id trace.ID) *Vote {
		v, ok := votes[id]
		if !ok {
			v = &Vote{ID: id}
			votes[id] = v
		}
		return v
	}
	for _, r := range rows {
		sus := r.Threads
		if l == compare.Processes {
			sus = r.Processes
		}
		for _, s := range sus {
			v := get(s.ID)
			v.Listed++
			if s.Score == sus[0].Score && s.Progress == sus[0].Progress {
				v.First++
			}
		}
	}
	out := make([]Vote, 0, len(votes))
	for _, v := range votes {
		out = append(out, *v)
	}
	slices.SortFunc(out, func(a, b Vote) int {
		if a.First != b.First {
			return b.First - a.First
		}
		if a.Listed != b.Listed {
			return b.Listed - a.Listed
		}
		return a.ID.Compare(b.ID)
	})
	return out
}

// Top returns the objects that share the highest First count of votes (more
// than one when the consensus is tied).
func Top(votes []Vote) []Vote {
	var out []Vote
	for _, v := range votes {
		if v.First != votes[0].First {
			break
		}
		out = append(out, v)
	}
	return out
}

// weak reports whether a consensus leading to the view v is too weak to
// point at a trace, and says why: the leader was the top suspect in under a
// quarter of the combinations (rows), and either no combination found a
// process suspect at all (the threads' noise cancels out over a process),
// or others led combinations too while, under v, the leader changed only
// in how many times its loops iterate (what a program's own nondeterminism
// changes, v.CountsOnly). A view that comes from a hang (v.Culprit,
// v.Parted) is never weak: the run's ending points at it. With one
// process (oneProcess), the first test does not apply.
func weak(threads, processes []Vote, oneProcess bool, rows int, v View) (why string, ok bool) {
	if v.Culprit != "" || v.Parted || len(threads) == 0 || threads[0].First == 0 || threads[0].First*4 >= rows {
		return "", false
	}
	lead := threads[0]
	share := fmt.Sprintf("%s was the most suspicious in only %d of %d combinations", lead.ID, lead.First, rows)
	if oneProcess {
		// No process can be a suspect, and none is missed: only the
		// second test below applies.
	} else if len(processes) == 0 || processes[0].First == 0 {
		return share + ", and no combination found a process suspect", true
	}
	var others []string
	for _, o := range threads[1:] {
		if o.First > 0 {
			others = append(others, o.ID.String())
		}
	}
	if !v.CountsOnly || len(others) == 0 {
		return "", false
	}
	more := ""
	if len(others) > 3 {
		more = fmt.Sprintf(" and %d more", len(others)-3)
		others = others[:3]
	}
	return fmt.Sprintf("%s, %s%s in some of the rest, and its calls changed only in how many times loops ran (filter %s, K %d), as they do in a program that varies by itself",
		share, strings.Join(others, ", "), more, v.Filter, v.K), true
}
