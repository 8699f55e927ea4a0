package compare

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// DiffNLR is the diffNLR of one trace, or of a process (each of its
// threads diffed on its own), under one view (seeds/002 §3.2.7.1): the
// picture, abridged, with where the runs first part as its notes.
type DiffNLR struct {
	ID  trace.ID
	NLR *NLR // the view: its filter and K
	// Threads are the traces shown (DiffTraces), and Blocks each one's
	// whole diff.
	Threads []trace.ID
	Blocks  [][]diffnlr.Block
	// Empty names the threads whose calls the filter dropped all of in
	// both runs.
	Empty []string
	// Picture is the diff to print or draw: one diff for a thread, one
	// section per thread (the empty ones left out) for a process. Its
	// notes are the first differences' lines, its legend defines the loops
	// it draws.
	Picture *diffnlr.Picture
	// Partings are where the runs of each thread whose calls changed first
	// part; for a process their lines name the thread ("first difference
	// in 6.4: …").
	Partings []Parting
	// NoStacks, when set, says why the call stacks of the partings are
	// left out (a summary whose run is elsewhere).
	NoStacks error
	// Loops defines the loops the abridged diff shows ("L0 = [MPI_Send,
	// MPI_Recv]"), the loops inside them written out in place unless the
	// diff shows them too (nlr.Table.Gloss).
	Loops []string
}

// DiffTraces returns the threads a diffNLR of id shows: the trace itself,
// or every thread of the process that exists in either run. A trace that
// does not exist, or exists in one run only, is an error.
func (c *Comparison) DiffTraces(id trace.ID) ([]trace.ID, error) {
	what := "trace " + id.String()
	var ids []trace.ID
	for _, i := range c.IndexesOf(id) {
		ids = append(ids, c.IDs[i])
	}
	if id.IsProcess() {
		what = "process " + id.String()
	}
	if len(ids) == 0 {
		var span string
		if id.IsProcess() {
			ps := c.Processes()
			span = fmt.Sprintf("the processes are %s … %s", ps[0], ps[len(ps)-1])
		} else {
			span = fmt.Sprintf("the traces are %s … %s", c.IDs[0], c.IDs[len(c.IDs)-1])
		}
		return nil, fmt.Errorf("%s: not in %s nor in %s; %s (see difftrace info)", what, c.Runs[Normal].Dir, c.Runs[Faulty].Dir, span)
	}
	for r, name := range []string{"normal", "faulty"} {
		found := false
		for _, t := range ids {
			i, _ := c.Index(t)
			found = found || c.Has(r, i)
		}
		if !found {
			other := 1 - r
			return nil, fmt.Errorf("%s exists only in the %s run (%s), not in the %s run (%s): there is nothing to compare it with",
				what, []string{"normal", "faulty"}[other], c.Runs[other].Dir, name, c.Runs[r].Dir)
		}
	}
	return ids, nil
}

// RunLabel names run r in a picture's title: its directory's base name.
func (c *Comparison) RunLabel(r int) string {
	return filepath.Base(filepath.Clean(c.Runs[r].Dir))
}

