package rank

import (
	"slices"

	"github.com/difftrace/difftrace/trace"
)

// Suspect is an object whose JSM_D row changed: its ID, its score (see
// compare.Similarity.Scores) and how much its progress changed (see
// compare.NLR.ProgressChange).
type Suspect struct {
	ID       trace.ID `json:"id"`
	Score    float64  `json:"score"`
	Progress float64  `json:"progress_change"`
	// Floor is the object's noise floor (compare.NLR.Floors): how much it
	// changed between the normal runs. It is 0 with one normal run.
	Floor float64 `json:"noise_floor,omitempty"`
}

// SuspectShare is the cut of Suspects: an object is suspicious when its
// score is at least this share of the highest score. A sweep takes another
// share from Grid.SuspectShare.
const SuspectShare = 0.5

// Suspects returns the objects whose JSM_D rows changed most: those with a
// score above zero and at least SuspectShare of the highest score, by
// descending score, then descending progress change, then ID.
//
// Why half of the highest: JSM_D is symmetric, so when one object i changes
// and nothing else does, its whole row moves while every other row moves in
// column i alone — the others score about 1/(n−1) of i's score and fall far
// below the cut. Objects that changed in the same way as the most changed
// one (the blocked neighbours of a deadlocked rank) score alike and stay
// above it, so a cut relative to the highest score lists them together
// instead of dropping all but one.
//
// Why progress breaks ties: objects with equal scores changed their
// similarity to the others equally, and JSM_D cannot tell them apart; the
// NLR can still say which one's loops ran furthest from their normal
// iteration counts (seeds/002 §3.2.4: loops "measure the progress of each
// thread, revealing unfinished or broken loops"). Of the ranks a deadlock
// stopped, the one that stopped first lost the most iterations.
func Suspects(ids []trace.ID, scores, progress []float64) []Suspect {
	return suspects(ids, scores, progress, nil, SuspectShare)
}

// suspects is Suspects with the cut at share of the highest score
// (Grid.SuspectShare), and each suspect's noise floor from floors (if not
// nil).
func suspects(ids []trace.ID, scores, progress, floors []float64, share float64) []Suspect {
	top := 0.0
	for _, v := range scores {
		top = max(top, v)
	}
	if top == 0 {
		return nil
	}
	var out []Suspect
	for i, v := range scores {
		if v > 0 && v >= share*top {
			sus := Suspect{ID: ids[i], Score: v}
			if progress != nil {
				sus.Progress = progress[i]
			}
			if floors != nil {
				sus.Floor = floors[i]
			}
			out = append(out, sus)
		}
	}
	slices.SortStableFunc(out, func(a, b Suspect) int {
		switch {
		case a.Score != b.Score:
			return cmpDesc(a.Score, b.Score)
		case a.Progress != b.Progress:
			return cmpDesc(a.Progress, b.Progress)
		}
		return a.ID.Compare(b.ID)
	})
	return out
}

func cmpDesc(a, b float64) int {
	if a > b {
		return -1
	}
	return 1
}

// NoiseFactor is how far a trace's score must exceed its noise floor for
// the trace to be a suspect: at least NoiseFactor times the floor.
const NoiseFactor = 2
