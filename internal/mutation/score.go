package mutation

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/difftrace/difftrace/trace"
)

// Check is one comparison of an explanation's answer with the truth.
type Check int

// The checks, and All: every one of them right.
const (
	CheckKind Check = iota
	CheckCall
	CheckLoops
	CheckStack
	CheckAll
	numChecks
)

var checkNames = [numChecks]string{"kind", "call", "iterations", "stack", "all"}

func (c Check) String() string { return checkNames[c] }

// Compare checks got against want: the kind, the call, the iteration and
// count of every loop around the place, and the call stack.
func Compare(want, got Answer) (ok [numChecks]bool) {
	ok[CheckKind] = want.Kind == got.Kind
	ok[CheckCall] = want.Call == got.Call
	ok[CheckLoops] = slices.Equal(want.Loops, got.Loops)
	ok[CheckStack] = slices.Equal(want.Stack, got.Stack)
	ok[CheckAll] = ok[CheckKind] && ok[CheckCall] && ok[CheckLoops] && ok[CheckStack]
	return ok
}

// Outcome is one mutation explained and checked.
type Outcome struct {
	Base  string // the base run's directory
	Trace trace.ID
	View  string
	Seed  uint64
	M     *Mutation
	Got   Answer
	Text  string
	OK    [numChecks]bool
}

// Score counts, per Op, the mutations explained and how many passed each
// check, and keeps the misses.
type Score struct {
	N      [numOps]int
	Passed [numOps][numChecks]int
	Misses []Outcome
}

// Add counts an outcome.
func (s *Score) Add(o Outcome) {
	s.N[o.M.Op]++
	for c := range numChecks {
		if o.OK[c] {
			s.Passed[o.M.Op][c]++
		}
	}
	if !o.OK[CheckAll] {
		s.Misses = append(s.Misses, o)
	}
}

// Merge adds t's counts and misses to s.
func (s *Score) Merge(t *Score) {
	for op := range numOps {
		s.N[op] += t.N[op]
		for c := range numChecks {
			s.Passed[op][c] += t.Passed[op][c]
		}
	}
	s.Misses = append(s.Misses, t.Misses...)
}

// Total returns how many outcomes were counted.
func (s *Score) Total() int {
	n := 0
	for _, x := range s.N {
		n += x
	}
	return n
}

// Rate returns the share of op's mutations that passed check c (0 when
// none was counted).
func (s *Score) Rate(op Op, c Check) float64 {
	if s.N[op] == 0 {
		return 0
	}
	return float64(s.Passed[op][c]) / float64(s.N[op])
}

// Min returns the lowest share of passes of check c over the ops that
// were counted (1 when none was).
func (s *Score) Min(c Check) float64 {
	m := 1.0
	for _, op := range Ops {
		if s.N[op] > 0 {
			m = min(m, s.Rate(op, c))
		}
	}
	return m
}

// WriteTable writes the score as a table: a row per op and one for all,
// the share of passes of each check.
func (s *Score) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "mutation\tn\t")
	for c := range numChecks {
		fmt.Fprintf(tw, "%s\t", Check(c))
	}
	fmt.Fprintln(tw)
	row := func(name string, n int, passed [numChecks]int) {
		fmt.Fprintf(tw, "%s\t%d\t", name, n)
		for c := range numChecks {
			if n == 0 {
				fmt.Fprint(tw, "-\t")
				continue
			}
			fmt.Fprintf(tw, "%.1f%%\t", 100*float64(passed[c])/float64(n))
		}
		fmt.Fprintln(tw)
	}
	var all [numChecks]int
	for _, op := range Ops {
		row(op.String(), s.N[op], s.Passed[op])
		for c := range numChecks {
			all[c] += s.Passed[op][c]
		}
	}
	row("all", s.Total(), all)
	return tw.Flush()
}

// WriteMisses writes up to perOp misses of each op, taken from each base
// run in turn: what was wanted and what the sentence said.
func (s *Score) WriteMisses(w io.Writer, perOp int) {
	for _, op := range Ops {
		var bases []string
		by := map[string][]Outcome{}
		for _, o := range s.Misses {
			if o.M.Op != op {
				continue
			}
			if _, ok := by[o.Base]; !ok {
				bases = append(bases, o.Base)
			}
			by[o.Base] = append(by[o.Base], o)
		}
		for n, k := 0, 0; n < perOp && len(bases) > 0; k++ {
			more := false
			for _, b := range bases {
				if k >= len(by[b]) || n >= perOp {
					continue
				}
				more = true
				n++
				writeMiss(w, by[b][k])
			}
			if !more {
				break
			}
		}
	}
}

func writeMiss(w io.Writer, o Outcome) {
	var wrong []string
	for c := range CheckAll {
		if !o.OK[c] {
			wrong = append(wrong, Check(c).String())
		}
	}
	text := o.Text
	if text == "" {
		text = "(no difference found)"
	}
	fmt.Fprintf(w, "%s %s [%s] wrong: %s\n    want: %s\n    said: %s\n", o.Base, o.Trace, o.View,
		strings.Join(wrong, ", "), o.M.What, text)
}

// Format writes an answer in words (for tests and reports).
func (a Answer) Format(name func(trace.Symbol) string) string {
	s := a.Kind.String()
	if a.Kind != None {
		s += " " + name(a.Call)
	}
	for i, l := range a.Loops {
		if i == 0 {
			s += " in"
		}
		s += fmt.Sprintf(" %d/%d", l.Iteration, l.Count)
	}
	if len(a.Stack) > 0 {
		var names []string
		for _, f := range a.Stack {
			names = append(names, name(f))
		}
		s += " at " + joinStack(names)
	}
	return s
}