// DiffNLR returns the diffNLR of id under n, abridged as ab says: the
// picture (titled with the runs and the view), where each changed thread's
// runs first part, the loops it shows. Where the normal runs vary by
// themselves, changes like theirs are one line each (diffnlr.Picture.Usual);
// a faulty trace that ended abnormally is marked where it stopped. With
// ab.Lines, the diff is abridged further (ab.Tighter) until the run-wide
// changes, the picture's text and the legend take no more lines.
func (c *Comparison) DiffNLR(n *NLR, id trace.ID, ab diffnlr.Abridge) (*DiffNLR, error) {
	threads, err := c.DiffTraces(id)
	if err != nil {
		return nil, err
	}
	d := &DiffNLR{ID: id, NLR: n, Threads: threads}
	names := n.Names()
	pic := &diffnlr.Picture{
		Title:  fmt.Sprintf("diffNLR(%s): %s vs %s · filter %s, K %d", id, c.RunLabel(Normal), c.RunLabel(Faulty), n.Filter.Name(), n.K),
		Normal: "normal",
		Faulty: "faulty",
		Label:  func(e nlr.Element) string { return e.Format(names) },
	}
	d.Picture = pic
	var sections []int // the trace index each section shows
	for _, t := range threads {
		i, _ := c.Index(t)
		blocks, _, err := n.Diff(i)
		if err != nil {
			return nil, fmt.Errorf("diffNLR(%s): %w", t, err)
		}
		d.Blocks = append(d.Blocks, blocks)
		if len(n.Seq(Normal, i)) == 0 && len(n.Seq(Faulty, i)) == 0 {
			d.Empty = append(d.Empty, t.String())
			continue
		}
		if len(threads) == 1 {
			continue
		}
		title := "thread " + t.String()
		for r, name := range []string{"normal", "faulty"} {
			if !c.Has(r, i) {
				title += " (no such thread in the " + name + " run)"
			}
		}
		pic.Sections = append(pic.Sections, diffnlr.Section{Title: title, Blocks: blocks})
		sections = append(sections, i)
	}
	if len(threads) == 1 {
		pic.Blocks = d.Blocks[0]
		i, _ := c.Index(threads[0])
		sections = []int{i}
	}
	pic.Depth = n.depths(sections)
	if err := d.explain(); err != nil {
		return nil, err
	}
	for _, p := range d.Partings {
		pic.Notes = append(pic.Notes, p.Text)
	}
	pic.Usual = d.usualPairs()
	pic.Ended = c.Runs[Faulty].Ending(id.Proc)
	pic.Bodies = func(a, b int32) string { return bodyDiff(n, a, b) }

	// The legend explains the loops the abridged diff shows, no others;
	// loops only inside them are written out in their bodies. With a
	// budget of lines, the diff shows less until it fits.
	for _, a := range ab.Tighter() {
		pic.Abridge = a
		d.Loops = n.Table.Gloss(names, pic.Shown())
		if a.Lines <= 0 || d.lines() <= a.Lines {
			break
		}
	}
	pic.Legend = d.Loops
	if len(d.Empty) > 0 && len(threads) > 1 {
		pic.Legend = append(slices.Clip(d.Loops), "no call kept in either run: threads "+strings.Join(d.Empty, ", "))
	}
	return d, nil
}

// lines counts the lines of the diff's text as Abridge.Lines does: the
// run-wide changes, the picture's notes and diff, the threads left empty
// and the legend, each set apart by a blank line.
func (d *DiffNLR) lines() int {
	n := len(d.NLR.RunWide) + d.Picture.TextLines()
	if len(d.Empty) > 0 && len(d.Threads) > 1 {
		n += 2
	}
	if len(d.Loops) > 0 {
		n += 2 + len(d.Loops)
	}
	return n
}

// explain says, for each thread whose calls changed, where its runs first
// part (NLR.Explain), with the call stack there.
func (d *DiffNLR) explain() error {
	c := d.NLR.c
	for _, t := range d.Threads {
		i, _ := c.Index(t)
		p, ok, noEvents, err := d.NLR.Explain(i)
		if err != nil {
			return err
		}
		if noEvents != nil {
			d.NoStacks = noEvents
		}
		if !ok {
			continue
		}
		if len(d.Threads) > 1 {
			p.Text = strings.Replace(p.Text, "first difference:", "first difference in "+t.String()+":", 1)
		}
		d.Partings = append(d.Partings, p)
	}
	return nil
}

// usualPairs returns the call pairs of the normal runs, for the picture to
// show changes like those between them as one line each
// (diffnlr.Picture.Usual), when the normal runs differ among themselves and
// every thread shown makes a pair of calls that none of them makes. The
// first difference is then where such a pair is made, in a change that
// stays.
func (d *DiffNLR) usualPairs() *diffnlr.Pairs {
	for _, t := range d.Threads {
		i, _ := d.NLR.c.Index(t)
		if _, _, ok := d.NLR.NewPair(i); !ok {
			return nil
		}
	}
	return d.NLR.UsualPairs()
}

