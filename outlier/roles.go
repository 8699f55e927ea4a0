package outlier

import (
	"fmt"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// Class is one behaviour class of the run: traces with the same
// attributes under the class view.
type Class struct {
	Traces []trace.ID `json:"traces"`
	// Role names the class when its traces sit where a program's roles do
	// (the first or the last rank, main threads): "the first and the last
	// rank". It is empty for the classes of ordinary traces.
	Role string `json:"role,omitempty"`
	// Differs says how the class differs from the largest class: calls it
	// makes that the largest does not, calls it lacks, calls it makes
	// more or less often. Empty for the largest class.
	Differs string `json:"differs,omitempty"`
	// Lone is set for a trace alone in its class among peers that share
	// theirs: a suspect, not a role.
	Lone bool `json:"lone,omitempty"`
}

// Text words the class: "class of 2: 0.0, 15.0 — the first and the last
// rank: MPI_Send 8 times instead of 16, … (one neighbour fewer)".
func (cl Class) Text() string {
	what := fmt.Sprintf("class of %d: %s", len(cl.Traces), trace.List(cl.Traces))
	var parts []string
	if cl.Role != "" {
		parts = append(parts, cl.Role)
	}
	if cl.Lone {
		parts = append(parts, "alone among its peers")
	}
	s := what
	if len(parts) > 0 {
		s += " — " + strings.Join(parts, ", ")
	}
	if cl.Differs != "" {
		s += ": " + cl.Differs
	}
	return s
}

// classes lists v's classes, largest first, and names the roles among
// them, comparing each with the largest class under n.
func (v *view) classes(n *compare.NLR) []Class {
	cls := v.classesOf()
	counts := func(o int) map[trace.Symbol]uint64 { return v.counts.of(n, o) }
	// refOf is the class a class is compared with: the largest other
	// class that holds a trace of its position, else the largest.
	refOf := func(k int) int {
		for x, m := range cls {
			if x != k && slices.ContainsFunc(m, func(o int) bool { return v.pos[o] == v.pos[cls[k][0]] }) {
				return m[0]
			}
		}
		return cls[0][0]
	}
	var out []Class
	for k, members := range cls {
		cl := Class{}
		var ps []Position
		for _, o := range members {
			cl.Traces = append(cl.Traces, v.ids[o])
			ps = append(ps, v.pos[o])
		}
		kind, alone := v.kinds[members[0]]
		cl.Lone = len(members) == 1 && alone && kind == deviant
		if k > 0 {
			if !cl.Lone && (!hasInner(ps) || allMain(ps)) {
				cl.Role = positionName(cl.Traces, ps)
			}
			if len(members) == 1 && alone && kind == extra {
				cl.Role = "more work than its peers, from the first iteration on"
			}
			ref := refOf(k)
			cl.Differs = differs(counts(members[0]), counts(ref), n.Names())
			if cl.Role != "" && boundary(ps) && fewerPointToPoint(counts(members[0]), counts(ref), n) {
				cl.Differs += " (one neighbour fewer)"
			}
		} else if !hasInner(ps) || allMain(ps) {
			cl.Role = positionName(cl.Traces, ps)
		}
		out = append(out, cl)
	}
	return out
}

func hasInner(ps []Position) bool {
	return slices.ContainsFunc(ps, func(p Position) bool { return p.Process == "inner" || p.Process == "only" && !p.Main })
}

func allMain(ps []Position) bool {
	return !slices.ContainsFunc(ps, func(p Position) bool { return !p.Main })
}

func boundary(ps []Position) bool {
	return !slices.ContainsFunc(ps, func(p Position) bool { return p.Process != "first" && p.Process != "last" })
}

// callCounts counts the calls of each function an NLR stands for.
func callCounts(t *nlr.Table, s nlr.Sequence) map[trace.Symbol]uint64 {
	memo := map[int32]map[trace.Symbol]uint64{}
	var of func(s nlr.Sequence) map[trace.Symbol]uint64
	of = func(s nlr.Sequence) map[trace.Symbol]uint64 {
		out := map[trace.Symbol]uint64{}
		for _, e := range s {
			if !e.IsLoop() {
				out[e.Sym]++
				continue
			}
			b, ok := memo[e.Loop]
			if !ok {
				b = of(t.Body(e.Loop))
				memo[e.Loop] = b
			}
			for sym, n := range b {
				out[sym] += n * uint64(e.Count)
			}
		}
		return out
	}
	return of(s)
}

// differs words how the calls counted in a differ from those in ref: the
// functions only a calls, those only ref calls, then those called a
// different number of times, a few of each.
func differs(a, ref map[trace.Symbol]uint64, name func(trace.Symbol) string) string {
	var more, less, other []trace.Symbol
	for s, n := range a {
		switch m := ref[s]; {
		case m == 0:
			more = append(more, s)
		case m != n:
			other = append(other, s)
		}
	}
	for s := range ref {
		if a[s] == 0 {
			less = append(less, s)
		}
	}
	byName := func(x, y trace.Symbol) int { return strings.Compare(name(x), name(y)) }
	slices.SortFunc(more, byName)
	slices.SortFunc(less, byName)
	slices.SortFunc(other, byName)
	var parts []string
	list := func(sign string, ss []trace.Symbol) {
		if len(ss) == 0 {
			return
		}
		var names []string
		for _, s := range ss[:min(3, len(ss))] {
			names = append(names, name(s))
		}
		more := ""
		if len(ss) > 3 {
			more = fmt.Sprintf(" and %d more", len(ss)-3)
		}
		parts = append(parts, sign+strings.Join(names, ", ")+more)
	}
	list("calls ", more)
	list("never calls ", less)
	for i, s := range other {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("%d more counts differ", len(other)-3))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s instead of %s", name(s), times(a[s]), times(ref[s])))
	}
	if len(parts) == 0 {
		return "the same calls, in another order"
	}
	return strings.Join(parts, "; ")
}

func times(n uint64) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// fewerPointToPoint reports whether a makes fewer point-to-point calls
// (sends, receives, their waits) than ref and no other call more often:
// what a rank with one neighbour fewer does.
func fewerPointToPoint(a, ref map[trace.Symbol]uint64, n *compare.NLR) bool {
	p2p := pointToPoint.Compile(n.Comparison().Symbols)
	var fewer bool
	for s, m := range ref {
		if p2p.Keep(s) && a[s] < m {
			fewer = true
		}
	}
	return fewer
}

// pointToPoint is MPI's point-to-point calls.
var pointToPoint = filters.MustParse("mpi.sr")
