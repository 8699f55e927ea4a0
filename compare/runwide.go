package compare

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// Change is one stretch of a trace's diffNLR: what the normal run did there
// (Normal) and what the faulty run did instead (Faulty); either may be
// empty.
type Change struct {
	Normal nlr.Sequence
	Faulty nlr.Sequence
}

// Format writes the change as "- A, B + C, [D]^4", loops written out
// (nlr.Table.Inline), with name naming symbols.
func (ch Change) Format(t *nlr.Table, name func(trace.Symbol) string) string {
	var parts []string
	if len(ch.Normal) > 0 {
		parts = append(parts, "- "+t.Inline(ch.Normal, name))
	}
	if len(ch.Faulty) > 0 {
		parts = append(parts, "+ "+t.Inline(ch.Faulty, name))
	}
	return strings.Join(parts, " ")
}

// key identifies a change across traces: the loop table is shared, so equal
// keys are equal changes.
func (ch Change) key() string {
	var b strings.Builder
	for _, s := range [2]nlr.Sequence{ch.Normal, ch.Faulty} {
		for _, e := range s {
			if e.IsLoop() {
				b.WriteString("L" + strconv.Itoa(int(e.Loop)) + "^" + strconv.Itoa(int(e.Count)))
			} else {
				b.WriteString(strconv.FormatUint(uint64(e.Sym), 10))
			}
			b.WriteByte(',')
		}
		b.WriteByte('|')
	}
	return b.String()
}

// stretch is a stretch of a diff: common to both runs (common set, the
// elements in Normal), or a change.
type stretch struct {
	common bool
	Change
}

// stretches splits a diff into its common stretches and its changes, in
// order.
func stretches(blocks []diffnlr.Block) []stretch {
	var out []stretch
	for _, b := range blocks {
		if b.Kind == diffnlr.Common {
			out = append(out, stretch{common: true, Change: Change{Normal: b.Elems}})
			continue
		}
		if len(out) == 0 || out[len(out)-1].common {
			out = append(out, stretch{})
		}
		ch := &out[len(out)-1].Change
		if b.Kind == diffnlr.NormalOnly {
			ch.Normal = append(ch.Normal, b.Elems...)
		} else {
			ch.Faulty = append(ch.Faulty, b.Elems...)
		}
	}
	return out
}

// findRunWide finds the changes that every process of the comparison (at
// least two, each in both runs) shows in one of its threads alike, such as
// a different command line that every rank parses, or a bug that acts on
// every rank the same way. Such a change points at no trace: the analysis
// sees the faulty traces with it undone (Seq), and it is reported once
// (RunWide).
func (n *NLR) findRunWide() error {
	c := n.c
	if len(c.Runs) < 2 {
		return nil
	}
	_, of := c.objectsOf(Processes)
	inBoth := map[int]bool{}
	for i := range c.IDs {
		if c.Has(Normal, i) && c.Has(Faulty, i) {
			inBoth[of[i]] = true
		}
	}
	if len(inBoth) < 2 {
		return n.findArgumentParsing(inBoth)
	}
	type found struct {
		change Change
		procs  map[int]bool
	}
	hung := false
	if bad, _ := BadEnding(c.Runs[Faulty]); bad != "" {
		hung = true
	}
	byKey := map[string]*found{}
	var order []string
	diffs := make([][]stretch, len(c.IDs))
	for i := range c.IDs {
		ns, fs := n.Recorded(Normal, i), n.Recorded(Faulty, i)
		if !inBoth[of[i]] || ns.Equal(fs) {
			continue
		}
		blocks, err := diffnlr.Diff(ns, fs)
		if err != nil {
			return err
		}
		diffs[i] = stretches(blocks)
		for j, st := range diffs[i] {
			if st.common {
				continue
			}
			if hung && (n.Table.Calls(st.Normal) > n.Table.Calls(st.Faulty) || j == len(diffs[i])-1 && len(st.Normal) > 0) {
				// In a run that hung, calls lost: every rank stopping in
				// the same step (its steps after, read as missing
				// wherever the diff aligns them) is the hang, not a
				// change of the command line, which adds calls; and so
				// is the normal run's end the faulty one never reached,
				// whatever the diff aligns with it.
				continue
			}
			k := st.key()
			f := byKey[k]
			if f == nil {
				f = &found{change: st.Change, procs: map[int]bool{}}
				byKey[k] = f
				order = append(order, k)
			}
			f.procs[of[i]] = true
		}
	}
	// A process whose own change begins where the run-wide one does (its
	// bug right after the command line is parsed, with no call in common
	// between them) shows the run-wide change too, at the start of its own.
	for _, k := range order {
		f := byKey[k]
		if len(f.procs) < 2 || len(f.procs) == len(inBoth) {
			continue
		}
		for i, d := range diffs {
			if f.procs[of[i]] {
				continue
			}
			for _, st := range d {
				if !st.common && begins(st.Change, f.change) {
					f.procs[of[i]] = true
					break
				}
			}
		}
	}
	for _, k := range order {
		if len(byKey[k].procs) == len(inBoth) {
			n.RunWide = append(n.RunWide, byKey[k].change)
		}
	}
	if len(n.RunWide) == 0 {
		return nil
	}
	for i, d := range diffs {
		n.patch(i, n.undone(d))
	}
	return nil
}