// bodyDiff says how the bodies of loops a (normal) and b (faulty) differ:
// "- update_x + update_y", the elements only one of them has, a few of
// each.
func bodyDiff(n *NLR, a, b int32) string {
	ba, bb := n.Table.Body(a), n.Table.Body(b)
	names := n.Names()
	if samePermuted(ba, bb) {
		return "the same calls in another order: [" + ba.Format(names) + "] then [" + bb.Format(names) + "]"
	}
	blocks, err := diffnlr.Diff(ba, bb)
	if err != nil {
		return ""
	}
	var parts []string
	for _, bl := range blocks {
		sign := map[diffnlr.Kind]string{diffnlr.NormalOnly: "- ", diffnlr.FaultyOnly: "+ "}[bl.Kind]
		if sign == "" {
			continue
		}
		elems := bl.Elems
		more := ""
		if len(elems) > 4 {
			more = fmt.Sprintf(" and %d more", len(elems)-4)
			elems = elems[:4]
		}
		parts = append(parts, sign+elems.Format(names)+more)
		if len(parts) == 4 {
			parts = append(parts, "…")
			break
		}
	}
	return strings.Join(parts, " ")
}

// samePermuted reports whether two sequences hold the same elements in
// another order.
func samePermuted(a, b nlr.Sequence) bool {
	if len(a) != len(b) || a.Equal(b) {
		return false
	}
	count := map[nlr.Element]int{}
	for i := range a {
		count[a[i]]++
		count[b[i]]--
	}
	for _, c := range count {
		if c != 0 {
			return false
		}
	}
	return true
}

// depths returns a picture's Depth for the traces its sections show
// (sections[s] is the trace index of section s): how deep each element of
// the NLRs Diff compares stands among the calls the view keeps, read on
// the traces' events once a section asks (nothing where the events are not
// at hand).
func (n *NLR) depths(sections []int) func(section int, side diffnlr.Kind, at int) int {
	type key struct {
		section int
		side    diffnlr.Kind
	}
	memo := map[key][]int32{}
	return func(section int, side diffnlr.Kind, at int) int {
		k := key{section, side}
		ds, ok := memo[k]
		if !ok {
			ds = n.elementDepths(sections[section], side)
			memo[k] = ds
		}
		if at < 0 || at >= len(ds) {
			return -1
		}
		return int(ds[at])
	}
}

// elementDepths returns, for each element of trace i's NLR on one side of
// its diff (the normal run's, or the faulty run's as the analysis sees it,
// run-wide changes undone), the depth of its first call among the calls
// the view keeps (diffnlr.KeptDepths); nil when the events are not at hand.
func (n *NLR) elementDepths(i int, side diffnlr.Kind) []int32 {
	r := Normal
	if side == diffnlr.FaultyOnly {
		r = Faulty
	}
	t := n.c.IDs[i]
	if !n.c.Has(r, i) {
		return nil
	}
	events, err := n.c.Events(r, t)
	if err != nil {
		return nil
	}
	f := n.Filter.Compile(n.c.Symbols)
	kd := diffnlr.KeptDepths(events, f.Keep, n.c.quietPolling(n.Filter))
	seq := n.Seq(r, i)
	recorded := func(k uint64) uint64 { return k }
	if r == Faulty {
		recorded = n.faultyCalls(i)
	}
	out := make([]int32, len(seq))
	var k uint64 // calls before the element, as the analysis sees them
	for j, e := range seq {
		at := recorded(k)
		if at >= uint64(len(kd)) {
			return out[:j]
		}
		out[j] = kd[at]
		k += n.Table.Calls(nlr.Sequence{e})
	}
	return out
}

// Changes counts the elements only one run has in the diffNLR of id (a
// thread, or every thread of a process), run-wide changes set aside.
func (n *NLR) Changes(id trace.ID) (int, error) {
	total := 0
	for _, i := range n.c.IndexesOf(id) {
		t := n.c.IDs[i]
		ns, fs := n.Seq(Normal, i), n.Seq(Faulty, i)
		if ns.Equal(fs) {
			continue
		}
		blocks, _, err := n.Diff(i)
		if err != nil {
			return 0, fmt.Errorf("diffNLR(%s): %w", t, err)
		}
		for _, b := range blocks {
			if b.Kind != diffnlr.Common {
				total += len(b.Elems)
			}
		}
	}
	return total, nil
}
