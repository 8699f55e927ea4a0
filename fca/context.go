package fca

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// Context is a formal context (seeds/002 §3.2.5, Table 3.4): traces (objects)
// × attributes, with traces whose attribute sets are equal collapsed into one
// equivalence class, as STAT groups processes. Later stages work on classes
// and expand to traces only at the end, which keeps thousands of alike ranks
// cheap.
//
// Attributes are numbered 0, 1, … in order of first appearance (traces in the
// given order, entries in sequence order); classes likewise, by their first
// trace.
type Context struct {
	mode    Mode
	ids     []trace.ID
	names   []string  // attribute display names
	entries []string  // attribute names without their frequency
	class   []int     // object → class
	intents *wordSets // class → its attribute set
	// Class k's objects, increasing, are members[memberAt[k]:memberAt[k+1]]:
	// flat, so that a context of a million traces is a few arrays the
	// collector need not look into, not a slice per class.
	members  []int
	memberAt []int
}

// NewContext builds the formal context of the traces ids, whose NLR sequences
// are seqs, under mode m. sym names the symbols for attribute display (nil
// names them by number). Loop entries are named by their loop ID, L0, L1, ….
func NewContext(m Mode, ids []trace.ID, seqs []nlr.Sequence, sym func(trace.Symbol) string) (*Context, error) {
	return NewLooseContext(m, ids, seqs, sym, nil)
}

// NewLooseContext is NewContext with the attributes loose names taken
// loosely (see Loose): without frequency, or left out. A nil loose is
// NewContext.
func NewLooseContext(m Mode, ids []trace.ID, seqs []nlr.Sequence, sym func(trace.Symbol) string, loose *Loose) (*Context, error) {
	if len(ids) != len(seqs) {
		return nil, fmt.Errorf("formal context: %d trace IDs but %d NLR sequences; give one sequence per trace", len(ids), len(seqs))
	}
	return NewLooseContextFunc(m, ids, func(o int) nlr.Sequence { return seqs[o] }, nil, sym, loose)
}

// NewLooseContextFunc is NewLooseContext for NLR sequences made when
// needed: seq(o) returns the sequence of ids[o], and is called at most
// once for each, in order, so that they need not all be in memory at once.
//
// same, if not nil, names the sequences: same(o) ≥ 0 says that o's
// sequence is that of every object with the same name, whose attributes
// are then taken from the first without asking seq (traces of a large
// run share a few NLRs); a negative name is asked for.
func NewLooseContextFunc(m Mode, ids []trace.ID, seq func(o int) nlr.Sequence, same func(o int) int, sym func(trace.Symbol) string, loose *Loose) (*Context, error) {
	seen := make(map[trace.ID]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			return nil, fmt.Errorf("formal context: trace %v appears twice; each trace is one object", id)
		}
		seen[id] = true
	}
	c := &Context{
		mode:    m,
		ids:     append([]trace.ID(nil), ids...),
		class:   make([]int, len(ids)),
		intents: newWordSets(),
	}
	index := map[attrKey]int{}
	var table entryTable
	named := map[int]int{} // a sequence's name → its first object
	for o := range ids {
		if same != nil {
			if x := same(o); x >= 0 {
				if first, ok := named[x]; ok {
					c.class[o] = c.class[first]
					continue
				}
				named[x] = o
			}
		}
		seq := seq(o)
		if err := checkSequence(ids[o], seq); err != nil {
			return nil, err
		}
		keys := table.attributes(m, seq)
		as := make([]int, 0, len(keys))
		for _, k := range keys {
			v := loose.of(m, k)
			if v&noisy != 0 {
				continue
			}
			if m.Freq != NoFreq && v&freeCount != 0 {
				k.freq = looseFreq
			}
			a, ok := index[k]
			if !ok {
				a = len(c.names)
				index[k] = a
				c.names = append(c.names, k.name(m, sym))
				c.entries = append(c.entries, k.name(Mode{Double: m.Double}, sym))
			}
			as = append(as, a)
		}
		slices.Sort(as)
		c.class[o], _ = c.intents.index(as)
	}
	c.done()
	return c, nil
}

