package rank

import (
	"slices"

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
func Consensus(rows []Row, l Level) []Vote {
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
		if l == Processes {
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
