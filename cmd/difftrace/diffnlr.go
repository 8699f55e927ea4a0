package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/draw"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

type diffNLRFlags struct {
	analysisFlags
	normal, faulty string
	alsoNormal     []string
	outputs        []string
	color          string
	context        int
	changed        int
	changes        int
	full           bool
}

func newDiffNLRCmd() *cobra.Command {
	var f diffNLRFlags
	cmd := &cobra.Command{
		Use:   "diffnlr TRACE [-o FILE]",
		Short: "Show how one trace or process changed between the normal and the faulty run",
		Long: `diffnlr diffs the nested-loop representation (NLR) of one trace in the
normal run against the same trace in the faulty run (the DiffTrace
dissertation, §3.2.7.1): a Myers diff with one token per NLR element, so
"L1^16" against "L1^7, L0^9" is one change (Figs 3.5–3.7). TRACE is P.T (thread T of process P) or P:
every thread of process P, each diffed on its own, one after the other
(threads run concurrently, so no order joins them); a process with one
thread is that thread.

It prints the diff like a unified diff: "  " in both runs, "- " only in the
normal run, "+ " only in the faulty run, and "<- faulty trace ends here"
where a faulty trace that ends differently stopped (a hang shows there).
Loops are written L1^7 (loop L1 ran 7 times); the loop bodies follow the
diff. Colours (blue normal, red faulty) are used when standard output is a
terminal, or as --color says (NO_COLOR turns the automatic colours off).

-o FILE draws the picture, the format from the name: .svg, .png or .dot (the
Graphviz source); repeat -o for several. -o FILE.json writes the diff as data
instead: each thread's first difference and whole diff, with full names. A green stem holds what both runs
did, blue boxes on the left what only the normal run did, red boxes on the
right what only the faulty run did; the legend lists the loop bodies. SVG
and PNG are drawn by difftrace-draw, the Graphviz helper installed beside
difftrace.

By default the runs, the filter and K are those of the best-ranked
combination (lowest B-score) that "difftrace rank" saved in .difftrace/ of the
current directory. --normal and --faulty name the runs instead (the session
is then not read; the filter defaults to mpi and K to 10); --filter and --k
override. Long diffs are abridged: --context, --changed, --changes, or --full
to show everything.`,
		Example: `  difftrace rank testdata/runs/oddeven-normal testdata/runs/oddeven-swapbug
  difftrace diffnlr 5
  difftrace diffnlr 5 -o diffnlr-5.svg -o diffnlr-5.png
  difftrace diffnlr 6.4 --normal testdata/runs/ilcs-normal --faulty testdata/runs/ilcs-critbug --filter mem+omp.crit+cust=CPU_Exec
  difftrace diffnlr 4 --normal testdata/runs/ilcs-normal --faulty testdata/runs/ilcs-dlbug --full`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeSuspects,
		RunE:              func(cmd *cobra.Command, args []string) error { return f.run(cmd, args[0]) },
	}
	f.register(cmd)
	f.registerForce(cmd)
	f.registerPolling(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.normal, "normal", "", "the normal run's directory (default: the one in .difftrace/session.json)")
	fl.StringArrayVar(&f.alsoNormal, "also-normal", nil,
		"with --normal: another normal run (repeat for more); loops whose counts differ between the normal runs align whatever their counts (default: those rank was given)")
	fl.StringVar(&f.faulty, "faulty", "", "the faulty run's directory (default: the one in .difftrace/session.json)")
	fl.StringVarP(&f.filter, "filter", "f", "",
		`which calls to keep: presets joined by "+", e.g. mpi, mem+omp.crit+cust=CPU_Exec (default: the best-ranked filter of the session, or mpi)`)
	fl.IntVarP(&f.k, "k", "k", 0, "longest loop body NLR looks for (default: the best-ranked K of the session, or 10)")
	fl.StringArrayVarP(&f.outputs, "output", "o", nil, "draw the picture into this file: .svg, .png or .dot (repeatable)")
	fl.StringVar(&f.color, "color", "auto", "colour the text diff: auto (when standard output is a terminal), always or never")
	fl.IntVar(&f.context, "context", 3, "common elements shown at each end of a long common run (-1: all)")
	fl.IntVar(&f.changed, "changed", 8, "elements shown at each end of a long changed run (-1: all)")
	fl.IntVar(&f.changes, "changes", 20, "changes shown, the first and the last ones, when there are more (-1: all)")
	fl.BoolVar(&f.full, "full", false, "show the whole diff, nothing abridged")
	completeJoined(cmd, "filter", "+", filterTerms)
	completeWords(cmd, "color", "auto", "always", "never")
	cmd.MarkFlagDirname("normal")
	cmd.MarkFlagDirname("faulty")
	return cmd
}