// undone returns the faulty sequence of a diff with its run-wide changes
// undone, nil when it has none.
func (n *NLR) undone(d []stretch) nlr.Sequence {
	touched := false
	s := nlr.Sequence{} // not nil: nil in analysed means unchanged
	for _, st := range d {
		if st.common {
			s = append(s, st.Normal...)
			continue
		}
		w, ok := n.widePart(st)
		if ok {
			s = append(s, w.Normal...)
			touched = true
		}
		s = append(s, st.Faulty[len(w.Faulty):]...)
	}
	if !touched {
		return nil
	}
	return s
}

// begins reports whether change ch begins with change w on both sides (w
// not empty).
func begins(ch, w Change) bool {
	if len(w.Normal)+len(w.Faulty) == 0 || len(w.Normal) > len(ch.Normal) || len(w.Faulty) > len(ch.Faulty) {
		return false
	}
	for j, e := range w.Normal {
		if !ch.Normal[j].Equal(e) {
			return false
		}
	}
	for j, e := range w.Faulty {
		if !ch.Faulty[j].Equal(e) {
			return false
		}
	}
	return true
}

// widePart returns the run-wide change a change of the diff is or begins
// with, if any (the longest).
func (n *NLR) widePart(st stretch) (Change, bool) {
	var best Change
	found := false
	for _, w := range n.RunWide {
		if begins(st.Change, w) && (!found || len(w.Normal)+len(w.Faulty) > len(best.Normal)+len(best.Faulty)) {
			best, found = w, true
		}
	}
	return best, found
}

// Seq returns the NLR of trace IDs[i] in run r as the analysis sees it: as
// recorded (Recorded), except that in the faulty run the run-wide changes
// (RunWide) are undone. It is shared: callers must not change it.
func (n *NLR) Seq(r, i int) nlr.Sequence { return n.seqs.get(n.seqIndex(r, i)) }

// seqIndex is Seq's NLR in the store (-1: none).
func (n *NLR) seqIndex(r, i int) int32 {
	if r == Faulty && n.Patched(i) {
		return n.analysed[i]
	}
	return n.seqs.of[r][i]
}

// Recorded returns the NLR of trace IDs[i] in run r as folded; it is empty
// when the filter kept nothing, nil when the trace does not exist in the
// run. The NLRs are held packed and expanded when read: keep the result no
// longer than needed, and do not change it (it is shared).
func (n *NLR) Recorded(r, i int) nlr.Sequence { return n.seqs.at(r, i) }

// Same reports whether n and o (two filters' NLRs under one K, of the same
// comparison) are the same in every trace, loop table included: both
// number loops by first appearance in the same traces.
func (n *NLR) Same(o *NLR) bool {
	if n.Table.Len() != o.Table.Len() || !n.SameRecorded(o) {
		return false
	}
	for id := range int32(n.Table.Len()) {
		if !n.Table.Body(id).Equal(o.Table.Body(id)) {
			return false
		}
	}
	return true
}

// SameRecorded reports whether n and o hold the same recorded NLR for every
// trace of every run (o of the same comparison).
func (n *NLR) SameRecorded(o *NLR) bool {
	for r := range n.seqs.of {
		for i := range n.seqs.of[r] {
			if !bytes.Equal(n.seqs.bytesOf(r, i), o.seqs.bytesOf(r, i)) {
				return false
			}
		}
	}
	return true
}

