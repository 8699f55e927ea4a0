package rank

import (
	"math"
	"slices"

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
	loops = make([]bool, n.Table.Len())
	state := make([]int8, n.Table.Len()) // 0 unknown, 1 in progress or done
	var free func(id int32) bool
	free = func(id int32) bool {
		if state[id] != 0 {
			return loops[id]
		}
		state[id] = 1
		ok := true
		for _, e := range n.Table.Body(id) {
			if e.IsLoop() && !free(e.Loop) || !e.IsLoop() && !syms[e.Sym] {
				ok = false
				break
			}
		}
		loops[id] = ok
		return ok
	}
	for id := range loops {
		free(int32(id))
	}
	return syms, loops
}

// analysisSeqs returns the NLRs of run r as the similarity analysis sees
// them (Seq).
func (n *NLR) analysisSeqs(r int) []nlr.Sequence { return n.seqs(r) }

// loose returns the attributes whose frequency the analysis under mode m
// ignores: those of polling calls and loops, and those whose frequency
// differs between the normal runs for some trace.
func (n *NLR) loose(m fca.Mode) *fca.Loose {
	l := &fca.Loose{}
	syms, loops := n.polling()
	for s, ok := range syms {
		if ok {
			l.FreeSymbol(trace.Symbol(s))
		}
	}
	for id, ok := range loops {
		if ok {
			l.FreeLoop(int32(id))
		}
	}
	if normals := n.c.Normals(); len(normals) > 1 {
		runs := make([][]nlr.Sequence, len(normals))
		for j, r := range normals {
			runs[j] = slices.Clone(n.analysisSeqs(r))
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

// Floors returns, for every object, its noise floor: the highest score
// (see Scores) it has between the first normal run and any further normal
// run, rounded like scores. Without further normal runs it is all zeros.
func (s *Similarity) Floors(normals []int) []float64 {
	n := len(s.IDs)
	out := make([]float64, n)
	if n < 2 {
		return out
	}
	for _, r := range normals[1:] {
		for a := range n {
			sum := 0.0
			for b := range n {
				if b != a {
					sum += math.Abs(s.JSM[r].At(a, b) - s.JSM[Normal].At(a, b))
				}
			}
			out[a] = max(out[a], math.Round(sum/float64(n-1)*scoreScale)/scoreScale)
		}
	}
	return out
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
