package diffnlr

import (
	"fmt"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/difftrace/difftrace/nlr"
)

// Kind says which run a Block belongs to.
type Kind uint8

const (
	Common     Kind = iota // in both runs
	NormalOnly             // only in the normal run
	FaultyOnly             // only in the faulty run
)

func (k Kind) String() string {
	switch k {
	case Common:
		return "common"
	case NormalOnly:
		return "normal-only"
	case FaultyOnly:
		return "faulty-only"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Block is a maximal run of consecutive elements of one Kind.
type Block struct {
	Kind  Kind
	Elems nlr.Sequence

	// mark, in an abridged diff, is what an empty Common block stands for
	// (usualChanges).
	mark *skipped
	// at, in an abridged diff, is where the block's first element stands
	// in the normal and in the faulty sequence (placed).
	at [2]int
}

// MaxDistinct is the largest number of distinct elements Diff can handle:
// each distinct element becomes one Unicode scalar value (the surrogates
// U+D800–U+DFFF are skipped because a Go string cannot hold them).
const MaxDistinct = utf8.MaxRune + 1 - (0xE000 - 0xD800)

// Diff aligns the NLR of a trace in the normal run against the same trace in
// the faulty run with Myers' algorithm as go-diff implements it, one token
// per element, and returns the blocks in order. Two elements are equal when
// they are the same symbol, or the same loop with the same count: L1^16 and
// L1^7 differ. Between two common blocks the normal-only block, if any, comes
// before the faulty-only block. The diff is minimal and deterministic: no
// time limit cuts it short, so its cost is O((N+M)·D) for N and M elements
// and D differences.
//
// The only error is a pair of sequences with more than MaxDistinct distinct
// elements between them.
func Diff(normal, faulty nlr.Sequence) ([]Block, error) {
	return DiffLoose(normal, faulty, nil)
}

// DiffLoose is Diff with the loops that loose is true of taken as equal
// whatever their counts: L3^115 and L3^64 align as one common element
// (a Common block holds the normal run's). It is for loops whose counts
// vary between normal runs of the program by themselves. A nil loose is
// Diff.
func DiffLoose(normal, faulty nlr.Sequence, loose func(nlr.Element) bool) ([]Block, error) {
	// Map each distinct element to a rune, diff the rune strings, and walk
	// the result back over the sequences by position.
	runes := make(map[nlr.Element]rune)
	encode := func(s nlr.Sequence) ([]rune, error) {
		out := make([]rune, len(s))
		for i, e := range s {
			if loose != nil && e.IsLoop() && loose(e) {
				e.Count = 0
			}
			r, ok := runes[e]
			if !ok {
				n := len(runes)
				if n >= MaxDistinct {
					return nil, fmt.Errorf("diffnlr: more than %d distinct NLR elements in the two traces; raise the NLR constant K or filter more calls", MaxDistinct)
				}
				r = rune(n)
				if r >= 0xD800 {
					r += 0xE000 - 0xD800
				}
				runes[e] = r
			}
			out[i] = r
		}
		return out, nil
	}
	a, err := encode(normal)
	if err != nil {
		return nil, err
	}
	b, err := encode(faulty)
	if err != nil {
		return nil, err
	}

	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0 // no deadline: the same minimal diff every time
	diffs := dmp.DiffMainRunes(a, b, false)

	var blocks []Block
	add := func(k Kind, elems nlr.Sequence) {
		if len(elems) == 0 {
			return
		}
		if n := len(blocks); n > 0 && blocks[n-1].Kind == k {
			blocks[n-1].Elems = append(blocks[n-1].Elems, elems...)
			return
		}
		blocks = append(blocks, Block{Kind: k, Elems: append(nlr.Sequence(nil), elems...)})
	}
	var i, j int        // next unconsumed element of normal and faulty
	var del, ins [2]int // pending normal-only and faulty-only ranges
	flush := func() {
		add(NormalOnly, normal[del[0]:del[1]])
		add(FaultyOnly, faulty[ins[0]:ins[1]])
		del = [2]int{i, i}
		ins = [2]int{j, j}
	}
	flush()
	for _, d := range diffs {
		n := utf8.RuneCountInString(d.Text)
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			flush()
			if i+n > len(normal) || j+n > len(faulty) {
				return nil, errInternal
			}
			add(Common, normal[i:i+n])
			i += n
			j += n
			del = [2]int{i, i}
			ins = [2]int{j, j}
		case diffmatchpatch.DiffDelete:
			if del[1] != i || i+n > len(normal) {
				return nil, errInternal
			}
			i += n
			del[1] = i
		case diffmatchpatch.DiffInsert:
			if ins[1] != j || j+n > len(faulty) {
				return nil, errInternal
			}
			j += n
			ins[1] = j
		}
	}
	flush()
	if i != len(normal) || j != len(faulty) {
		return nil, errInternal
	}
	return blocks, nil
}

var errInternal = fmt.Errorf("diffnlr: the diff does not cover both sequences (internal error)")