// abridge checks the abridging flags.
func (f *diffNLRFlags) abridge() (diffnlr.Abridge, error) {
	if f.full {
		return diffnlr.Full, nil
	}
	a := diffnlr.Abridge{Context: f.context, Changed: f.changed, Changes: f.changes}
	for _, v := range []struct {
		name string
		n    int
	}{{"context", f.context}, {"changed", f.changed}, {"changes", f.changes}} {
		if v.n == 0 || v.n < -1 {
			return a, fmt.Errorf("--%s %d: give 1 or more, or -1 for no limit", v.name, v.n)
		}
	}
	return a, nil
}

// colorOn decides whether the text diff is coloured.
func (f *diffNLRFlags) colorOn(w io.Writer) (bool, error) {
	switch f.color {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		return os.Getenv("NO_COLOR") == "" && isTerminal(w), nil
	}
	return false, fmt.Errorf("--color %q: want auto, always or never", f.color)
}

// params settles the runs, the filter and K: from the flags, else from the
// session rank saved, else the defaults. It returns where they came from,
// for the header, and the session when neither --filter nor --k was given:
// the view is then picked for the trace (pickView).
func (f *diffNLRFlags) params(cmd *cobra.Command) (dirs []string, source string, pick *picking, err error) {
	switch {
	case f.normal != "" && f.faulty != "":
		dirs = append([]string{f.normal, f.faulty}, f.alsoNormal...)
		if f.filter == "" {
			f.filter = "mpi"
		}
		if f.k == 0 {
			f.k = 10
		}
	case f.normal != "" || f.faulty != "":
		return nil, "", nil, fmt.Errorf("--normal and --faulty go together: give both runs, or neither to use the session of difftrace rank")
	default:
		s, rk, err := loadSessionAndRanking(cmd.ErrOrStderr())
		if err != nil {
			return nil, "", nil, err
		}
		dirs = append([]string{s.Normal, s.Faulty}, s.AlsoNormal...)
		if !cmd.Flags().Changed("exact-polling") {
			f.exactPolling = s.ExactPolling
		}
		bestFilter, bestK := "mpi", 10
		if s.Best != nil {
			bestFilter, bestK = s.Best.Filter, s.Best.K
			source = fmt.Sprintf("best-ranked in %s, B-score %.3f", filepath.Join(sessionDir, sessionFile), s.Best.BScore)
		}
		if f.filter == "" {
			f.filter = bestFilter
		}
		if f.k == 0 {
			f.k = bestK
		}
		if cmd.Flags().Changed("filter") || cmd.Flags().Changed("k") || s.Best == nil {
			source = "runs from " + filepath.Join(sessionDir, sessionFile)
		} else {
			pick = &picking{s, rk}
		}
	}
	return dirs, source, pick, nil
}

// picking is what pickView chooses from: the session and its ranking, read
// together.
type picking struct {
	s  *session
	rk *rank.Ranking
}

