package diffnlr

import (
	"fmt"
	"math"
	"strings"

	"github.com/difftrace/difftrace/internal/plural"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// Place is one loop around a point of a trace: the loop, which of its
// iterations the point is in (from 1) and how many the loop has.
type Place struct {
	Loop      int32 `json:"loop"`
	Iteration int32 `json:"iteration"`
	Count     int32 `json:"count"`
}

// First is where two traces first part, in the calls their NLRs stand for:
// how many calls they have in common before, what each does there that the
// other does not (the first change of a diff of the calls that follow), and
// the loops around that point in each run.
type First struct {
	// Common counts the calls both traces make before they part.
	Common uint64 `json:"common"`
	// Normal and Faulty are the calls only one of them makes there (at
	// most maxStretch each; NormalMore and FaultyMore count the rest).
	Normal     []trace.Symbol `json:"-"`
	Faulty     []trace.Symbol `json:"-"`
	NormalMore int            `json:"normal_more"`
	FaultyMore int            `json:"faulty_more"`
	// NormalEnded and FaultyEnded say a trace has no calls left there;
	// NormalLeft and FaultyLeft count the calls each has left from there
	// (at most window, 4,096).
	NormalEnded bool `json:"normal_ended"`
	FaultyEnded bool `json:"faulty_ended"`
	NormalLeft  int  `json:"normal_left"`
	FaultyLeft  int  `json:"faulty_left"`
	// Loops and FaultyLoops are the loops around the point, outermost
	// first, in the normal and the faulty trace.
	Loops       []Place `json:"loops"`
	FaultyLoops []Place `json:"faulty_loops"`
	// Reordered is set when the calls only the normal run makes there come
	// back a few calls later in the faulty run: the same calls in another
	// order, NormalOrder in one run and FaultyOrder in the other.
	Reordered   bool           `json:"reordered"`
	NormalOrder []trace.Symbol `json:"-"`
	FaultyOrder []trace.Symbol `json:"-"`
	// OrderVaries is set, by whoever compared further normal runs, when a
	// reordering (Reordered) is of calls that the normal runs also make in
	// different orders: an order the program itself does not fix.
	OrderVaries bool `json:"order_varies,omitempty"`
	// Unordered, set by whoever compared further normal runs, holds the
	// calls of two stretches that the normal runs make in either order,
	// when the calls that differ are among them.
	Unordered [2][]trace.Symbol `json:"-"`
}

// SameCalls reports whether g reorders some of the calls f reorders: both
// are reorderings, and a call of one's stretch is in the other's.
func (f First) SameCalls(g First) bool {
	if !f.Reordered || !g.Reordered {
		return false
	}
	in := map[trace.Symbol]bool{}
	for _, s := range g.NormalOrder {
		in[s] = true
	}
	for _, s := range g.FaultyOrder {
		in[s] = true
	}
	for _, s := range f.NormalOrder {
		if in[s] {
			return true
		}
	}
	return false
}

const (
	// window is how many calls after the point are diffed to find what
	// each run does there.
	window = 4096
	// maxStretch is how many calls of each side First keeps.
	maxStretch = 64
)

// FirstDifference returns where the traces whose NLRs are normal and
// faulty (loops in t) first part; ok is false when they make the same
// calls. Equal elements are skipped whole and equal iterations of a loop
// at once, so the cost is in the elements around the point, not in the
// calls before it.
func FirstDifference(t *nlr.Table, normal, faulty nlr.Sequence) (f First, ok bool) {
	a, b := newCursor(t, normal), newCursor(t, faulty)
	// strict is set once a loop ran a different number of times: from
	// there the calls that match must match element by element.
	strict := false
	short := int32(-1) // the last loop that ran a different number of times
	for !a.done() && !b.done() {
		ea, eb := a.cur(), b.cur()
		switch {
		case ea.Equal(eb):
			f.Common = satAdd(f.Common, t.Calls(nlr.Sequence{ea}))
			a.skip()
			b.skip()
		case ea.IsLoop() && eb.IsLoop() && ea.Loop == eb.Loop:
			// The same loop, run a different number of times: the common
			// iterations first, then the runs part where one runs one
			// more iteration and the other does something else. (Going on
			// into the loops that follow could match the calls of later
			// iterations to the rest of the shorter run and name a place
			// iterations too late: four copies a step against three in
			// step 7 read as one copy missing in step 12.)
			m := min(ea.Count, eb.Count)
			f.Common = satAdd(f.Common, satMul(uint64(m), t.BodyCalls(ea.Loop)))
			a.enterAt(m + 1)
			b.enterAt(m + 1)
			strict, short = true, ea.Loop
		case strict:
			goto parted
		case ea.IsLoop():
			a.enterAt(1)
		case eb.IsLoop():
			b.enterAt(1)
		default:
			goto parted
		}
	}
	if a.done() && b.done() {
		return f, false
	}
parted:
	f.Loops, f.FaultyLoops = a.places(), b.places()
	f.NormalEnded, f.FaultyEnded = a.done(), b.done()
	na, nb := a.take(window), b.take(window)
	f.NormalLeft, f.FaultyLeft = len(na), len(nb)
	if short < 0 || len(t.Body(short)) > 1 {
		// A loop of one call that ran short (three copies for four) is
		// not a reordering of what follows, which can look like one.
		f.reorder(na, nb)
	}
	blocks, err := Diff(symbolsOf(na), symbolsOf(nb))
	if err == nil {
		for _, bl := range blocks {
			if bl.Kind == Common {
				if len(f.Normal)+len(f.Faulty) > 0 {
					break
				}
				continue
			}
			for _, e := range bl.Elems {
				if bl.Kind == NormalOnly {
					f.Normal = append(f.Normal, e.Sym)
				} else {
					f.Faulty = append(f.Faulty, e.Sym)
				}
			}
		}
	}
	if len(f.Normal) > maxStretch {
		f.NormalMore, f.Normal = len(f.Normal)-maxStretch, f.Normal[:maxStretch]
	}
	if len(f.Faulty) > maxStretch {
		f.FaultyMore, f.Faulty = len(f.Faulty)-maxStretch, f.Faulty[:maxStretch]
	}
	return f, true
}

// maxReorder is the longest stretch First calls a reordering.
const maxReorder = 8

// reorder sets Reordered when the next few calls (2 to maxReorder) of the
// two runs are the same calls in another order: A, B against B, A. (A
// minimal diff reads a swap as one call dropped here and one added
// further on, which would misname it.)
func (f *First) reorder(na, nb []trace.Symbol) {
	count := map[trace.Symbol]int{}
	for m := 1; m <= maxReorder && m <= len(na) && m <= len(nb); m++ {
		count[na[m-1]]++
		count[nb[m-1]]--
		if m < 2 {
			continue
		}
		same := true
		for _, c := range count {
			if c != 0 {
				same = false
				break
			}
		}
		if same {
			f.Reordered = true
			f.NormalOrder, f.FaultyOrder = na[:m], nb[:m]
			return
		}
	}
}

func symbolsOf(syms []trace.Symbol) nlr.Sequence {
	s := make(nlr.Sequence, len(syms))
	for i, x := range syms {
		s[i] = nlr.Element{Loop: nlr.NoLoop, Sym: x}
	}
	return s
}

// Text says where the traces part and how, in one line: "iteration 6 of 12
// of L24: halo::Exchanger::exchange and 19 more calls missing", or "after
// 412 calls: …" where no loop holds the place. name names symbols; stack, if
// not empty, is the call stack at that point (outermost first), written
// after the loops or the count.
func (f First) Text(name func(trace.Symbol) string, stack []string) string {
	var where []string
	for _, p := range f.Loops {
		where = append(where, fmt.Sprintf("iteration %d of %d of L%d", p.Iteration, p.Count, p.Loop))
	}
	w := strings.Join(where, " > ")
	if w == "" {
		// No loop to count iterations in: how far into the trace.
		n := int(min(f.Common, math.MaxInt32))
		w = fmt.Sprintf("after %s %s", thousands(n), plural.Word(n, "call", "calls"))
		if f.Common == 0 {
			w = "at the start"
		}
	}
	if len(stack) > 0 {
		w += ", in " + strings.Join(stack, " > ")
	}
	calls := func(s []trace.Symbol, more int) string {
		out := name(s[0])
		if n := len(s) - 1 + more; n > 0 {
			out += fmt.Sprintf(" and %s more %s", thousands(n), plural.Word(n, "call", "calls"))
		}
		return out
	}
	list := func(s []trace.Symbol) string {
		var names []string
		for _, x := range s {
			names = append(names, name(x))
		}
		return strings.Join(names, ", ")
	}
	var what string
	switch {
	case f.Reordered:
		what = "the same calls in another order: " + list(f.NormalOrder) + " in the normal run, " + list(f.FaultyOrder) + " in the faulty run"
		if f.OrderVaries {
			what += " (the normal runs order these calls differently too: an order the program does not fix, such as that of receives from any source)"
		}
	case f.FaultyEnded && len(f.Normal) > 0:
		what = "the faulty trace ends here; the normal run goes on with " + calls(f.Normal, f.NormalMore)
	case f.NormalEnded && len(f.Faulty) > 0:
		what = "the normal trace ends here; the faulty run goes on with " + calls(f.Faulty, f.FaultyMore)
	case len(f.Faulty) == 0 && len(f.Normal) > 0:
		what = calls(f.Normal, f.NormalMore) + " missing"
	case len(f.Normal) == 0 && len(f.Faulty) > 0:
		what = calls(f.Faulty, f.FaultyMore) + " added"
	case len(f.Normal) > 0:
		what = calls(f.Normal, f.NormalMore) + " replaced by " + calls(f.Faulty, f.FaultyMore)
	default:
		what = "the calls differ"
	}
	if u := f.Unordered; !f.Reordered && len(u[0]) > 0 {
		what += fmt.Sprintf(", where the normal runs make %s… and %s… in either order", name(u[0][0])+", "+name(u[0][min(1, len(u[0])-1)]), name(u[1][0])+", "+name(u[1][min(1, len(u[1])-1)]))
	}
	return "first difference: " + w + ": " + what
}

// cursor walks the calls an NLR stands for, one element at a time, entering
// loops only when asked.
type cursor struct {
	t     *nlr.Table
	stack []cframe
}

type cframe struct {
	seq         nlr.Sequence
	pos         int
	loop        int32 // NoLoop at the top level
	iter, count int32
}

func newCursor(t *nlr.Table, s nlr.Sequence) *cursor {
	c := &cursor{t: t, stack: []cframe{{seq: s, loop: nlr.NoLoop}}}
	c.settle()
	return c
}

func (c *cursor) done() bool { return len(c.stack) == 0 }

func (c *cursor) cur() nlr.Element {
	f := &c.stack[len(c.stack)-1]
	return f.seq[f.pos]
}

// settle moves past finished iterations and bodies.
func (c *cursor) settle() {
	for len(c.stack) > 0 {
		f := &c.stack[len(c.stack)-1]
		if f.pos < len(f.seq) {
			return
		}
		if f.loop != nlr.NoLoop && f.iter < f.count {
			f.iter++
			f.pos = 0
			continue
		}
		c.stack = c.stack[:len(c.stack)-1]
		if len(c.stack) > 0 {
			c.stack[len(c.stack)-1].pos++
		}
	}
}

func (c *cursor) skip() {
	c.stack[len(c.stack)-1].pos++
	c.settle()
}

// enterAt enters the current loop at iteration i, or skips it when it has
// fewer iterations.
func (c *cursor) enterAt(i int32) {
	e := c.cur()
	if i > e.Count {
		c.skip()
		return
	}
	c.stack = append(c.stack, cframe{seq: c.t.Body(e.Loop), loop: e.Loop, iter: i, count: e.Count})
	c.settle()
}

// places returns the loops the cursor is in, outermost first.
func (c *cursor) places() []Place {
	out := []Place{}
	for _, f := range c.stack {
		if f.loop != nlr.NoLoop {
			out = append(out, Place{Loop: f.loop, Iteration: f.iter, Count: f.count})
		}
	}
	return out
}

// take returns up to n of the next calls.
func (c *cursor) take(n int) []trace.Symbol {
	var out []trace.Symbol
	for len(out) < n && !c.done() {
		if e := c.cur(); e.IsLoop() {
			c.enterAt(1)
			continue
		}
		out = append(out, c.cur().Sym)
		c.skip()
	}
	return out
}

func satAdd(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

func satMul(a, b uint64) uint64 {
	if a != 0 && b > math.MaxUint64/a {
		return math.MaxUint64
	}
	return a * b
}
