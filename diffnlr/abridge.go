package diffnlr

import (
	"cmp"
	"slices"

	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

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
// A zero field takes its default (Context 3, Changed 4, Changes 20); a
// negative field means no limit.
type Abridge struct {
	Context int
	Changed int
	Changes int
	// Lines, when > 0, is the most lines the text may take: a caller fits
	// it by trying Tighter's abridgements in turn. Abridge itself does not
	// read it.
	Lines int
}

// Tighter returns the abridgements to try, in turn, for a diff that must
// fit in a.Lines lines: a itself, then ones that show fewer elements at
// each end of a run and fewer changes, each at least as brief as the one
// before. Without Lines, it is a alone.
func (a Abridge) Tighter() []Abridge {
	if a.Lines <= 0 {
		return []Abridge{a}
	}
	a = a.withDefaults()
	atMost := func(x, v int) int {
		if x < 0 || x > v {
			return v
		}
		return x
	}
	out := []Abridge{a}
	for _, s := range [][3]int{{2, 2, 20}, {1, 1, 10}, {1, 1, 6}, {1, 1, 4}, {1, 1, 2}} {
		b := Abridge{Context: atMost(a.Context, s[0]), Changed: atMost(a.Changed, s[1]), Changes: atMost(a.Changes, s[2]), Lines: a.Lines}
		if b != out[len(out)-1] {
			out = append(out, b)
		}
	}
	return out
}

// Full shows every element of the diff.
var Full = Abridge{Context: -1, Changed: -1, Changes: -1}

const (
	defaultContext = 3
	defaultChanged = 4
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
	// outer, with hidden, names the outermost calls of the hidden
	// elements, in order (outermost); the row then stands for a whole
	// changed stretch.
	outer []outerCall
}

// outerCall is one of the outermost elements of a changed stretch, with
// how many elements after it the calls it makes account for.
type outerCall struct {
	elem   nlr.Element
	inside int
	times  int // > 1: the same calls, all the way down, so many times in a row
}

// maxOuter bounds how many outermost calls a row names: the first
// maxOuter-1 and the last, with a count of those between.
const maxOuter = 4

// outermost groups a stretch of elements by the calls that hold them:
// each element not held by the one that opened the current group (not
// deeper than it) opens a group of its own. depth gives an element's depth
// among the calls the view keeps; ok is false when one is unknown.
//
// Groups that repeat the one before them element for element (at the same
// depths) are counted on it (outerCall.times).
func outermost(elems nlr.Sequence, depth func(int) int) (out []outerCall, ok bool) {
	head := 0
	var from []int // the first element of each group
	ds := make([]int, len(elems))
	for j, e := range elems {
		d := depth(j)
		if d < 0 {
			return nil, false
		}
		ds[j] = d
		if len(out) == 0 || d <= head {
			out = append(out, outerCall{elem: e, times: 1})
			from = append(from, j)
			head = d
			continue
		}
		out[len(out)-1].inside++
	}
	// Fold repeats: group g equals the last group kept.
	var folded []outerCall
	last := -1 // the group folded[len(folded)-1] was taken from
	for g, c := range out {
		if last >= 0 && c.elem == out[last].elem && c.inside == out[last].inside &&
			slices.Equal(elems[from[g]:from[g]+c.inside+1], elems[from[last]:from[last]+c.inside+1]) &&
			slices.Equal(ds[from[g]:from[g]+c.inside+1], ds[from[last]:from[last]+c.inside+1]) {
			folded[len(folded)-1].times++
			continue
		}
		folded = append(folded, c)
		last = g
	}
	return folded, true
}

// skipped counts what a "… N more changes …" line hides. With same set,
// the line stands for changes that each repeat the one shown just before
// it, and every is the number of common elements before each of them when
// those stretches are all alike (0 when they differ).
type skipped struct {
	changes                int
	common, normal, faulty int
	same                   bool
	every                  int
	// usual: the line stands for one change like those between the
	// normal runs (usualChanges).
	usual bool
}

// minSame is the smallest number of identical changes in a row that abridge
// summarises: the first is shown, the others become one line.
const minSame = 3

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
//
// With usual set, changes like those between the normal runs are one line
// each (usualChanges).
//
// With depth set (Picture.Depth for this diff), a changed run too long to
// show whole is one row naming its outermost calls.
func abridge(blocks []Block, a Abridge, markEnd bool, usual *Pairs, depth func(side Kind, at int) int) view {
	a = a.withDefaults()
	var v view
	blocks = placed(blocks)
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

	changes := changeSpans(blocks)
	v.changes = len(changes)

	// Identical changes in a row: the first is shown, the others become one
	// line. The marks are Common blocks without elements that stand for
	// what they hide.
	var marks map[int]*skipped
	if a.Changes >= 0 {
		if usual != nil {
			blocks = usualChanges(blocks, changes, usual, a.Changed)
			changes = changeSpans(blocks)
		}
		blocks, marks = sameChanges(blocks, changes, a.Context, markEnd)
		changes = changeSpans(blocks)
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
	emit := func(k Kind, elems nlr.Sequence, head, tail int, mark bool, at [2]int) {
		p := part{kind: k}
		n := len(elems)
		if head < 0 || tail < 0 || head+tail+1 >= n {
			head, tail = n, 0
		}
		// A changed run too long to show whole: one row naming its
		// outermost calls, and the faulty trace's last element if it is
		// there.
		if shown := n - btoi(mark); k != Common && depth != nil && head < n && shown > 1 {
			side := 0
			if k == FaultyOnly {
				side = 1
			}
			if out, ok := outermost(elems[:shown], func(j int) int { return depth(k, at[side]+j) }); ok {
				p.rows = append(p.rows, row{hidden: shown, outer: out})
				if mark {
					p.rows = append(p.rows, row{elem: elems[n-1], last: true})
				}
				v.parts = append(v.parts, p)
				return
			}
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
		if m := cmp.Or(marks[i], b.mark); m != nil && i != skipFrom {
			v.parts = append(v.parts, part{kind: Common, skip: m})
			continue
		}
		if i == skipFrom {
			s := &skipped{changes: len(changes) - a.Changes}
			// The common block the hidden stretch starts with keeps its head.
			first, last := skipFrom, skipTo-1
			for j := first; j <= last; j++ {
				if m := cmp.Or(marks[j], blocks[j].mark); m != nil {
					s.changes += m.changes
					s.common += m.common
					s.normal += m.normal
					s.faulty += m.faulty
					continue
				}
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
				emit(Common, blocks[first].Elems[:n], -1, -1, false, blocks[first].at)
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
				emit(Common, tailPart, -1, -1, last == lastBlock, blocks[last].at)
			}
			i = last
			continue
		}
		head, tail := keep(b.Kind), keep(b.Kind)
		// Where both traces start alike, or end alike, what leads to the
		// first change and what follows the last is the context: the
		// traces' first and last calls are the same on both sides, and a
		// run too long to show whole keeps only its end near the change.
		if b.Kind == Common && len(changes) > 0 && a.Context >= 0 && len(b.Elems) > 2*a.Context+1 {
			if i == 0 {
				head = 0
			}
			if i == len(blocks)-1 {
				tail = 0
			}
		}
		emit(b.Kind, b.Elems, head, tail, i == lastBlock, b.at)
	}
	return v
}

// placed returns a copy of blocks with each block's place in the two
// sequences (Block.at).
func placed(blocks []Block) []Block {
	out := make([]Block, len(blocks))
	var at [2]int
	for i, b := range blocks {
		b.at = at
		out[i] = b
		if b.Kind != FaultyOnly {
			at[0] += len(b.Elems)
		}
		if b.Kind != NormalOnly {
			at[1] += len(b.Elems)
		}
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// span is a change: blocks[start:end], a maximal stretch of blocks that are
// not common.
type span struct{ start, end int }

func changeSpans(blocks []Block) []span {
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
	return changes
}

// sameChanges replaces each run of at least minSame identical changes in a
// row (the same normal-only and faulty-only elements) by its first change,
// the first context elements of the common stretch after it, and an empty
// Common block that marks[index] describes. When markEnd is set, a change
// that ends the diff is never folded in: it holds the faulty run's last
// event. blocks is not modified.
func sameChanges(blocks []Block, changes []span, context int, markEnd bool) ([]Block, map[int]*skipped) {
	alike := func(a, b span) bool {
		if a.end-a.start != b.end-b.start {
			return false
		}
		for i := range a.end - a.start {
			x, y := blocks[a.start+i], blocks[b.start+i]
			if x.Kind != y.Kind || !slices.Equal(x.Elems, y.Elems) {
				return false
			}
		}
		return true
	}
	// marked reports whether a line stands between changes x and y.
	marked := func(x, y span) bool {
		return slices.ContainsFunc(blocks[x.end:y.start], func(b Block) bool { return b.mark != nil })
	}
	var out []Block
	var marks map[int]*skipped
	from := 0 // blocks[from:] are not yet in out
	for k := 0; k < len(changes); {
		j := k
		for j+1 < len(changes) && alike(changes[k], changes[j+1]) && !marked(changes[j], changes[j+1]) {
			j++
		}
		if markEnd && j > k && changes[j].end == len(blocks) {
			j--
		}
		if j-k+1 < minSame {
			k = j + 1
			continue
		}
		gap := blocks[changes[k].end] // the common stretch after the first
		shown := min(max(context, 0), len(gap.Elems))
		s := &skipped{changes: j - k, same: true, every: len(gap.Elems)}
		for i := changes[k].end; i < changes[j].end; i++ {
			b := blocks[i]
			switch b.Kind {
			case Common:
				s.common += len(b.Elems)
				if !slices.Equal(b.Elems, gap.Elems) {
					s.every = 0
				}
			case NormalOnly:
				s.normal += len(b.Elems)
			case FaultyOnly:
				s.faulty += len(b.Elems)
			}
		}
		s.common -= shown
		out = append(out, blocks[from:changes[k].end]...)
		if shown > 0 {
			out = append(out, Block{Kind: Common, Elems: gap.Elems[:shown], at: gap.at})
		}
		if marks == nil {
			marks = make(map[int]*skipped)
		}
		marks[len(out)] = s
		out = append(out, Block{Kind: Common})
		from = changes[j].end
		k = j + 1
	}
	if marks == nil {
		return blocks, nil
	}
	return append(out, blocks[from:]...), marks
}

// usualChanges replaces each change between two common stretches whose
// faulty side makes only call pairs that usual holds — the calls of its
// faulty-only elements, from the last call before it to the first after
// it — by an empty Common block marked as such a change: the program did
// there what its normal runs do among themselves. A change that makes a new
// pair, adds calls no normal run makes there or leaves out calls that no
// normal run leaves out, stays; so does one where a loop ran a different
// number of times (the same loop on both sides), which pairs cannot tell.
// blocks is not modified.
//
// Only changes of more than small elements (Abridge.Changed) become a
// line: a shorter one takes no more room shown as it is.
func usualChanges(blocks []Block, changes []span, usual *Pairs, small int) []Block {
	var out []Block
	from := 0 // blocks[from:] are not yet in out
	for _, c := range changes {
		if c.start == 0 || c.end == len(blocks) {
			continue // where a trace starts or ends differently matters
		}
		before, after := blocks[c.start-1].Elems, blocks[c.end].Elems
		if len(before) == 0 || len(after) == 0 {
			continue
		}
		s := &skipped{changes: 1, usual: true}
		seq := nlr.Sequence{before[len(before)-1]}
		loops := map[int32]Kind{}
		counts := false // a loop on both sides: its count changed
		for _, b := range blocks[c.start:c.end] {
			switch b.Kind {
			case NormalOnly:
				s.normal += len(b.Elems)
			case FaultyOnly:
				s.faulty += len(b.Elems)
				seq = append(seq, b.Elems...)
			}
			for _, e := range b.Elems {
				if !e.IsLoop() {
					continue
				}
				if k, ok := loops[e.Loop]; ok && k != b.Kind {
					counts = true
				}
				loops[e.Loop] = b.Kind
			}
		}
		if counts || s.normal+s.faulty <= small {
			// Pairs say nothing of how often a loop ran; a short change
			// is shown.
			continue
		}
		seq = append(seq, after[0])
		if !usual.walk(seq, func(pair [2]trace.Symbol, _ uint64) bool { return usual.Has(pair[0], pair[1]) }, false) {
			continue
		}
		out = append(out, blocks[from:c.start]...)
		out = append(out, Block{Kind: Common, mark: s})
		from = c.end
	}
	if out == nil {
		return blocks
	}
	return append(out, blocks[from:]...)
}
