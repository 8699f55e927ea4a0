package compare

import (
	"math"
	"slices"
	"sync"

	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// Real programs do not repeat themselves exactly: a task farm's workers take
// more or fewer tasks from run to run, a receive from any source hears from
// the ranks in another order, a polling loop spins as long as it has to
// wait. Three things keep such noise out of the ranking:
//
//   - Polling counts nothing. A stretch of polling calls (Polling: the poll
//     preset, MPI_Test*, MPI_Iprobe) reads as the polling calls it made,
//     once each (nlr's Discoverer.QuietPolling), and neither they nor loops
//     made only of them carry a frequency in any attribute: how long a
//     thread waited is not what it did. Options.ExactPolling keeps them.
//   - Further normal runs (Open's runs after the faulty one) show what
//     varies by itself (fca.Loose): an attribute whose frequency differs
//     between the normal runs for some trace carries no frequency in any
//     run, and one that some trace has in one normal run and not in
//     another is left out of every run's context. With three normal runs
//     or more, what a normal run still differs by after learning from the
//     others is each trace's noise floor (NLR.Floors); a trace is a suspect
//     only where it did something no normal run did, or, when no trace
//     did and under attributes without frequencies, where its score
//     clearly exceeds its floor (rank.NoiseFactor). A
//     faulty trace whose NLR equals its NLR in any of the normal runs did
//     nothing new.
//   - Folding that depends on chance is undone (shaper): loops folded from
//     another point of the same cycle, loops that folded only because a
//     count that varies repeated, a varying loop's body met once.

// Polling keeps the calls whose repeat counts are waiting, not work (made
// when first asked for, not when the program starts).
var Polling = sync.OnceValue(func() *filters.Filter {
	return filters.MustParse(`poll+cust=^(?i:mpi_(?:test|testall|testany|testsome|iprobe|improbe))$`)
})

// polling returns, per symbol of the comparison, whether it is a polling
// call, and per loop of n's table whether its body is made only of
// polling calls and such loops. Both are nil with Options.ExactPolling.
func (n *NLR) polling() (syms []bool, loops []bool) {
	if n.c.opts.ExactPolling {
		return nil, nil
	}
	mask := Polling().Compile(n.c.Symbols)
	syms = make([]bool, n.c.Symbols.Len())
	any := false
	for s := range syms {
		syms[s] = mask.Keep(trace.Symbol(s))
		any = any || syms[s]
	}
	if !any {
		return nil, nil
	}
	return syms, freeLoops(n.Table, syms)
}

// freeLoops returns, per loop of t, whether its body is made only of the
// symbols free names and of such loops.
func freeLoops(t *nlr.Table, free []bool) []bool {
	loops := make([]bool, t.Len())
	state := make([]int8, t.Len()) // 0 unknown, 1 in progress or done
	var isFree func(id int32) bool
	isFree = func(id int32) bool {
		if state[id] != 0 {
			return loops[id]
		}
		state[id] = 1
		ok := true
		for _, e := range t.Body(id) {
			if e.IsLoop() && !isFree(e.Loop) || !e.IsLoop() && !free[e.Sym] {
				ok = false
				break
			}
		}
		loops[id] = ok
		return ok
	}
	for id := range loops {
		isFree(int32(id))
	}
	return loops
}

// view is the NLRs of every run as the similarity analysis sees them, and
// what it takes loosely there.
type view struct {
	n *NLR
	// shaped holds, per run and trace (IDs), the NLRs as the shaper sees
	// them; nil without a shaper, when the view reads n.Seq (at).
	shaped [][]nlr.Sequence
	names  func(trace.Symbol) string // names the symbols of the NLRs
	// freeSym and freeLoop mark the symbols and loops of seqs that are
	// polling (see Polling); nil with Options.ExactPolling.
	freeSym, freeLoop []bool
	// shaper is what made seqs, nil when the normal runs do not vary.
	shaper *shaper
}

// analysis returns the view of n the similarity analysis takes (once; it is
// shared by the analyses of every attribute mode): Seq, with the
// comparison's names, and, when loop counts vary between the normal runs,
// as the shaper sees it.
func (n *NLR) analysis() *view {
	n.viewOnce.Do(func() {
		syms, loops := n.polling()
		v := &view{n: n, names: n.Names(), freeSym: syms, freeLoop: loops}
		sh := n.shaper()
		v.shaper = sh
		if sh != nil {
			for r := range n.c.Runs {
				seqs := make([]nlr.Sequence, len(n.c.IDs))
				for i := range seqs {
					if s := n.Seq(r, i); s != nil {
						seqs[i] = sh.view(s)
					}
				}
				v.shaped = append(v.shaped, seqs)
			}
		}
		n.view = v
	})
	return n.view
}

// at returns the NLR of trace IDs[i] in run r as the view sees it.
func (v *view) at(r, i int) nlr.Sequence {
	if v.shaped != nil {
		return v.shaped[r][i]
	}
	return v.n.Seq(r, i)
}

// atInto is at for a reader done with the result before it asks again:
// an NLR not in the store's cache is expanded into buf (seqStore.getInto),
// and the buffer to pass next time is returned.
func (v *view) atInto(r, i int, buf nlr.Sequence) (seq, next nlr.Sequence) {
	if v.shaped != nil {
		return v.shaped[r][i], buf
	}
	return v.n.seqs.getInto(v.n.seqIndex(r, i), buf)
}

// name names at(r, i) for fca.NewLooseContextFunc: traces whose NLRs are
// the same stored one have the same name; -1 when the view does not know
// (the shaper's NLRs, a trace the run lacks).
func (v *view) name(r, i int) int {
	if v.shaped != nil {
		return -1
	}
	return int(v.n.seqIndex(r, i))
}

// loose returns the attributes whose frequency the analysis under mode m
// ignores, or that it leaves out: the frequencies of polling calls and
// loops, and what varies between the normal runs (fca.Loose.Vary).
func (n *NLR) loose(m fca.Mode) *fca.Loose { return n.looseFrom(m, n.c.Normals()) }

// looseFrom is loose learning what varies from the normal runs normals
// only.
func (n *NLR) looseFrom(m fca.Mode, normals []int) *fca.Loose {
	l := &fca.Loose{}
	v := n.analysis()
	for s, ok := range v.freeSym {
		if ok {
			l.FreeSymbol(trace.Symbol(s))
		}
	}
	for id, ok := range v.freeLoop {
		if ok {
			l.FreeLoop(int32(id))
		}
	}
	if len(normals) > 1 {
		l.VaryFunc(m, len(normals), len(n.c.IDs), func(j, i int) nlr.Sequence {
			r := normals[j]
			if !n.c.Has(r, i) {
				return nil // not in this run: nothing to compare
			}
			if s := v.at(r, i); s != nil {
				return s
			}
			return nlr.Sequence{}
		})
	}
	return l
}

// Floors returns, for every object of level l under mode m, its noise
// floor: how much a normal run the analysis has not learnt from still
// differs from the first normal run. For each further normal run e, what
// varies is learnt from the other normal runs (looseFrom), and e's score
// against the first normal run is taken as Scores takes the faulty run's;
// the floor is the highest over e, and at thread level the highest of the
// process's threads. It needs three normal runs or more:
// with two, everything that differs between them is taken loosely, no run
// is left to measure what noise remains, and the floor is 0 (as without
// further normal runs).
func (n *NLR) Floors(m fca.Mode, l Level) ([]float64, error) {
	normals := n.c.Normals()
	objs := n.c.Objects(l)
	out := make([]float64, len(objs))
	if len(normals) < 3 || len(objs) < 2 {
		return out, nil
	}
	for _, e := range normals[1:] {
		var rest []int
		for _, r := range normals {
			if r != e {
				rest = append(rest, r)
			}
		}
		loose := n.looseFrom(m, rest)
		cn, err := n.context(Normal, m, l, loose)
		if err != nil {
			return nil, err
		}
		ce, err := n.context(e, m, l, loose)
		if err != nil {
			return nil, err
		}
		jn, je := JSMOf(cn), JSMOf(ce)
		for a := range objs {
			sum := 0.0
			for b := range objs {
				if b != a {
					sum += math.Abs(je.At(a, b) - jn.At(a, b))
				}
			}
			out[a] = max(out[a], math.Round(sum/float64(len(objs)-1)*scoreScale)/scoreScale)
		}
	}
	// The threads of one process that share out work (an OpenMP team)
	// vary alike: each thread's floor is its team's highest. A few normal
	// runs show some of a team's variation in one thread, some in another.
	if l == Threads {
		team := map[trace.ID]float64{}
		for a, id := range objs {
			team[id.Process()] = max(team[id.Process()], out[a])
		}
		for a, id := range objs {
			out[a] = team[id.Process()]
		}
	}
	return out, nil
}

// CountsOnly reports whether the NLR of id (a thread, or a process: each of
// its threads) differs between the normal and the faulty run only in the
// iteration counts of its loops.
func (n *NLR) CountsOnly(id trace.ID) bool {
	differs := false
	for _, i := range n.c.IndexesOf(id) {
		a, b := n.Seq(Normal, i), n.Seq(Faulty, i)
		if a.Equal(b) {
			continue
		}
		if len(a) != len(b) {
			return false
		}
		for j := range a {
			if a[j].Loop != b[j].Loop || !a[j].IsLoop() && a[j].Sym != b[j].Sym {
				return false
			}
		}
		differs = true
	}
	return differs
}

// noise is what the normal runs show of the program's own variation under
// one filter and K, found once (NLR.noise).
type noise struct {
	varies bool   // some trace's NLR is not the same in all normal runs
	loops  []bool // loops some trace runs, at its top level, a different number of times
}

// NormalsVary reports whether some trace's NLR is not the same in all
// normal runs of the comparison (false with one normal run).
func (n *NLR) NormalsVary() bool { return n.noise().varies }

// noise compares the normal runs, once.
func (n *NLR) noise() *noise {
	n.noiseOnce.Do(func() {
		nz := &noise{}
		n.noiseOf = nz
		normals := n.c.Normals()
		if len(normals) < 2 {
			return
		}
		loops := make([]bool, n.Table.Len())
		anyLoop := false
		for i := range n.c.IDs {
			var first nlr.Sequence
			var firstCounts map[int32][]int32
			for _, r := range normals {
				if !n.c.Has(r, i) {
					continue
				}
				s := n.Seq(r, i)
				counts := map[int32][]int32{}
				for _, e := range s {
					if e.IsLoop() {
						counts[e.Loop] = append(counts[e.Loop], e.Count)
					}
				}
				if firstCounts == nil {
					first, firstCounts = s, counts
					continue
				}
				if !s.Equal(first) {
					nz.varies = true
				}
				for id, cs := range counts {
					if f, ok := firstCounts[id]; ok && !slices.Equal(f, cs) {
						loops[id], anyLoop = true, true
					}
				}
			}
		}
		if anyLoop {
			nz.loops = loops
		}
	})
	return n.noiseOf
}

// NoisyCounts returns the loops whose iteration counts vary between the
// normal runs: a loop that some trace runs, at its top level, a different
// number of times in one normal run than in another (nil without further
// normal runs, or when no count varies). A diff takes such loops as equal
// whatever their counts (Diff).
func (n *NLR) NoisyCounts() func(nlr.Element) bool {
	loops := n.noise().loops
	if loops == nil {
		return nil
	}
	return func(e nlr.Element) bool { return e.IsLoop() && loops[e.Loop] }
}

// Diff returns the diffNLR of trace IDs[i] between the normal and the
// faulty run (Seq), loops whose counts vary between normal runs taken as
// equal whatever their counts (NoisyCounts, diffnlr.DiffLoose); and the
// normal sequence with those loops' counts set to the faulty run's where
// the diff aligns them, so that diffnlr.FirstDifference of it and the
// faulty sequence finds the first difference that is not noise, counted
// in the faulty run's calls.
func (n *NLR) Diff(i int) ([]diffnlr.Block, nlr.Sequence, error) {
	ns, fs := n.Seq(Normal, i), n.Seq(Faulty, i)
	loose := n.NoisyCounts()
	blocks, err := diffnlr.DiffLoose(ns, fs, loose)
	if err != nil || loose == nil {
		return blocks, ns, err
	}
	aligned := make(nlr.Sequence, 0, len(ns))
	j := 0 // next element of fs
	for _, b := range blocks {
		switch b.Kind {
		case diffnlr.Common:
			aligned = append(aligned, fs[j:j+len(b.Elems)]...)
			j += len(b.Elems)
		case diffnlr.NormalOnly:
			aligned = append(aligned, b.Elems...)
		case diffnlr.FaultyOnly:
			j += len(b.Elems)
		}
	}
	return blocks, aligned, nil
}

// Novel returns, for every object, whether its faulty attribute set holds
// an entry or pair that no object has in any of the normal runs, whatever
// its frequency: something the program never did when it worked. (A count
// alone is not new: in a program that varies by itself, counts vary more
// than two runs show.)
func (s *Similarity) Novel(normals []int) []bool {
	// The objects of a class share their attributes: each class is
	// looked at once, through its first object.
	known := map[string]bool{}
	for _, r := range normals {
		c := s.Ctx[r]
		for k := range c.NumClasses() {
			for _, a := range c.Attrs(c.Members(k)[0]) {
				known[c.AttrEntry(a)] = true
			}
		}
	}
	c := s.Ctx[Faulty]
	novel := make([]bool, c.NumClasses())
	for k := range novel {
		for _, a := range c.Attrs(c.Members(k)[0]) {
			if !known[c.AttrEntry(a)] {
				novel[k] = true
				break
			}
		}
	}
	out := make([]bool, c.Len())
	for o := range out {
		out[o] = novel[c.Class(o)]
	}
	return out
}

// NormalCall returns, for the k-th call (from 0) of the normal sequence
// Diff aligned to the faulty one for trace IDs[i] (blocks is that diff),
// the same call's place in the normal run's own calls: where it stands
// once the loops whose counts vary have their own counts again. Without
// such loops it is k.
func (n *NLR) NormalCall(i int, blocks []diffnlr.Block, k uint64) uint64 {
	if n.NoisyCounts() == nil {
		return k
	}
	fs := n.Seq(Faulty, i)
	var a, r uint64 // calls before, in the aligned and in the real normal sequence
	j := 0          // next element of fs
	for _, b := range blocks {
		for x, e := range b.Elems {
			var sa, sr uint64
			switch b.Kind {
			case diffnlr.Common:
				sa, sr = n.Table.Calls(fs[j+x:j+x+1]), n.Table.Calls(nlr.Sequence{e})
			case diffnlr.NormalOnly:
				sa = n.Table.Calls(nlr.Sequence{e})
				sr = sa
			}
			if b.Kind != diffnlr.FaultyOnly && a+sa > k {
				return r + min(k-a, sr)
			}
			a, r = a+sa, r+sr
		}
		if b.Kind != diffnlr.NormalOnly {
			j += len(b.Elems)
		}
	}
	return r + (k - a)
}

// UsualPairs returns, when the normal runs differ among themselves, the
// call pairs of every trace of every normal run (diffnlr.Pairs); else nil.
func (n *NLR) UsualPairs() *diffnlr.Pairs {
	if !n.noise().varies {
		return nil
	}
	n.pairsOnce.Do(func() {
		n.pairs = diffnlr.NewPairs(n.Table)
		for _, r := range n.c.Normals() {
			for j := range n.c.IDs {
				if n.c.Has(r, j) {
					n.pairs.Add(n.Seq(r, j))
				}
			}
		}
	})
	return n.pairs
}

// NewPair returns, when the normal runs differ among themselves, the first
// pair of calls trace IDs[i] makes in the faulty run that no trace makes in
// any normal run (diffnlr.FirstNewPair): where a program that varies by
// itself did something it never does. Its Call counts the recorded calls;
// at is the same call's index in Seq(Faulty, i), which differs where
// run-wide changes were undone. ok is false without further normal runs,
// when they do not differ, or when there is no such pair.
func (n *NLR) NewPair(i int) (np diffnlr.NewPair, at uint64, ok bool) {
	if !n.c.Has(Faulty, i) || n.UsualPairs() == nil {
		return np, 0, false
	}
	np, ok = diffnlr.FirstNewPair(n.pairs, n.Seq(Faulty, i))
	at = np.Call
	if ok && n.Patched(i) {
		np.Call, ok = n.pairs.Find(n.Recorded(Faulty, i), np.Prev, np.Next)
	}
	return np, at, ok
}

// Unordered returns the calls of the first swap (two stretches of calls
// that the normal runs make in either order) that holds every one of
// calls, the calls of its two stretches in the order the analysis reads
// them; ok is false when no swap holds them all, or calls is empty.
func (n *NLR) Unordered(calls []trace.Symbol) (x, y []trace.Symbol, ok bool) {
	sh := n.analysis().shaper
	if sh == nil || len(calls) == 0 {
		return nil, nil, false
	}
	for _, sw := range sh.swaps {
		x, _ = n.Table.Expand(nil, sw.x)
		y, _ = n.Table.Expand(nil, sw.y)
		in := map[trace.Symbol]bool{}
		for _, c := range append(slices.Clone(x), y...) {
			in[c] = true
		}
		all := true
		for _, c := range calls {
			all = all && in[c]
		}
		if all {
			return x, y, true
		}
	}
	return nil, nil, false
}
