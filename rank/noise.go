package rank

import (
	"math"
	"slices"
	"strconv"

	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// Real programs do not repeat themselves exactly: a task farm's workers take
// more or fewer tasks from run to run, a receive from any source hears from
// the ranks in another order, a polling loop spins as long as it has to
// wait. Two things keep such noise out of the ranking:
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
//     another is left out of every run's context. What still differs
//     between the normal runs is each trace's noise floor, its score
//     between the first normal run and another. A trace is a suspect only
//     where its score clearly exceeds its floor (NoiseFactor), and a faulty
//     trace whose NLR equals its NLR in any of the normal runs did nothing
//     new.

// Polling keeps the calls whose repeat counts are waiting, not work.
var Polling = filters.MustParse(`poll+cust=^(?i:mpi_(?:test|testall|testany|testsome|iprobe|improbe))$`)

// NoiseFactor is how far a trace's score must exceed its noise floor for
// the trace to be a suspect: at least NoiseFactor times the floor.
const NoiseFactor = 2

// polling returns, per symbol of the comparison, whether it is a polling
// call, and per loop of n's table whether its body is made only of
// polling calls and such loops. Both are nil with Options.ExactPolling.
func (n *NLR) polling() (syms []bool, loops []bool) {
	if n.c.opts.ExactPolling {
		return nil, nil
	}
	mask := Polling.Compile(n.c.Symbols)
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
	seqs  [][]nlr.Sequence          // per run, per trace (IDs)
	names func(trace.Symbol) string // names the symbols of seqs
	// freeSym and freeLoop mark the symbols and loops of seqs that are
	// polling (see Polling); nil with Options.ExactPolling.
	freeSym, freeLoop []bool
}

// analysis returns the view of n the similarity analysis takes (once; it is
// shared by the analyses of every attribute mode).
//
// Without loops whose counts vary between normal runs it is Seq with the
// comparison's names. With them (NoisyCounts), each trace is folded once
// more, its elements as tokens and those loops' counts left out: a task
// farm's worker whose tasks ran their inner loops 138, 160 and 115 times
// did three alike tasks, which fold into a loop as three alike calls do,
// whichever tasks the worker happened to get.
func (n *NLR) analysis() *view {
	n.viewOnce.Do(func() {
		syms, loops := n.polling()
		v := &view{names: n.Names(), freeSym: syms, freeLoop: loops}
		for r := range n.c.Runs {
			v.seqs = append(v.seqs, n.seqs(r))
		}
		noisy := n.NoisyCounts()
		if noisy != nil {
			if cv, err := n.coarse(v, noisy); err == nil {
				v = cv
			}
		}
		n.view = v
	})
	return n.view
}

// coarse returns v's sequences folded again with the loops noisy names
// taken without their counts (see analysis).
func (n *NLR) coarse(v *view, noisy func(nlr.Element) bool) (*view, error) {
	tokens := map[nlr.Element]trace.Symbol{}
	var elems []nlr.Element
	var inputs []nlr.Input
	for r, seqs := range v.seqs {
		for i, s := range seqs {
			syms := make([]trace.Symbol, len(s))
			for j, e := range s {
				if noisy(e) {
					e.Count = 0
				}
				t, ok := tokens[e]
				if !ok {
					t = trace.Symbol(len(elems))
					tokens[e] = t
					elems = append(elems, e)
				}
				syms[j] = t
			}
			inputs = append(inputs, nlr.Input{Run: r, ID: n.c.IDs[i], Symbols: syms})
		}
	}
	out, table, err := nlr.Recognize(inputs, n.K, n.c.opts.Workers)
	if err != nil {
		return nil, err
	}
	names := n.Names()
	cv := &view{names: func(t trace.Symbol) string {
		e := elems[t]
		if e.IsLoop() && e.Count == 0 {
			return "L" + strconv.Itoa(int(e.Loop)) + "^*"
		}
		return e.Format(names)
	}}
	for r := range v.seqs {
		cv.seqs = append(cv.seqs, out[r*len(n.c.IDs):(r+1)*len(n.c.IDs)])
	}
	if v.freeSym != nil {
		cv.freeSym = make([]bool, len(elems))
		for t, e := range elems {
			cv.freeSym[t] = e.IsLoop() && v.freeLoop[e.Loop] || !e.IsLoop() && v.freeSym[e.Sym]
		}
		cv.freeLoop = freeLoops(table, cv.freeSym)
	}
	return cv, nil
}

// analysisSeqs returns the NLRs of run r as the similarity analysis sees
// them (analysis).
func (n *NLR) analysisSeqs(r int) []nlr.Sequence { return n.analysis().seqs[r] }

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
		runs := make([][]nlr.Sequence, len(normals))
		for j, r := range normals {
			runs[j] = slices.Clone(v.seqs[r])
			for i := range runs[j] {
				if !n.c.Has(r, i) {
					runs[j][i] = nil // not in this run: nothing to compare
				} else if runs[j][i] == nil {
					runs[j][i] = nlr.Sequence{}
				}
			}
		}
		l.Vary(m, runs)
	}
	return l
}

// floors returns, for every object of level l under mode m, its noise
// floor: how much a normal run the analysis has not learnt from still
// differs from the first normal run. For each further normal run e, what
// varies is learnt from the other normal runs (looseFrom), and e's score
// against the first normal run is taken as Scores takes the faulty run's;
// the floor is the highest over e. With two normal runs nothing is learnt
// for the floor, which is then the plain difference between them: a
// trace is a suspect when its change, after learning from both, is at
// least twice what the second normal run showed before any learning.
// Without further normal runs it is all zeros.
func (n *NLR) floors(m fca.Mode, l Level) ([]float64, error) {
	normals := n.c.Normals()
	objs := n.c.Objects(l)
	out := make([]float64, len(objs))
	if len(normals) < 2 || len(objs) < 2 {
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
		jn, je := fca.BitsetJSM(cn), fca.BitsetJSM(ce)
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
	return out, nil
}

// countsOnly reports whether the NLR of id (a thread, or a process: each of
// its threads) differs between the normal and the faulty run only in the
// iteration counts of its loops.
func (n *NLR) countsOnly(id trace.ID) bool {
	differs := false
	for i, t := range n.c.IDs {
		if t != id && !(id.IsProcess() && t.Proc == id.Proc) {
			continue
		}
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

// NoisyCounts returns the loops whose iteration counts vary between the
// normal runs: a loop that some trace runs, at its top level, a different
// number of times in one normal run than in another (nil without further
// normal runs). A diff takes such loops as equal whatever their counts
// (Diff).
func (n *NLR) NoisyCounts() func(nlr.Element) bool {
	normals := n.c.Normals()
	if len(normals) < 2 {
		return nil
	}
	noisy := make([]bool, n.Table.Len())
	any := false
	for i := range n.c.IDs {
		var first map[int32][]int32
		for _, r := range normals {
			if !n.c.Has(r, i) {
				continue
			}
			counts := map[int32][]int32{}
			for _, e := range n.Seq(r, i) {
				if e.IsLoop() {
					counts[e.Loop] = append(counts[e.Loop], e.Count)
				}
			}
			if first == nil {
				first = counts
				continue
			}
			for id, cs := range counts {
				if f, ok := first[id]; ok && !slices.Equal(f, cs) {
					noisy[id], any = true, true
				}
			}
		}
	}
	if !any {
		return nil
	}
	return func(e nlr.Element) bool { return e.IsLoop() && noisy[e.Loop] }
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
