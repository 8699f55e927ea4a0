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

// attributes returns the attribute keys of one NLR sequence under mode m, in
// order of first appearance.
//
// Frequencies: a symbol entry counts its occurrences among the top-level
// entries, a loop entry the sum of its iteration counts; a pair counts how
// many times the two entries appear next to each other. A sequence of one
// entry has no pairs.
func attributes(m Mode, seq nlr.Sequence) []attrKey {
	// One map lookup per entry: the map gives the key's position in keys,
	// freq adds up at that position. Single entries are 8-byte keys, which
	// Go's maps hash fastest.
	var keys []attrKey
	var freq []int64
	if m.Double {
		index := make(map[[2]entry]int32)
		for i := 0; i+1 < len(seq); i++ {
			k := [2]entry{entryOf(seq[i]), entryOf(seq[i+1])}
			at, ok := index[k]
			if !ok {
				at = int32(len(keys))
				index[k] = at
				keys = append(keys, attrKey{a: k[0], b: k[1]})
				freq = append(freq, 0)
			}
			freq[at]++
		}
	} else {
		index := make(map[entry]int32)
		for _, e := range seq {
			k := entryOf(e)
			at, ok := index[k]
			if !ok {
				at = int32(len(keys))
				index[k] = at
				keys = append(keys, attrKey{a: k})
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