// pickView chooses the filter and K for the diffNLR of id when no flag
// named them: the view rank suggested for id, or for another trace the one
// rank.Suggest picks over the saved ranking's rows (the shortest non-empty
// diff among the rows where id is the top suspect, …). When no filter
// shows id changed, the best-ranked row's stays, and the note says so.
func (f *diffNLRFlags) pickView(c *rank.Comparison, p *picking, id trace.ID) (source, note string, err error) {
	file := filepath.Join(sessionDir, sessionFile)
	s, rk := p.s, p.rk
	v := s.Suggestion
	if v == nil || v.Trace != id {
		fold := func(specs []string, ks []int) ([]*rank.NLR, error) {
			fs := make([]*filters.Filter, len(specs))
			for i, spec := range specs {
				if fs[i], err = filters.Parse(spec); err != nil {
					return nil, fmt.Errorf("%s: filter %q: %v (run difftrace rank again)", file, spec, err)
				}
			}
			return c.Recognize(fs, ks)
		}
		broadest := ""
		if len(rk.Filters) > 0 {
			broadest = rk.Filters[len(rk.Filters)-1]
		}
		found, ok, err := rank.Suggest(rk.Rows, id, broadest, fold)
		if err != nil {
			return "", "", err
		}
		if !ok {
			return fmt.Sprintf("best-ranked in %s, B-score %.3f", file, s.Best.BScore),
				fmt.Sprintf("no filter of the ranking shows a change in the calls of %s; its similarity to the other traces changed, not its own calls", id), nil
		}
		v = &found
	}
	f.filter, f.k = v.Filter, v.K
	if v.Why == "stopped" {
		return "the hang analysis's first suspect, which made the calls of its normal run and stopped inside the last one", "", nil
	}
	return fmt.Sprintf("the clearest diff among the ranking's rows where %s is %s", id, viewWhy(v)), "", nil
}

