package mutation

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/trace"
)

// Read turns an explanation into an Answer, the form the ground truth takes,
// from the fields diffnlr.Explanation states: the kind, the call (the first
// missing, the first added, the first of the normal run's order, the call
// the faulty trace ends in, the first call of the loop whose count
// changed), the loops around the place (for a count, the loop itself last,
// at the first iteration only one run has, with that run's count) and the
// call stack.
//
// It then checks that the sentence says what the fields say: the kind's
// wording, the call's name, every iteration and the call stack. Where it
// does not, the kind is Other: the sentence is what the user reads.
func Read(ex Explanation, name func(trace.Symbol) string) Answer {
	if !ex.Parted {
		return Answer{Kind: None}
	}
	x := ex.Ex
	a := Answer{Stack: x.Stack}
	for _, p := range x.Loops {
		a.Loops = append(a.Loops, IterCount{p.Iteration, p.Count})
	}
	a.Kind = kinds[x.Kind]
	switch {
	case x.Kind == diffnlr.Added && len(x.Faulty) > 0:
		a.Call = x.Faulty[0]
	case x.Kind == diffnlr.NormalEnds && len(x.Faulty) > 0:
		a.Call = x.Faulty[0]
	case len(x.Normal) > 0:
		a.Call = x.Normal[0]
	}
	if x.Kind == diffnlr.CountChanged && x.Loop != nil {
		a.Loops = append(a.Loops, IterCount{x.Loop.Iteration, x.Loop.Count})
	}
	if name != nil && !says(ex.Text, x, a, name) {
		a.Kind = Other
	}
	return a
}

// kinds maps diffnlr's kinds to the harness's.
var kinds = map[diffnlr.Change]Kind{
	diffnlr.Unchanged:    None,
	diffnlr.Missing:      Missing,
	diffnlr.Added:        Added,
	diffnlr.Reordered:    Reordered,
	diffnlr.CountChanged: CountChanged,
	diffnlr.EndsHere:     EndsHere,
	diffnlr.NormalEnds:   Other,
	diffnlr.Replaced:     Replaced,
}

// nthAnnotation is how the sentence says which call of its function a
// caller is, after its name ("step (the 6th of 14)"); the stack is read
// without it.
var nthAnnotation = regexp.MustCompile(` \(the [0-9]+(st|nd|rd|th) of [0-9]+\)`)

// kindPhrase is how the sentence words each kind.
var kindPhrase = map[Kind]string{
	Reordered:    "the same calls in another order",
	EndsHere:     "the faulty trace ends here",
	Missing:      " missing",
	Added:        " added",
	Replaced:     " replaced by ",
	CountChanged: " instead of ",
}

// says reports whether the sentence text says the answer a read from the
// fields of x.
func says(text string, x diffnlr.Explanation, a Answer, name func(trace.Symbol) string) bool {
	if p, ok := kindPhrase[a.Kind]; ok && !strings.Contains(text, p) {
		return false
	}
	if a.Kind != Other && a.Kind != None && !strings.Contains(text, name(a.Call)) {
		return false
	}
	if !x.Whole {
		return true // the view's own sentence, which numbers its NLR's loops
	}
	for _, l := range x.Loops {
		said := fmt.Sprintf("iteration %d of %d ", l.Iteration, l.Count)
		if l.Between {
			said = fmt.Sprintf("iterations %d and %d of %d ", l.Iteration-1, l.Iteration, l.Count)
		}
		if !l.Told && !strings.Contains(text, said) {
			return false
		}
	}
	if x.Loop != nil && !strings.Contains(text, fmt.Sprintf("iteration %d of %d ", x.Loop.Iteration, x.Loop.Count)) && !strings.Contains(text, " ran ") {
		return false
	}
	if len(a.Stack) > 0 {
		var names []string
		for _, s := range a.Stack {
			names = append(names, name(s))
		}
		if !strings.Contains(nthAnnotation.ReplaceAllString(text, ""), "in "+joinStack(names)+": ") {
			return false
		}
	}
	return true
}