// Union returns the context of the objects ids whose object j has the union
// of the attributes of the objects i of c with of[i] == j (a process does
// what any of its threads does). It keeps c's mode and attribute names, so
// a process-level context says which attributes it was built from.
func (c *Context) Union(ids []trace.ID, of []int) (*Context, error) {
	if len(of) != len(c.ids) {
		return nil, fmt.Errorf("formal context: %d objects but %d groups given; give one group per object", len(c.ids), len(of))
	}
	u := &Context{mode: c.mode, ids: append([]trace.ID(nil), ids...), names: c.names, entries: c.entries,
		class: make([]int, len(ids)), intents: newWordSets()}
	attrs := make([][]int, len(ids))
	for o, j := range of {
		if j < 0 || j >= len(ids) {
			return nil, fmt.Errorf("formal context: object %v goes to group %d of %d", c.ids[o], j, len(ids))
		}
		attrs[j] = c.intents.appendMembers(attrs[j], c.class[o])
	}
	for j, as := range attrs {
		slices.Sort(as)
		u.class[j], _ = u.intents.index(slices.Compact(as))
		attrs[j] = nil
	}
	u.done()
	return u, nil
}

// done ends building: each class's objects are listed, in order.
func (c *Context) done() {
	c.intents.done()
	k := c.intents.len()
	c.memberAt = make([]int, k+1)
	for _, x := range c.class {
		c.memberAt[x+1]++
	}
	for x := range k {
		c.memberAt[x+1] += c.memberAt[x]
	}
	c.members = make([]int, len(c.class))
	next := slices.Clone(c.memberAt[:k])
	for o, x := range c.class {
		c.members[next[x]] = o
		next[x]++
	}
}

// Mode returns the attribute mode the context was built with.
func (c *Context) Mode() Mode { return c.mode }

// Len returns the number of objects (traces).
func (c *Context) Len() int { return len(c.ids) }

// ID returns the trace ID of object o.
func (c *Context) ID(o int) trace.ID { return c.ids[o] }

// IDs returns the trace IDs of all objects, in object order.
func (c *Context) IDs() []trace.ID { return append([]trace.ID(nil), c.ids...) }

// NumAttrs returns the number of distinct attributes.
func (c *Context) NumAttrs() int { return len(c.names) }

// AttrName returns the display name of attribute a.
func (c *Context) AttrName(a int) string { return c.names[a] }

// AttrEntry returns the name of attribute a without its frequency: the
// entry or pair it counts ("L1" for "L1:16").
func (c *Context) AttrEntry(a int) string { return c.entries[a] }

// Attrs returns the attributes of object o, increasing, in a new slice.
func (c *Context) Attrs(o int) []int { return c.intents.appendMembers(nil, c.class[o]) }

// Has reports whether object o has attribute a.
func (c *Context) Has(o, a int) bool { return c.intents.has(c.class[o], a) }

// NumClasses returns the number of equivalence classes (distinct attribute
// sets).
func (c *Context) NumClasses() int { return c.intents.len() }

// Class returns the equivalence class of object o.
func (c *Context) Class(o int) int { return c.class[o] }

// Members returns the objects of class k, increasing.
func (c *Context) Members(k int) []int {
	return c.members[c.memberAt[k]:c.memberAt[k+1]:c.memberAt[k+1]]
}

// ClassAttrs returns the attribute set shared by the objects of class k, as
// a new Bitset over all the context's attributes.
func (c *Context) ClassAttrs(k int) Bitset { return c.intents.bitset(k, len(c.names)) }

// classSize returns the number of attributes of class k.
func (c *Context) classSize(k int) int { return int(c.intents.size[k]) }

// interLen returns the number of attributes classes p and q share.
func (c *Context) interLen(p, q int) int { return c.intents.interLen(p, q) }

// WriteTable writes the context as a cross table like seeds/002 Table 3.4:
// one row per trace, one column per attribute, "×" where the trace has it.
func (c *Context) WriteTable(w io.Writer) error {
	bw := bufio.NewWriter(w)
	idw := len("trace")
	for _, id := range c.ids {
		idw = max(idw, len(id.String()))
	}
	pad := func(s string, n int) string {
		return s + strings.Repeat(" ", max(0, n-utf8.RuneCountInString(s)))
	}
	bw.WriteString(pad("trace", idw))
	names := make([]string, len(c.names))
	for a, n := range c.names {
		names[a] = trace.Printable(n) // names come from the traces
		bw.WriteString("  " + names[a])
	}
	bw.WriteByte('\n')
	var row strings.Builder
	for o, id := range c.ids {
		row.Reset()
		row.WriteString(pad(id.String(), idw))
		for a, n := range names {
			mark := ""
			if c.Has(o, a) {
				mark = "×"
			}
			w := utf8.RuneCountInString(n)
			row.WriteString("  " + pad(strings.Repeat(" ", (w-1)/2)+mark, w))
		}
		bw.WriteString(strings.TrimRight(row.String(), " "))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
