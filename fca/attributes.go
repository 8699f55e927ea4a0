package fca

import (
	"fmt"
	"strconv"

	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// entry identifies a top-level NLR entry for attribute purposes: a symbol, or
// a loop by its ID alone (L0^2 and L0^4 are the same entry, seeds/002
// Table 3.4).
type entry struct {
	loop int32 // nlr.NoLoop for a symbol
	sym  trace.Symbol
}

func entryOf(e nlr.Element) entry {
	if e.IsLoop() {
		return entry{loop: e.Loop}
	}
	return entry{loop: nlr.NoLoop, sym: e.Sym}
}

// attrKey identifies an attribute within one Context: an entry (single) or a
// pair of consecutive entries (double), with its frequency value when the
// mode carries one.
type attrKey struct {
	a, b entry // b is unused for single attributes
	freq int64 // frequency, its ⌊log10⌋, or 0 for NoFreq
}

// entryTable finds the distinct entries (or pairs) of a sequence: a hash
// table of their first positions, kept for the next sequence so that
// building a context of many traces allocates it once. An entry is one
// 64-bit word (loop ID, symbol), hashed by multiplication; Go's maps took
// most of a context's time.
type entryTable struct {
	slot  []int32 // 1 + the key's index in keys; 0 is empty
	words [][2]uint64
}

func entryWord(e nlr.Element) uint64 {
	k := entryOf(e)
	return uint64(uint32(k.loop))<<32 | uint64(uint32(k.sym))
}

// find returns the index of key w among those added since reset, adding it
// as number next if it is new (and then added is true).
func (t *entryTable) find(w [2]uint64, next int) (int, bool) {
	mask := len(t.slot) - 1
	h := (w[0]*0x9e3779b97f4a7c15 ^ w[1]*0xc2b2ae3d27d4eb4f) >> 17
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := t.slot[i]
		if s == 0 {
			t.slot[i] = int32(next + 1)
			t.words = append(t.words, w)
			return next, true
		}
		if t.words[s-1] == w {
			return int(s - 1), false
		}
	}
}

// reset empties the table for up to n keys.
func (t *entryTable) reset(n int) {
	size := 16
	for size < 2*n {
		size *= 2
	}
	if cap(t.slot) < size {
		t.slot = make([]int32, size)
	}
	t.slot = t.slot[:size]
	clear(t.slot)
	t.words = t.words[:0]
}

// attributes returns the attribute keys of one NLR sequence under mode m, in
// order of first appearance.
//
// Frequencies: a symbol entry counts its occurrences among the top-level
// entries, a loop entry the sum of its iteration counts; a pair counts how
// many times the two entries appear next to each other. A sequence of one
// entry has no pairs.
func (t *entryTable) attributes(m Mode, seq nlr.Sequence) []attrKey {
	var keys []attrKey
	var freq []int64
	if m.Double {
		if len(seq) > 1 {
			t.reset(len(seq) - 1)
		}
		for i := 0; i+1 < len(seq); i++ {
			at, added := t.find([2]uint64{entryWord(seq[i]), entryWord(seq[i+1])}, len(keys))
			if added {
				keys = append(keys, attrKey{a: entryOf(seq[i]), b: entryOf(seq[i+1])})
				freq = append(freq, 0)
			}
			freq[at]++
		}
	} else {
		t.reset(len(seq))
		for _, e := range seq {
			at, added := t.find([2]uint64{entryWord(e)}, len(keys))
			if added {
				keys = append(keys, attrKey{a: entryOf(e)})
				freq = append(freq, 0)
			}
			n := int64(1)
			if e.IsLoop() {
				n = int64(e.Count)
			}
			freq[at] += n
		}
	}
	for i := range keys {
		switch m.Freq {
		case Actual:
			keys[i].freq = freq[i]
		case Log10:
			keys[i].freq = floorLog10(freq[i])
		}
	}
	return keys
}

// floorLog10 returns ⌊log10 n⌋ for n ≥ 1 (and 0 below), in integers so that
// 1000 gives exactly 3.
func floorLog10(n int64) int64 {
	d := int64(0)
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}

// checkSequence reports the first element of seq that cannot be an NLR entry.
func checkSequence(id trace.ID, seq nlr.Sequence) error {
	for i, e := range seq {
		switch {
		case e.Loop < nlr.NoLoop:
			return fmt.Errorf("trace %v: NLR entry %d has loop ID %d; loop IDs are ≥ 0 (or NoLoop for a symbol): the NLR stage produced a bad sequence", id, i, e.Loop)
		case e.IsLoop() && e.Count < 1:
			return fmt.Errorf("trace %v: NLR entry %d is loop L%d with %d iterations; a loop iterates at least once: the NLR stage produced a bad sequence", id, i, e.Loop, e.Count)
		}
	}
	return nil
}

// name returns the display name of k under mode m: "MPI_Init", "L0:4",
// "(MPI_Comm_size, L0):1". A symbol without a name is shown by number, "#7".
func (k attrKey) name(m Mode, sym func(trace.Symbol) string) string {
	en := func(e entry) string {
		if e.loop != nlr.NoLoop {
			return "L" + strconv.Itoa(int(e.loop))
		}
		if sym != nil {
			if n := sym(e.sym); n != "" {
				return n
			}
		}
		return "#" + strconv.Itoa(int(e.sym))
	}
	s := en(k.a)
	if m.Double {
		s = "(" + s + ", " + en(k.b) + ")"
	}
	switch {
	case m.Freq == NoFreq:
	case k.freq == looseFreq:
		s += ":*"
	default:
		s += ":" + strconv.FormatInt(k.freq, 10)
	}
	return s
}
