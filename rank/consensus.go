package rank

import (
	"encoding/json"
	"slices"

	"github.com/difftrace/difftrace/trace"
)

// Vote is one object's standing over all rows of a ranking: in how many rows
// it was first (had the highest score, ties included) and in how many it was
// a suspect at all.
type Vote struct {
	ID     trace.ID
	First  int
	Listed int
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

// MarshalJSON writes a vote with its ID as text ("5.0").
func (v Vote) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID     string `json:"id"`
		First  int    `json:"first"`
		Listed int    `json:"listed"`
	}{v.ID.String(), v.First, v.Listed})
}

// MarshalJSON writes a suspect with its ID as text ("5.0").
func (s Suspect) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID       string  `json:"id"`
		Score    float64 `json:"score"`
		Progress float64 `json:"progress_change"`
	}{s.ID.String(), s.Score, s.Progress})
}

// UnmarshalJSON reads a vote as MarshalJSON writes it.
func (v *Vote) UnmarshalJSON(b []byte) error {
	var j struct {
		ID     string `json:"id"`
		First  int    `json:"first"`
		Listed int    `json:"listed"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	id, err := trace.ParseID(j.ID)
	if err != nil {
		return err
	}
	*v = Vote{ID: id, First: j.First, Listed: j.Listed}
	return nil
}

// UnmarshalJSON reads a suspect as MarshalJSON writes it, so a saved ranking
// (the session of the rank command) can be read back.
func (s *Suspect) UnmarshalJSON(b []byte) error {
	var j struct {
		ID       string  `json:"id"`
		Score    float64 `json:"score"`
		Progress float64 `json:"progress_change"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	id, err := trace.ParseID(j.ID)
	if err != nil {
		return err
	}
	*s = Suspect{ID: id, Score: j.Score, Progress: j.Progress}
	return nil
}
