package mutation

import "strings"

// Read turns an explanation into an Answer, the form the ground truth takes.
//
// This is the adapter between today's explanation and the harness, kept
// apart so that it can be replaced once diffnlr.First says the kind, the
// call and the iterations itself. It reads what the sentence says, no
// more:
//
//   - the kind from the sentence's wording, as First.Text chooses it: "the
//     same calls in another order" is Reordered, "the faulty trace ends
//     here" EndsHere, "… missing" Missing, "… added" Added, "… replaced by
//     …" Replaced, anything else (the normal trace ending first, "the calls
//     differ") Other. No sentence says that a loop's count changed, so no
//     answer is CountChanged;
//   - the call: the first call the sentence names (the first missing, the
//     first added, the first of the normal run's order, or for a trace that
//     ends, the call the normal run goes on with);
//   - the loops: First.Loops, the "iteration I of N of L" list (none where
//     the sentence counts calls instead, "after 1,234 calls");
//   - the call stack the sentence gives ("in main > …").
func Read(ex Explanation) Answer {
	if !ex.Parted {
		return Answer{Kind: None}
	}
	f := ex.First
	a := Answer{Stack: ex.Stack}
	for _, p := range f.Loops {
		a.Loops = append(a.Loops, IterCount{int(p.Iteration), int(p.Count)})
	}
	what := ex.Text
	if i := strings.Index(what, ": "); i >= 0 {
		what = what[i+2:]
	}
	switch {
	case f.Reordered && len(f.NormalOrder) > 0:
		a.Kind, a.Call = Reordered, f.NormalOrder[0]
	case f.FaultyEnded && len(f.Normal) > 0:
		a.Kind, a.Call = EndsHere, f.Normal[0]
	case f.NormalEnded && len(f.Faulty) > 0:
		a.Kind, a.Call = Other, f.Faulty[0]
	case len(f.Faulty) == 0 && len(f.Normal) > 0:
		a.Kind, a.Call = Missing, f.Normal[0]
	case len(f.Normal) == 0 && len(f.Faulty) > 0:
		a.Kind, a.Call = Added, f.Faulty[0]
	case len(f.Normal) > 0:
		a.Kind, a.Call = Replaced, f.Normal[0]
	default:
		a.Kind = Other
	}
	// The sentence must say what the fields say; where it does not, the
	// sentence is what the user read.
	if phrase, ok := kindPhrase[a.Kind]; ok && !strings.Contains(what, phrase) {
		a.Kind = Other
	}
	return a
}

// kindPhrase is how First.Text words each kind.
var kindPhrase = map[Kind]string{
	Reordered: "the same calls in another order",
	EndsHere:  "the faulty trace ends here",
	Missing:   " missing",
	Added:     " added",
	Replaced:  " replaced by ",
}
