package fca

import (
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// Loose says which attributes a context takes loosely. Real programs repeat
// and order some things differently from run to run with no bug at all — a
// worker of a task farm takes more or fewer tasks, of other sizes; a
// polling loop spins longer — and attributes that carry such variation
// would make every normal run look changed. A loose attribute either
// carries no frequency (it reads as under NoFreq, "L3:*" instead of
// "L3:41", whatever the mode) or, when even its presence varies, is left
// out of the context.
//
// The zero Loose takes nothing loosely. Entries are symbols or loops as in
// attributes: a loop by its ID, whatever its count.
type Loose struct {
	single map[entry]looseness
	pair   map[[2]entry]looseness
	// freeSym and freeLoop mark entries whose frequency is ignored in
	// every attribute they are part of (polling calls and loops).
	freeSym  map[trace.Symbol]bool
	freeLoop map[int32]bool
}

type looseness uint8

const (
	freeCount looseness = 1 << iota // the frequency varies
	noisy                           // the attribute itself comes and goes
)

// FreeSymbol makes every attribute of symbol s carry no frequency, alone or
// in a pair.
func (l *Loose) FreeSymbol(s trace.Symbol) {
	if l.freeSym == nil {
		l.freeSym = map[trace.Symbol]bool{}
	}
	l.freeSym[s] = true
}

// FreeLoop makes every attribute of loop id carry no frequency, alone or in
// a pair.
func (l *Loose) FreeLoop(id int32) {
	if l.freeLoop == nil {
		l.freeLoop = map[int32]bool{}
	}
	l.freeLoop[id] = true
}

// Counts returns how many attributes Vary found with a varying frequency,
// and how many that come and go.
func (l *Loose) Counts() (freq, noise int) {
	for _, v := range l.single {
		freq, noise = freq+int(v&freeCount), noise+int(v&noisy)>>1
	}
	for _, v := range l.pair {
		freq, noise = freq+int(v&freeCount), noise+int(v&noisy)>>1
	}
	return freq, noise
}

func (l *Loose) free(e entry) bool {
	if e.loop == nlr.NoLoop {
		return l.freeSym[e.sym]
	}
	return l.freeLoop[e.loop]
}

// looseFreq is the frequency of a loose attribute's key: no real
// frequency (counts are at least 1, their ⌊log10⌋ at least 0).
const looseFreq = -1

// of returns how loosely key k (its frequency aside) is taken under mode m.
func (l *Loose) of(m Mode, k attrKey) looseness {
	if l == nil {
		return 0
	}
	var v looseness
	if m.Double {
		v = l.pair[[2]entry{k.a, k.b}]
	} else {
		v = l.single[k.a]
	}
	if l.free(k.a) || m.Double && l.free(k.b) {
		v |= freeCount
	}
	return v
}

// Vary adds to l what varies between runs of the same traces under mode m:
// runs[r][i] is trace i's NLR in run r, with the same traces in every run
// (a trace a run lacks has a nil sequence and is skipped). An attribute that
// a trace has in two runs with different frequencies carries no frequency;
// one that a trace has in one run and not in another is left out of every
// context. Both hold for every trace, since an attribute means the same in
// all of them.
func (l *Loose) Vary(m Mode, runs [][]nlr.Sequence) {
	if len(runs) == 0 {
		return
	}
	l.VaryFunc(m, len(runs), len(runs[0]), func(r, i int) nlr.Sequence {
		if i >= len(runs[r]) {
			return nil
		}
		return runs[r][i]
	})
}

// VaryFunc is Vary for sequences made when needed: seq(r, i) is trace i's
// NLR in run r (nil when the run lacks it), for n runs of traces traces,
// asked trace by trace, so that only one trace's sequences need be in
// memory at a time.
func (l *Loose) VaryFunc(m Mode, n, traces int, seq func(r, i int) nlr.Sequence) {
	if n < 2 {
		return
	}
	var table entryTable
	for i := range traces {
		seen := map[attrKey]int64{}
		count := map[attrKey]int{}
		present := 0
		for r := range n {
			s := seq(r, i)
			if s == nil {
				continue
			}
			present++
			for _, k := range table.attributes(m, s) {
				f := k.freq
				k.freq = 0
				count[k]++
				if g, ok := seen[k]; !ok {
					seen[k] = f
				} else if g != f && m.Freq != NoFreq {
					l.add(m, k, freeCount)
				}
			}
		}
		for k, n := range count {
			if n < present {
				l.add(m, k, noisy)
			}
		}
	}
}

func (l *Loose) add(m Mode, k attrKey, v looseness) {
	if m.Double {
		if l.pair == nil {
			l.pair = map[[2]entry]looseness{}
		}
		l.pair[[2]entry{k.a, k.b}] |= v
		return
	}
	if l.single == nil {
		l.single = map[entry]looseness{}
	}
	l.single[k.a] |= v
}