func (f *diffNLRFlags) run(cmd *cobra.Command, arg string) error {
	id, err := trace.ParseID(strings.TrimSpace(arg))
	if err != nil {
		return err
	}
	if cmd.Flags().Changed("k") && f.k == 0 {
		return fmt.Errorf("--k 0: the longest loop body must be between 1 and %d (10 is usual)", nlr.MaxK)
	}
	ab, err := f.abridge()
	if err != nil {
		return err
	}
	color, err := f.colorOn(cmd.OutOrStdout())
	if err != nil {
		return err
	}
	formats := make([]draw.Format, len(f.outputs))
	for i, o := range f.outputs {
		if st, err := os.Stat(o); err == nil && st.IsDir() {
			return fmt.Errorf("-o %s: is a directory; give a file name for the picture", o)
		}
		if strings.EqualFold(filepath.Ext(o), ".json") {
			formats[i] = jsonFormat
			continue
		}
		if formats[i], err = draw.FormatOf(o); err != nil {
			return fmt.Errorf("-o %s: unknown format %q; name the file *.svg, *.png or *.dot for a picture, *.json for the diff as data", o, filepath.Ext(o))
		}
		if st, err := os.Stat(filepath.Dir(o)); err != nil || !st.IsDir() {
			return fmt.Errorf("-o %s: the directory %s does not exist; create it first", o, filepath.Dir(o))
		}
		if formats[i] != draw.DOT {
			if _, err := draw.Helper(); err != nil {
				return err
			}
		}
	}
	dirs, source, pick, err := f.params(cmd)
	if err != nil {
		return err
	}
	if _, _, _, err := f.parse(); err != nil {
		return err
	}

	c, err := f.openComparison(cmd, dirs)
	if err != nil {
		return err
	}
	threads, err := diffTraces(c, id)
	if err != nil {
		return err
	}
	if pick != nil {
		var note string
		if source, note, err = f.pickView(c, pick, id); err != nil {
			return err
		}
		if note != "" {
			printNotes(cmd, []string{note})
		}
	}
	flt, _, _, err := f.parse()
	if err != nil {
		return err
	}
	res, err := c.Recognize([]*filters.Filter{flt}, []int{f.k})
	if err != nil {
		return err
	}
	printNotes(cmd, c.Notes())
	n := res[0]
	printNotes(cmd, n.UnfoldedNotes(id))
	pic, empty, err := diffPicture(c, n, id, threads)
	if err != nil {
		return err
	}
	parts, noStacks, err := firstDifferences(c, n, threads)
	if err != nil {
		return err
	}
	if noStacks != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "note: where the first difference lies in the program is left out: %s\n", trace.Printable(noStacks.Error()))
	}
	for _, p := range parts {
		pic.Notes = append(pic.Notes, p.text)
	}
	pic.Usual = usualPairs(c, n, threads)
	pic.Abridge = ab
	pic.Ended = c.Runs[rank.Faulty].Ending(id.Proc)
	pic.Bodies = func(a, b int32) string { return bodyDiff(n, a, b) }
	// The legend explains the loops the abridged diff shows, no others:
	// the text with the loops inside them, the picture those it draws.
	shown := pic.Shown()
	loops := n.Table.Legend(n.Names(), shown)
	var drawn []int32
	for _, e := range shown {
		if e.IsLoop() && !slices.Contains(drawn, e.Loop) {
			drawn = append(drawn, e.Loop)
		}
	}
	slices.Sort(drawn)
	pic.Legend = nil
	for _, id := range drawn {
		pic.Legend = append(pic.Legend, n.Table.Define(id, n.Names()))
	}
	if len(empty) > 0 && len(threads) > 1 {
		pic.Legend = append(slices.Clip(loops), "no call kept in either run: threads "+strings.Join(empty, ", "))
	}

	// The text diff, on standard output.
	w := bufio.NewWriter(cmd.OutOrStdout())
	fmt.Fprintf(w, "diffNLR(%s): filter %s, K %d", id, n.Filter.Name(), n.K)
	if source != "" {
		fmt.Fprintf(w, " (%s)", source)
	}
	fmt.Fprintf(w, "\nnormal  %s\nfaulty  %s\n", shortPath(c.Runs[rank.Normal].Dir), shortPath(c.Runs[rank.Faulty].Dir))
	for _, ch := range n.RunWide {
		fmt.Fprintf(w, "run-wide, left out (every process of the faulty run shows it): %s\n", ellipsis(trace.Printable(ch.Format(n.Table, n.Names())), 100))
	}
	w.WriteString("\n")
	if err := pic.WriteText(w, color); err != nil {
		return err
	}
	if len(empty) > 0 && len(threads) > 1 {
		fmt.Fprintf(w, "\nno call kept in either run: threads %s\n", strings.Join(empty, ", "))
	}
	if len(loops) > 0 {
		w.WriteString("\nloops:\n")
		for _, l := range loops {
			w.WriteString("  " + trace.Printable(l) + "\n")
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(threads) == len(empty) {
		fmt.Fprintf(cmd.ErrOrStderr(), "note: filter %s keeps no call of %s in either run; try another --filter (difftrace filter RUN --filter SPEC shows what a filter keeps)\n", n.Filter.Name(), id)
	}

	return writeOutputs(cmd.ErrOrStderr(), f.outputs, nil, func(i int, out *output) error {
		if formats[i] == jsonFormat {
			return writeDiffJSON(out, c, n, id, threads, parts, source)
		}
		if err := pic.Render(out, formats[i]); err != nil {
			return fmt.Errorf("-o %s: %v", f.outputs[i], strings.TrimPrefix(err.Error(), "diffnlr: "))
		}
		return nil
	})
}

// diffTraces returns the threads a diffNLR of id shows: the trace itself,
// or every thread of the process that exists in either run. A trace that
// does not exist, or exists in one run only, is an error.
func diffTraces(c *rank.Comparison, id trace.ID) ([]trace.ID, error) {
	what := "trace " + id.String()
	var ids []trace.ID
	for _, t := range c.IDs {
		if t == id || (id.IsProcess() && t.Proc == id.Proc) {
			ids = append(ids, t)
		}
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
		return nil, fmt.Errorf("%s: not in %s nor in %s; %s (see difftrace info)", what, c.Runs[rank.Normal].Dir, c.Runs[rank.Faulty].Dir, span)
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

// diffPicture builds the diffNLR of id over its threads: one diff for a
// thread (or a process with one thread), one section per thread for a
// process. Threads where the filter kept nothing in either run are left
// out of a process's picture; all of them are returned in empty. The
// legend is the caller's, once the picture is abridged (Picture.Shown).
func diffPicture(c *rank.Comparison, n *rank.NLR, id trace.ID, threads []trace.ID) (pic *diffnlr.Picture, empty []string, err error) {
	names := n.Names()
	pic = &diffnlr.Picture{
		Title:  fmt.Sprintf("diffNLR(%s): %s vs %s · filter %s, K %d", id, runLabel(c, rank.Normal), runLabel(c, rank.Faulty), n.Filter.Name(), n.K),
		Normal: "normal",
		Faulty: "faulty",
		Label:  func(e nlr.Element) string { return e.Format(names) },
	}
	for _, t := range threads {
		i, _ := c.Index(t)
		ns, fs := n.Seq(rank.Normal, i), n.Seq(rank.Faulty, i)
		blocks, _, err := n.Diff(i)
		if err != nil {
			return nil, nil, fmt.Errorf("diffNLR(%s): %v", t, err)
		}
		if len(ns) == 0 && len(fs) == 0 {
			empty = append(empty, t.String())
		}
		if len(threads) == 1 {
			pic.Blocks = blocks
			break
		}
		if len(ns) == 0 && len(fs) == 0 {
			continue
		}
		title := "thread " + t.String()
		for r, name := range []string{"normal", "faulty"} {
			if !c.Has(r, i) {
				title += " (no such thread in the " + name + " run)"
			}
		}
		pic.Sections = append(pic.Sections, diffnlr.Section{Title: title, Blocks: blocks})
	}
	return pic, empty, nil
}

// runLabel names a run in a picture title: its directory's base name.
func runLabel(c *rank.Comparison, r int) string {
	return filepath.Base(filepath.Clean(c.Runs[r].Dir))
}

// shortPath writes a path below the current directory relative to it (the
// session keeps absolute paths).
func shortPath(p string) string {
	wd, err := os.Getwd()
	if err != nil || !filepath.IsAbs(p) {
		return p
	}
	rel, err := filepath.Rel(wd, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return rel
}

// parting is where one thread's runs first part, with the call stack
// there (outermost first, the callers of the call that differs).
type parting struct {
	trace trace.ID
	first diffnlr.First
	// newPair, when set, is what the line says: the first pair of calls
	// no normal run makes (rank's NewPair).
	newPair *diffnlr.NewPair
	stack   []trace.Symbol
	text    string
	// explanation is the place and the change read on the whole traces.
	explanation diffnlr.Explanation
}

// firstDifferences says, for each thread whose calls changed, where its
// runs first part (diffnlr.FirstDifference), with the call stack there:
// the normal run's, or the faulty run's where the normal trace has ended.
//
// For runs given as summaries, the call stacks come from the runs they
// summarise; where those are not at hand the stacks are left out and
// noStacks holds why.
// usualPairs returns the call pairs of the normal runs, for the picture to
// show changes like those between them as one line each
// (diffnlr.Picture.Usual), when the normal runs differ among themselves and
// every thread shown makes a pair of calls that none of them makes. The
// first difference is then where such a pair is made, in a change that
// stays.
func usualPairs(c *rank.Comparison, n *rank.NLR, threads []trace.ID) *diffnlr.Pairs {
	for _, t := range threads {
		i, _ := c.Index(t)
		if _, _, ok := n.NewPair(i); !ok {
			return nil
		}
	}
	return n.UsualPairs()
}

func firstDifferences(c *rank.Comparison, n *rank.NLR, threads []trace.ID) (out []parting, noStacks error, err error) {
	for _, t := range threads {
		i, _ := c.Index(t)
		p, ok, noEvents, err := n.Explain(i)
		if err != nil {
			return nil, nil, err
		}
		if noEvents != nil {
			noStacks = noEvents
		}
		if !ok {
			continue
		}
		line := p.Text
		if len(threads) > 1 {
			line = strings.Replace(line, "first difference:", "first difference in "+t.String()+":", 1)
		}
		out = append(out, parting{trace: t, first: p.Explanation.First, explanation: p.Explanation, newPair: p.NewPair, stack: p.Stack, text: line})
	}
	return out, noStacks, nil
}

// bodyDiff says how the bodies of loops a (normal) and b (faulty) differ:
// "- update_x + update_y", the elements only one of them has, a few of
// each.
func bodyDiff(n *rank.NLR, a, b int32) string {
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

// jsonFormat is diffnlr's -o format for the diff as data.
const jsonFormat draw.Format = "json"

// writeDiffJSON writes the diffNLR of id as JSON: the view, each thread's
// first difference and its whole diff (not abridged), the loops, names
// in full (with parameters).
func writeDiffJSON(w io.Writer, c *rank.Comparison, n *rank.NLR, id trace.ID, threads []trace.ID, parts []parting, source string) error {
	full := func(s trace.Symbol) string { return c.Symbols.Name(s).Func }
	names := func(ss []trace.Symbol) []string {
		out := []string{}
		for _, s := range ss {
			out = append(out, full(s))
		}
		return out
	}
	type loopPlace struct {
		Body      string `json:"body"` // the first call of its body
		Period    int    `json:"period"`
		Iteration int    `json:"iteration"`
		Count     int    `json:"count"`
	}
	type newPair struct {
		Call  uint64   `json:"call"` // the second call's index in the faulty trace, from 0
		Prev  string   `json:"prev"`
		Next  string   `json:"next"`
		Usual []string `json:"usual"` // what follows prev in the normal runs
	}
	type first struct {
		Text        string         `json:"text"`
		Stack       []string       `json:"call_stack"`
		Normal      []string       `json:"normal_only"`
		Faulty      []string       `json:"faulty_only"`
		NormalOrder []string       `json:"normal_order,omitempty"`
		FaultyOrder []string       `json:"faulty_order,omitempty"`
		Place       *diffnlr.First `json:"place"` // loops around it, calls in common before, …
		NewPair     *newPair       `json:"new_pair,omitempty"`
		// Kind and what follows are read on the whole call trees.
		Kind        string               `json:"kind"`
		Calls       []string             `json:"calls"`
		FaultyCalls []string             `json:"faulty_calls"`
		Loops       []loopPlace          `json:"loops"`
		Explanation *diffnlr.Explanation `json:"explanation"`
	}
	type block struct {
		Kind     string   `json:"kind"`
		Elements []string `json:"elements"`
	}
	type thread struct {
		Trace string  `json:"trace"`
		First *first  `json:"first_difference"`
		Diff  []block `json:"diff"`
	}
	type loop struct {
		ID   string   `json:"id"`
		Body []string `json:"body"`
	}
	doc := struct {
		Trace   string   `json:"trace"`
		Normal  string   `json:"normal"`
		Faulty  string   `json:"faulty"`
		Filter  string   `json:"filter"`
		K       int      `json:"k"`
		View    string   `json:"view,omitempty"`
		Ended   string   `json:"faulty_ended,omitempty"`
		RunWide []string `json:"run_wide"`
		Threads []thread `json:"threads"`
		Loops   []loop   `json:"loops"`
	}{Trace: id.String(), Normal: c.Runs[rank.Normal].Dir, Faulty: c.Runs[rank.Faulty].Dir, Filter: n.Filter.Name(), K: n.K,
		View: source, Ended: c.Runs[rank.Faulty].Ending(id.Proc), RunWide: []string{}, Threads: []thread{}, Loops: []loop{}}
	for _, ch := range n.RunWide {
		doc.RunWide = append(doc.RunWide, ch.Format(n.Table, full))
	}
	var used []nlr.Sequence
	for _, t := range threads {
		i, _ := c.Index(t)
		ns, fs := n.Seq(rank.Normal, i), n.Seq(rank.Faulty, i)
		used = append(used, ns, fs)
		blocks, _, err := n.Diff(i)
		if err != nil {
			return err
		}
		th := thread{Trace: t.String(), Diff: []block{}}
		for _, b := range blocks {
			jb := block{Kind: b.Kind.String(), Elements: []string{}}
			for _, e := range b.Elems {
				jb.Elements = append(jb.Elements, e.Format(full))
			}
			th.Diff = append(th.Diff, jb)
		}
		for _, p := range parts {
			if p.trace == t {
				f := p.first
				th.First = &first{Text: p.text, Stack: names(p.stack), Normal: names(f.Normal), Faulty: names(f.Faulty),
					NormalOrder: names(f.NormalOrder), FaultyOrder: names(f.FaultyOrder), Place: &f}
				x := p.explanation
				th.First.Kind, th.First.Calls, th.First.FaultyCalls = x.Kind.String(), names(x.Normal), names(x.Faulty)
				th.First.Loops = []loopPlace{}
				for _, l := range x.Loops {
					th.First.Loops = append(th.First.Loops, loopPlace{full(l.Body), l.Period, l.Iteration, l.Count})
				}
				th.First.Explanation = &x
				if np := p.newPair; np != nil {
					th.First.NewPair = &newPair{Call: np.Call, Prev: names([]trace.Symbol{np.Prev})[0],
						Next: names([]trace.Symbol{np.Next})[0], Usual: names(np.Usual)}
				}
			}
		}
		doc.Threads = append(doc.Threads, th)
	}
	for _, id := range n.Table.Used(used...) {
		l := loop{ID: nlr.LoopName(id), Body: []string{}}
		for _, e := range n.Table.Body(id) {
			l.Body = append(l.Body, e.Format(full))
		}
		doc.Loops = append(doc.Loops, l)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
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
