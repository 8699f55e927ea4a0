package nlr

import (
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/trace"
)

// FuncNames returns a name function for Format and Legend that prints the
// function name of each symbol of t as tables and pictures show it
// (trace.Table.Label: demangled, without parameters unless they are needed
// to tell overloads apart).
func FuncNames(t *trace.Table) func(trace.Symbol) string {
	return t.Label
}

// LoopName returns "L" followed by the loop ID, as loops are written.
func LoopName(id int32) string { return "L" + strconv.Itoa(int(id)) }

// Format writes an element: the symbol's name, or "L0^4" for a loop.
func (e Element) Format(name func(trace.Symbol) string) string {
	if e.IsLoop() {
		return LoopName(e.Loop) + "^" + strconv.Itoa(int(e.Count))
	}
	return name(e.Sym)
}

// Format writes a sequence as "MPI_Init, L0^4, MPI_Finalize".
func (s Sequence) Format(name func(trace.Symbol) string) string {
	var b strings.Builder
	for i, e := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.Format(name))
	}
	return b.String()
}

// Define writes the definition of loop id: "L0 = [MPI_Send, MPI_Recv]".
func (t *Table) Define(id int32, name func(trace.Symbol) string) string {
	return LoopName(id) + " = [" + t.bodies[id].Format(name) + "]"
}

// Legend returns the definitions of the loops the sequences mention,
// directly or inside other loops, in ascending ID order (so each loop is
// defined before any loop that holds it); with no sequences, of every loop.
func (t *Table) Legend(name func(trace.Symbol) string, seqs ...Sequence) []string {
	var out []string
	for _, id := range t.Used(seqs...) {
		out = append(out, t.Define(id, name))
	}
	return out
}

// Gloss returns the definitions of the loops shown mentions directly, in
// ascending ID order, with the loops inside them that shown does not
// mention written out in place ("[fmin, fmax]^256", as Inline does) when
// that takes at most maxInline characters; a longer one is named and
// defined on a line of its own, as Legend does. One line for each loop
// the reader sees, and for each long one inside them.
func (t *Table) Gloss(name func(trace.Symbol) string, shown Sequence) []string {
	defined := make([]bool, len(t.bodies))
	for _, e := range shown {
		if e.IsLoop() {
			defined[e.Loop] = true
		}
	}
	// Loops inside defined ones whose written-out form is too long are
	// defined too, and so are those inside them, outermost first.
	inline := make([]string, len(t.bodies)) // written out in place; "" not yet
	written := func(id int32) string {
		if inline[id] == "" {
			inline[id] = "[" + t.Inline(t.bodies[id], name) + "]"
		}
		return inline[id]
	}
	for changed := true; changed; {
		changed = false
		for id, d := range defined {
			if !d {
				continue
			}
			for _, e := range t.bodies[id] {
				if e.IsLoop() && !defined[e.Loop] && len(written(e.Loop)) > maxInline {
					defined[e.Loop] = true
					changed = true
				}
			}
		}
	}
	var out []string
	for id, d := range defined {
		if !d {
			continue
		}
		var b strings.Builder
		b.WriteString(LoopName(int32(id)) + " = [")
		t.gloss(&b, t.bodies[id], name, defined)
		b.WriteByte(']')
		out = append(out, b.String())
	}
	return out
}

// maxInline is the longest a loop written out in place in Gloss may be.
const maxInline = 80

func (t *Table) gloss(b *strings.Builder, s Sequence, name func(trace.Symbol) string, defined []bool) {
	for i, e := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		switch {
		case !e.IsLoop():
			b.WriteString(name(e.Sym))
		case defined[e.Loop]:
			b.WriteString(e.Format(name))
		default:
			b.WriteByte('[')
			t.gloss(b, t.bodies[e.Loop], name, defined)
			b.WriteString("]^" + strconv.Itoa(int(e.Count)))
		}
	}
}

// Used returns the IDs of the loops the sequences mention, directly or
// inside other loops, ascending; with no sequences, every loop's.
func (t *Table) Used(seqs ...Sequence) []int32 {
	used := make([]bool, len(t.bodies))
	if len(seqs) == 0 {
		for i := range used {
			used[i] = true
		}
	}
	for _, s := range seqs {
		t.mark(s, used)
	}
	var out []int32
	for id, u := range used {
		if u {
			out = append(out, int32(id))
		}
	}
	return out
}

// mark sets used for every loop s mentions, and those inside them.
func (t *Table) mark(s Sequence, used []bool) {
	for _, e := range s {
		if e.IsLoop() && !used[e.Loop] {
			used[e.Loop] = true
			t.mark(t.bodies[e.Loop], used)
		}
	}
}

// Inline writes a sequence with every loop written out in place as
// "[body]^count", nested loops likewise: "atoi, [strcmp]^4". It is for
// short sequences read on their own, without a legend.
func (t *Table) Inline(s Sequence, name func(trace.Symbol) string) string {
	var b strings.Builder
	t.inline(&b, s, name)
	return b.String()
}

func (t *Table) inline(b *strings.Builder, s Sequence, name func(trace.Symbol) string) {
	for i, e := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		if !e.IsLoop() {
			b.WriteString(name(e.Sym))
			continue
		}
		b.WriteByte('[')
		t.inline(b, t.bodies[e.Loop], name)
		b.WriteString("]^" + strconv.Itoa(int(e.Count)))
	}
}

// Unfolded returns the length of the shortest block, longer than k and at
// most maxBody elements, that s repeats three times in a row without a loop
// for it: flat repeats that NLR with K = k leaves unrolled and a larger K
// would fold. It returns 0 when there is none. The cost is one pass over s
// per block length.
func Unfolded(s Sequence, k, maxBody int) int {
	for b := k + 1; b <= maxBody && 3*b <= len(s); b++ {
		run := 0 // consecutive positions i with s[i] == s[i+b]
		for i := 0; i+b < len(s); i++ {
			if s[i].Equal(s[i+b]) {
				run++
				if run >= 2*b {
					return b
				}
			} else {
				run = 0
			}
		}
	}
	return 0
}
