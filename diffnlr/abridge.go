package diffnlr

import "github.com/difftrace/difftrace/nlr"

// Abridge says how much of a long diff the picture and the text show. Real
// traces give diffs of thousands of elements; these limits keep a picture
// readable while always showing where the runs diverge, how each side
// differs, and how each trace ends.
//
// A run of more than 2·Context+1 common elements shows its first and last
// Context elements around a "… N more common …" line; a changed run longer
// than 2·Changed+1 does the same with Changed. When there are more than
// Changes changes (a change is a maximal stretch of normal-only and
// faulty-only elements between two common ones), the first Changes/2 and
// the last Changes−Changes/2 are shown (where a trace ends matters most),
// and the ones between them, with the common runs around them, become one
// "… N more changes …" line that counts what it hides; the common runs at
// its two ends keep Context elements.
//
// A zero field takes its default (Context 3, Changed 8, Changes 20); a
// negative field means no limit.
type Abridge struct {
	Context int
	Changed int
	Changes int
}

// Full shows every element of the diff.
var Full = Abridge{Context: -1, Changed: -1, Changes: -1}

const (
	defaultContext = 3
	defaultChanged = 8
	defaultChanges = 20
)

func (a Abridge) withDefaults() Abridge {
	if a.Context == 0 {
		a.Context = defaultContext
	}
	if a.Changed == 0 {
		a.Changed = defaultChanged
	}
	if a.Changes == 0 {
		a.Changes = defaultChanges
	}
	return a
}

// row is one line of the abridged diff: an element, or a placeholder for
// hidden elements of its part's kind.
type row struct {
	elem   nlr.Element
	hidden int  // > 0: "… hidden more …" instead of an element
	last   bool // the last event recorded in the faulty run
}

// skipped counts what a "… N more changes …" line hides.
type skipped struct {
	changes                int
	common, normal, faulty int
}

// part is a run of rows of one kind, or (skip != nil) a line standing for
// changes that are not shown, or (head != "") the heading of a section with
// a note on its traces (note, e.g. "the faulty trace is empty").
type part struct {
	kind Kind
	rows []row
	skip *skipped
	head string
	note string
}

// view is the abridged diff both the picture and the text draw.
type view struct {
	parts     []part
	normalLen int
	faultyLen int
	changes   int
}

// abridge lays blocks out for display under the limits of a.
//
// When markEnd is set (the faulty trace was cut short: killed, crashed or
// hung) and the traces end differently, the faulty trace's last element is
// marked and never hidden.
func abridge(blocks []Block, a Abridge, markEnd bool) view {
	a = a.withDefaults()
	var v view
	for _, b := range blocks {
		switch b.Kind {
		case Common:
			v.normalLen += len(b.Elems)
			v.faultyLen += len(b.Elems)
		case NormalOnly:
			v.normalLen += len(b.Elems)
		case FaultyOnly:
			v.faultyLen += len(b.Elems)
		}
	}

	// The faulty run's last event, when it was cut short and ends
	// differently: the last element of the last block that holds faulty
	// elements.
	lastBlock := -1
	if n := len(blocks); markEnd && n > 0 && blocks[n-1].Kind != Common {
		for i := len(blocks) - 1; i >= 0; i-- {
			if blocks[i].Kind != NormalOnly {
				lastBlock = i
				break
			}
		}
	}

	// Changes: maximal stretches of non-common blocks, [start, end) indices.
	type span struct{ start, end int }
	var changes []span
	for i := 0; i < len(blocks); {
		if blocks[i].Kind == Common {
			i++
			continue
		}
		j := i
		for j < len(blocks) && blocks[j].Kind != Common {
			j++
		}
		changes = append(changes, span{i, j})
		i = j
	}
	v.changes = len(changes)

	// Blocks from skipFrom to skipTo (exclusive) are hidden behind one line,
	// except the head of the common block at skipFrom and the tail of the
	// common block at skipTo-1.
	skipFrom, skipTo := -1, -1
	if a.Changes >= 0 && len(changes) > a.Changes {
		tail := (a.Changes + 1) / 2
		head := a.Changes - tail
		if head > 0 {
			skipFrom = changes[head-1].end
		} else {
			skipFrom = 0
		}
		if tail > 0 {
			skipTo = changes[len(changes)-tail].start
		} else {
			skipTo = len(blocks)
		}
	}

	keep := func(k Kind) int {
		if k == Common {
			return a.Context
		}
		return a.Changed
	}
	emit := func(k Kind, elems nlr.Sequence, head, tail int, mark bool) {
		p := part{kind: k}
		n := len(elems)
		if head < 0 || tail < 0 || head+tail+1 >= n {
			head, tail = n, 0
		}
		for _, e := range elems[:head] {
			p.rows = append(p.rows, row{elem: e})
		}
		if hidden := n - head - tail; hidden > 0 {
			p.rows = append(p.rows, row{hidden: hidden})
		}
		for _, e := range elems[n-tail:] {
			p.rows = append(p.rows, row{elem: e})
		}
		if mark && n > 0 {
			p.rows[len(p.rows)-1].last = true // never hidden: runs keep their tails
		}
		if len(p.rows) > 0 {
			v.parts = append(v.parts, p)
		}
	}

	for i := 0; i < len(blocks); i++ {
		b := blocks[i]
		if i == skipFrom {
			s := &skipped{changes: len(changes) - a.Changes}
			// The common block the hidden stretch starts with keeps its head.
			first, last := skipFrom, skipTo-1
			for j := first; j <= last; j++ {
				switch blocks[j].Kind {
				case Common:
					s.common += len(blocks[j].Elems)
				case NormalOnly:
					s.normal += len(blocks[j].Elems)
				case FaultyOnly:
					s.faulty += len(blocks[j].Elems)
				}
			}
			if blocks[first].Kind == Common {
				n := min(a.Context, len(blocks[first].Elems))
				emit(Common, blocks[first].Elems[:n], -1, -1, false)
				s.common -= n
			}
			var tailPart nlr.Sequence
			if last > first && blocks[last].Kind == Common {
				n := min(a.Context, len(blocks[last].Elems))
				tailPart = blocks[last].Elems[len(blocks[last].Elems)-n:]
				s.common -= n
			}
			v.parts = append(v.parts, part{kind: Common, skip: s})
			if tailPart != nil {
				emit(Common, tailPart, -1, -1, last == lastBlock)
			}
			i = last
			continue
		}
		k := keep(b.Kind)
		emit(b.Kind, b.Elems, k, k, i == lastBlock)
	}
	return v
}