// Patched reports whether the faulty NLR of trace IDs[i] that the analysis
// sees (Seq) had run-wide changes undone, so that it is not the recorded
// one.
func (n *NLR) Patched(i int) bool { return n.analysed != nil && n.analysed[i] >= 0 }

// FaultyCall returns, for the k-th call of the faulty NLR of trace IDs[i]
// as the analysis sees it (Seq, run-wide changes undone), the number of
// the same call in the trace as recorded: where a run-wide change was
// undone, the calls before it count as recorded (a call inside the undone
// stretch maps to the recorded stretch, no further than its end). For an
// unpatched trace it is k.
func (n *NLR) FaultyCall(i int, k uint64) uint64 { return n.faultyCalls(i)(k) }

// faultyCalls returns FaultyCall for trace IDs[i], its diff made once: for
// a caller that maps many calls.
func (n *NLR) faultyCalls(i int) func(k uint64) uint64 {
	same := func(k uint64) uint64 { return k }
	if !n.Patched(i) {
		return same
	}
	blocks, err := diffnlr.Diff(n.Recorded(Normal, i), n.Recorded(Faulty, i))
	if err != nil {
		return same
	}
	// The stretches in order: how many calls each is as the analysis sees
	// it, and as recorded.
	type part struct{ sees, recorded uint64 }
	var parts []part
	for _, st := range stretches(blocks) {
		if st.common {
			c := n.Table.Calls(st.Normal)
			parts = append(parts, part{c, c})
			continue
		}
		w, _ := n.widePart(st)
		rest := n.Table.Calls(st.Faulty[len(w.Faulty):])
		parts = append(parts, part{n.Table.Calls(w.Normal), n.Table.Calls(w.Faulty)}, part{rest, rest})
	}
	return func(k uint64) uint64 {
		var seen, rec uint64 // calls before, as the analysis sees them and as recorded
		for _, p := range parts {
			if seen+p.sees > k {
				return rec + min(k-seen, p.recorded)
			}
			seen, rec = seen+p.sees, rec+p.recorded
		}
		return rec + (k - seen)
	}
}

// findArgumentParsing is findRunWide for a run of one process, where no
// other process can show a change alike: when the faulty run was started
// with another command line, the changes of the process's main thread made
// of nothing but the string functions a command line is parsed with (the
// str filter's) are set aside as run-wide.
func (n *NLR) findArgumentParsing(inBoth map[int]bool) error {
	c := n.c
	if len(inBoth) != 1 || !commandsDiffer(c) {
		return nil
	}
	str := filters.MustParse("str")
	main := -1
	for i, id := range c.IDs {
		if id.Thread == 0 && c.Has(Normal, i) && c.Has(Faulty, i) {
			main = i
			break
		}
	}
	if main < 0 {
		return nil
	}
	ns, fs := n.Recorded(Normal, main), n.Recorded(Faulty, main)
	if ns.Equal(fs) {
		return nil
	}
	blocks, err := diffnlr.Diff(ns, fs)
	if err != nil {
		return err
	}
	parsing := func(seq nlr.Sequence) bool {
		syms, err := n.Table.Expand(nil, seq)
		if err != nil {
			return false
		}
		for _, s := range syms {
			if s != trace.Return && !str.KeepName(c.Symbols.Name(s)) {
				return false
			}
		}
		return true
	}
	d := stretches(blocks)
	for _, st := range d {
		if !st.common && len(st.Faulty) > 0 && parsing(st.Normal) && parsing(st.Faulty) {
			n.RunWide = append(n.RunWide, st.Change)
		}
	}
	if len(n.RunWide) == 0 {
		return nil
	}
	n.patch(main, n.undone(d))
	return nil
}

// patch keeps s as the faulty NLR of trace IDs[i] the analysis sees (Seq);
// nil leaves it as recorded.
func (n *NLR) patch(i int, s nlr.Sequence) {
	if n.analysed == nil {
		n.analysed = make([]int32, len(n.c.IDs))
		for j := range n.analysed {
			n.analysed[j] = -1
		}
	}
	if s != nil {
		n.analysed[i] = n.seqs.add(s)
	}
}

// commandsDiffer reports whether the faulty run was started with another
// command line than the normal run, where both say.
func commandsDiffer(c *Comparison) bool {
	a, b := c.Runs[Normal].Manifest, c.Runs[Faulty].Manifest
	return a != nil && b != nil && len(a.Command) > 0 && len(b.Command) > 0 && !slices.Equal(a.Command, b.Command)
}
