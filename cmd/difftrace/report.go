package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/hang"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/report"
	"github.com/difftrace/difftrace/trace"
)

type reportFlags struct {
	rankFlags
	// shown is how many of the best rows get their matrices, dendrograms
	// and lattices in the page; diffs how many suspects their diffNLR.
	shown, diffs int
}

func newReportCmd() *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:   "report NORMAL FAULTY [-o report.html]",
		Short: "Write the whole comparison as one self-contained HTML page: verdict, ranking, matrices, dendrograms, lattices and diffNLRs",
		Long: `report ranks the traces as "difftrace rank" does, over the same grid of
filters × K × attribute modes × linkages, and writes everything on one HTML
page that needs nothing else to be read (no network, no other file):

  verdict      the suspect, where its runs first part (the first line of
               "difftrace diffnlr" under the suggested view) and why: which
               combinations, the hang analysis, the noise floor; or "no
               clear suspect" and why;
  runs         program, command lines, ranks × threads, how each rank ended,
               and for a run that hung where each trace stopped and who
               waited for whom;
  ranking      the table of combinations by B-score, sortable and filterable,
               and the consensus;
  combination  for a row you click: the Jaccard similarity matrices of both
               runs and their difference on one colour scale, both runs'
               dendrograms cut into the row's clusters, and both concept
               lattices. These are precomputed for the --rows best rows and
               the row of the suggested view; any other row shows the
               commands that draw its pictures;
  diffNLR      the diffs of the top suspects (--diffs), each under its own
               clearest view, loops unfolding on a click;
  reproduce    the commands that give each part on the terminal.

Runs with more than 512 traces get summarised matrices (blocks of traces)
and dendrograms (on at most 128 classes); the page says so.

-o writes the page to a file (standard output without it); a name ending in
.json writes the report's values as JSON instead.`,
		Example: `  difftrace report testdata/runs/stencil-normal testdata/runs/stencil-skipbug -o report.html
  difftrace report normal/ faulty/ --also-normal normal-2/ --rows 12 -o report.html
  difftrace report normal/ faulty/ --filters mpi,omp --linkage ward -o report.json`,
		Args:              runArgs(2, 2),
		ValidArgsFunction: completeRunDirs,
		RunE:              func(cmd *cobra.Command, args []string) error { return f.run(cmd, args) },
	}
	f.register(cmd)
	f.registerForce(cmd)
	f.registerPolling(cmd)
	fl := cmd.Flags()
	fl.StringArrayVar(&f.alsoNormal, "also-normal", nil,
		"another normal run of the program (repeat for more): what changes between the normal runs is noise, and a trace is a suspect only where it changed clearly more than that")
	fl.StringSliceVar(&f.filters, "filters", nil, "filters to sweep, comma-separated (default: every preset that keeps calls in these runs)")
	fl.IntSliceVar(&f.ks, "k", rank.DefaultKs, "values of K (longest loop body) to sweep")
	fl.StringSliceVar(&f.attrs, "attrs", modeNames(fca.Modes()), "attribute modes to sweep")
	fl.StringSliceVar(&f.linkages, "linkage", linkageNames(rank.DefaultLinkages),
		"linkages to sweep: single, complete, average, weighted, centroid, median, ward, or all")
	fl.StringVar(&f.custom, "custom", "", "a regular expression of function names added to every filter (e.g. CPU_Exec)")
	fl.StringVarP(&f.out, "output", "o", "", "write the page to this file (.html; .json for the values) instead of standard output")
	fl.IntVar(&f.shown, "rows", 8, "best rows whose matrices, dendrograms and lattices the page holds (the suggested view's row is added)")
	fl.IntVar(&f.diffs, "diffs", 6, "suspects whose diffNLR the page holds, the suggested one first (it always)")
	filterSpecs(cmd, "filters")
	completeJoined(cmd, "attrs", ",", attrModes)
	completeJoined(cmd, "linkage", ",", linkages)
	return cmd
}

func (f *reportFlags) run(cmd *cobra.Command, args []string) error {
	grid, err := f.grid()
	if err != nil {
		return err
	}
	if f.shown < 0 || f.diffs < 0 {
		return fmt.Errorf("--rows and --diffs take 0 or more")
	}
	format := report.HTML
	if hasExt(f.out, ".json") {
		format = report.JSON
	}
	c, err := f.openComparison(cmd, append(args[:2:2], f.alsoNormal...))
	if err != nil {
		return err
	}
	// The output first: an -o that cannot be written fails before the
	// sweep.
	out, err := createOutput(f.out, cmd.OutOrStdout(), args...)
	if err != nil {
		return err
	}
	defer out.Abort()
	// The ranking, and the hang analysis when the faulty run hung.
	rk, hung, err := hang.Sweep(c, grid)
	if err != nil {
		return err
	}
	rpt, err := f.build(c, rk, hung, args)
	if err != nil {
		return err
	}
	if err := report.Write(out, rpt, report.Options{Format: format}); err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	if f.out != "" && f.out != "-" {
		fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", f.out)
	}
	return nil
}

// build assembles the report of a ranking.
func (f *reportFlags) build(c *rank.Comparison, rk *rank.Ranking, hung *hang.Report, args []string) (*report.Report, error) {
	rpt := &report.Report{
		Title:   trace.Printable(c.RunLabel(rank.Normal) + " vs " + c.RunLabel(rank.Faulty)),
		Version: version, Traces: len(c.IDs), Processes: len(c.Processes()),
	}
	rpt.Runs = reportRuns(c)
	report.FromRanking(rpt, rk)
	rpt.Hang = report.FromHang(hung)

	// The NLRs of every filter and K of the ranking, recognised once: the
	// precomputed rows and the diffNLRs' views take them.
	nlrs, err := recognizeRanking(c, rk)
	if err != nil {
		return nil, err
	}
	nlrOf := func(filter string, k int) (*rank.NLR, error) {
		for _, n := range nlrs {
			if n.Filter.Name() == filter && n.K == k {
				return n, nil
			}
		}
		return nil, fmt.Errorf("report: no NLR for filter %s, K %d", filter, k)
	}

	// The rows to precompute: the best ones, and the suggested view's.
	var rows []int
	for i := range min(f.shown, len(rpt.Rows)) {
		rows = append(rows, i)
	}
	suggested := -1
	if v := rk.Suggestion; v != nil {
		suggested = slices.IndexFunc(rk.Rows, func(r rank.Row) bool { return r.Filter == v.Filter && r.K == v.K })
		if suggested >= 0 {
			rpt.Rows[suggested].Suggested = true
			if !slices.Contains(rows, suggested) {
				rows = append(rows, suggested)
			}
		}
	}
	for i := range rpt.Rows {
		rpt.Rows[i].Commands = f.rowCommands(args, rpt.Rows[i])
	}
	if err := report.Precompute(rpt, rows, nlrOf); err != nil {
		return nil, err
	}
	for i := range rpt.Combinations {
		cb := &rpt.Combinations[i]
		cb.Commands = rpt.Rows[cb.Row].Commands
	}
	rpt.Precomputed = precomputedText(len(rows), len(rpt.Rows), f.shown, suggested, len(rk.AlsoNormal) > 0)

	// The diffNLRs: the suggested trace, then the consensus's leaders.
	targets := diffTargets(c, rk, f.diffs)
	broadest := ""
	if len(rk.Filters) > 0 {
		broadest = rk.Filters[len(rk.Filters)-1]
	}
	fold := func(specs []string, ks []int) ([]*rank.NLR, error) {
		var out []*rank.NLR
		for _, s := range specs {
			for _, k := range ks {
				n, err := nlrOf(s, k)
				if err != nil {
					return nil, err
				}
				out = append(out, n)
			}
		}
		return out, nil
	}
	for _, id := range targets {
		v, source, err := reportView(rk, id, broadest, fold)
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue
		}
		n, err := nlrOf(v.Filter, v.K)
		if err != nil {
			return nil, err
		}
		d, err := reportDiff(c, n, id, source)
		if err != nil {
			return nil, err
		}
		d.Command = f.diffCommand(args, id, v.Filter, v.K)
		rpt.Diffs = append(rpt.Diffs, d)
	}
	rpt.Verdict = verdict(rpt, rk)
	rpt.Commands = f.commands(args, rpt, rk, hung != nil)
	return rpt, nil
}

// recognizeRanking recognises the loops of every trace under each filter
// and K of the ranking, as the sweep did.
func recognizeRanking(c *rank.Comparison, rk *rank.Ranking) ([]*rank.NLR, error) {
	fs := make([]*filters.Filter, len(rk.Filters))
	for i, spec := range rk.Filters {
		var err error
		if fs[i], err = filters.Parse(spec); err != nil {
			return nil, fmt.Errorf("filter %q: %v", spec, err)
		}
	}
	return c.Recognize(fs, rk.Ks)
}

// precomputedText says which rows the page precomputed: the best ones
// (best of them asked for), and the suggested view's row (suggested, -1
// for none) when it is not among them.
func precomputedText(n, total, best, suggested int, noise bool) string {
	var b strings.Builder
	best = min(best, total)
	extra := suggested >= best
	switch {
	case n == 0:
		b.WriteString("No row's matrices, dendrograms and lattices are precomputed (--rows 0, and no suggested view)")
	case n == total:
		fmt.Fprintf(&b, "The matrices, dendrograms and lattices are precomputed for all %d rows", n)
	case best > 0 && extra:
		fmt.Fprintf(&b, "The matrices, dendrograms and lattices are precomputed for %d of the %d rows: the %d best and row %d, the suggested view's", n, total, best, suggested+1)
	case extra:
		fmt.Fprintf(&b, "The matrices, dendrograms and lattices are precomputed for row %d of the %d, the suggested view's", suggested+1, total)
	default:
		fmt.Fprintf(&b, "The matrices, dendrograms and lattices are precomputed for the %d best of the %d rows", n, total)
	}
	if n < total {
		b.WriteString("; a click on another row shows the commands that draw its pictures (difftrace jsm and difftrace lattice)")
	}
	b.WriteString(".")
	if noise {
		b.WriteString(" The page's matrices leave out what varies between the normal runs, as the ranking does; difftrace jsm, which takes one pair of runs, does not.")
	}
	return b.String()
}

// diffTargets returns the traces whose diffNLR the page holds, most of
// them: the suggested one (always: the verdict quotes its first
// difference), then the consensus's leaders (processes when every process
// has one thread, as the suggestion names them).
func diffTargets(c *rank.Comparison, rk *rank.Ranking, most int) []trace.ID {
	var out []trace.ID
	add := func(id trace.ID) {
		if len(out) < most && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	if v := rk.Suggestion; v != nil {
		out = append(out, v.Trace) // the verdict's, always
	}
	single := len(c.IDs) == len(c.Processes())
	for _, v := range rk.ThreadVotes {
		if v.Listed == 0 {
			break
		}
		id := v.ID
		if single {
			id = id.Process()
		}
		add(id)
	}
	return out
}

// reportView chooses the view of id's diffNLR as "difftrace diffnlr ID"
// after "difftrace rank" does (pickView): the suggested view for the
// suggested trace, else rank.Suggest over the ranking's rows, else the
// best-ranked row's filter and K. source says which, as diffnlr's header
// does.
func reportView(rk *rank.Ranking, id trace.ID, broadest string, fold rank.Fold) (*rank.View, string, error) {
	if v := rk.Suggestion; v != nil && v.Trace == id {
		return v, fmt.Sprintf("the clearest diff among the ranking's rows where %s is %s", id, viewWhy(v)), nil
	}
	v, ok, err := rank.Suggest(rk.Rows, id, broadest, fold)
	if err != nil {
		return nil, "", err
	}
	if ok {
		return &v, fmt.Sprintf("the clearest diff among the ranking's rows where %s is %s", id, viewWhy(&v)), nil
	}
	best, ok := rk.Best()
	if !ok {
		return nil, "", nil
	}
	return &rank.View{Trace: id, Filter: best.Filter, K: best.K},
		fmt.Sprintf("best-ranked, B-score %.3f; no filter of the ranking shows a change in the calls of %s", best.BScore, id), nil
}

// reportDiff is the diffNLR of id under n as "difftrace diffnlr" prints it
// (with its default abridging), as values: the same picture
// (diffPicture), first differences (firstDifferences) and text
// (diffnlr.Picture.WriteText), each loop line given its body.
func reportDiff(c *rank.Comparison, n *rank.NLR, id trace.ID, source string) (report.Diff, error) {
	d := report.Diff{Trace: id.String(), Header: fmt.Sprintf("diffNLR(%s): filter %s, K %d (%s)", id, n.Filter.Name(), n.K, source)}
	dn, err := c.DiffNLR(n, id, diffnlr.Abridge{Context: 3, Changed: 8, Changes: 20}) // diffnlr's defaults
	if err != nil {
		return d, err
	}
	pic := dn.Picture
	for _, ch := range n.RunWide {
		d.Notes = append(d.Notes, "run-wide, left out (every process of the faulty run shows it): "+ellipsis(trace.Printable(ch.Format(n.Table, n.Names())), 100))
	}
	if len(dn.Empty) > 0 && len(dn.Threads) > 1 {
		d.Notes = append(d.Notes, "no call kept in either run: threads "+strings.Join(dn.Empty, ", "))
	}
	for _, l := range dn.Loops {
		d.Loops = append(d.Loops, trace.Printable(l))
	}
	var text bytes.Buffer
	if err := pic.WriteText(&text, false); err != nil {
		return d, err
	}
	lines := strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n")
	// The notes (first differences) come before the diff's header lines.
	head := slices.Index(lines, "--- normal")
	if head < 0 || head+1 >= len(lines) {
		return d, fmt.Errorf("diffNLR(%s): unexpected text", id)
	}
	d.First = lines[:head]
	budget := maxBodyNodes
	for _, l := range lines[head+2:] {
		d.Lines = append(d.Lines, diffLine(n, l, &budget))
	}
	return d, nil
}

// maxBodyNodes bounds the elements of loop bodies a diff unfolds, and
// maxBodyLen those of one body.
const (
	maxBodyNodes = 4000
	maxBodyLen   = 200
	maxBodyDepth = 8
)

// loopLabel is how diffnlr writes a loop element: "L3^16".
var loopLabel = regexp.MustCompile(`^L(\d+)\^\d+`)

// diffLine reads one line of diffnlr's text: its sign, the element, the
// note beside a changed loop and the mark where a faulty trace ended;
// a loop gets its body.
func diffLine(n *rank.NLR, l string, budget *int) report.DiffLine {
	if strings.HasPrefix(l, "@@ ") {
		return report.DiffLine{Kind: "head", Text: l}
	}
	dl := report.DiffLine{Kind: "common", Sign: "  "}
	switch {
	case strings.HasPrefix(l, "- "):
		dl.Kind, dl.Sign = "normal", "- "
	case strings.HasPrefix(l, "+ "):
		dl.Kind, dl.Sign = "faulty", "+ "
	case strings.HasPrefix(l, "  (") && strings.HasSuffix(l, ")"):
		return report.DiffLine{Kind: "note", Text: strings.TrimSpace(l)}
	}
	rest := strings.TrimPrefix(l, dl.Sign)
	if i := strings.LastIndex(rest, "  <- "); i >= 0 {
		rest, dl.End = rest[:i], rest[i+len("  <- "):]
	}
	m := loopLabel.FindStringSubmatch(rest)
	if m == nil {
		dl.Text = rest
		return dl
	}
	dl.Text = m[0]
	if note := strings.TrimPrefix(rest[len(m[0]):], "  "); strings.HasPrefix(note, "(") && strings.HasSuffix(note, ")") {
		dl.Note = note[1 : len(note)-1]
	} else {
		dl.Text = rest
	}
	id, err := strconv.Atoi(m[1])
	if err == nil && id < n.Table.Len() {
		dl.Body = loopBody(n, int32(id), 1, budget)
	}
	return dl
}

// loopBody unfolds the body of loop id, loops within it too, within the
// budget.
func loopBody(n *rank.NLR, id int32, depth int, budget *int) []report.Node {
	body := n.Table.Body(id)
	names := n.Names()
	var out []report.Node
	for i, e := range body {
		if i == maxBodyLen || *budget <= 0 {
			out = append(out, report.Node{Text: fmt.Sprintf("… %d more", len(body)-i), More: len(body) - i})
			break
		}
		*budget--
		nd := report.Node{Text: trace.Printable(e.Format(names))}
		if e.IsLoop() && depth < maxBodyDepth {
			nd.Body = loopBody(n, e.Loop, depth+1, budget)
		}
		out = append(out, nd)
	}
	return out
}

// verdict says whom to suspect and why, from the ranking (as rank's "how
// it changed" does) and the suspect's diffNLR.
func verdict(rpt *report.Report, rk *rank.Ranking) report.Verdict {
	v := report.Verdict{Diff: -1}
	rows := len(rk.Rows)
	noNoise := "Only one normal run was given, so there is no noise floor: if the program varies by itself (receives from any source, dynamic schedules, work stealing), record the normal run once more and give it with --also-normal."
	switch s := rk.Suggestion; {
	case s != nil:
		what := "trace"
		if s.Trace.IsProcess() {
			what = "process"
		}
		v.Suspect = s.Trace.String()
		v.Headline = fmt.Sprintf("Look at %s %s first.", what, s.Trace)
		v.View = fmt.Sprintf("filter %s, K %d", s.Filter, s.K)
		if len(rpt.Diffs) > 0 && rpt.Diffs[0].Trace == v.Suspect {
			v.Diff = 0
			v.First = rpt.Diffs[0].First
		}
		votes, line := rk.ThreadVotes, rpt.Consensus.ThreadLine
		if s.Trace.IsProcess() {
			votes, line = rk.ProcessVotes, rpt.Consensus.ProcessLine
		}
		if i := slices.IndexFunc(votes, func(x rank.Vote) bool { return x.ID == s.Trace }); i >= 0 {
			why := fmt.Sprintf("%s was the top suspect in %d and a suspect in %d of the %d combinations", votes[i].ID, votes[i].First, votes[i].Listed, rows)
			if top := rank.Top(votes); len(top) != 1 || top[0].ID != s.Trace {
				why += "; " + line
			}
			v.Why = append(v.Why, why+".")
		} else {
			v.Why = append(v.Why, line+".")
		}
		if best, ok := rk.Best(); ok {
			v.Why = append(v.Why, fmt.Sprintf("The best-ranked combination (filter %s, K %d, %s, %s linkage) has B-score %.3f (1: the traces cluster as in the normal run; lower: the bug changed how they cluster).",
				best.Filter, best.K, best.Attrs, best.Linkage, best.BScore))
		}
		v.Why = append(v.Why, fmt.Sprintf("Its diffNLR is shown under filter %s, K %d: the clearest diff among the rows where %s is %s (%s).",
			s.Filter, s.K, s.Trace, viewWhy(s), plural(uint64(s.Changes), "changed element")))
		if s.Culprit != "" {
			v.Why = append(v.Why, fmt.Sprintf("The faulty run did not end normally, and in a hang the ranks left waiting change as much as the one that caused it: %s is the first suspect of the hang analysis (%s).",
				s.Trace, trace.Printable(s.Culprit)))
		} else if s.Parted {
			v.Why = append(v.Why, fmt.Sprintf("The faulty run did not end normally, and in a hang the ranks left waiting change as much as the one that caused it: %s is the first of the leading traces whose calls part from its normal run while both go on; the others only stopped earlier.", s.Trace))
		}
		if s.CountsOnly {
			v.Why = append(v.Why, fmt.Sprintf("Only loop counts changed in %s.", s.Trace))
		}
		if len(rk.AlsoNormal) > 0 {
			v.Why = append(v.Why, noiseSentence(rk, s))
		} else {
			v.Why = append(v.Why, noNoise)
		}
	case rk.NoClearSuspect != "":
		v.Unclear = true
		v.Headline = "No clear suspect."
		v.Why = append(v.Why, "No clear suspect: "+trace.Printable(rk.NoClearSuspect)+"; no diff is suggested.", rpt.Consensus.ThreadLine+".")
		if len(rk.AlsoNormal) == 0 {
			v.Why = append(v.Why, noNoise)
		}
		v.Why = append(v.Why, "The diffNLRs of the leading traces are below all the same.")
	case len(rk.ThreadVotes) > 0 && rk.ThreadVotes[0].First > 0:
		v.Unclear = true
		v.Headline = fmt.Sprintf("No filter shows a change in the calls of %s.", rk.ThreadVotes[0].ID)
		v.Why = append(v.Why, rpt.Consensus.ThreadLine+"; its similarity to the other traces changed, not its own calls.")
	case len(rk.RunWide) > 0:
		v.Unclear = true
		v.Headline = "No trace stands out."
		v.Why = append(v.Why, "Apart from the run-wide changes, every trace made the same calls in both runs (a bug that changes values but not calls does not show in call traces).")
	default:
		v.Unclear = true
		v.Headline = "No trace stands out."
		v.Why = append(v.Why, "Every trace made the same calls in both runs (a bug that changes values but not calls does not show in call traces).")
	}
	return v
}

// noiseSentence says how far the suspect's change stands above its noise
// floor in the suggested view's best row.
func noiseSentence(rk *rank.Ranking, s *rank.View) string {
	n := len(rk.AlsoNormal)
	if n < 2 {
		return "Noise: what changes between the 2 normal runs does not count (a count that varies carries no frequency, an attribute that comes and goes is left out); with three normal runs or more each trace would also get a noise floor."
	}
	runs := fmt.Sprintf("%d normal runs", n+1)
	for _, r := range rk.Rows {
		if r.Filter != s.Filter || r.K != s.K {
			continue
		}
		sus := r.Threads
		if s.Trace.IsProcess() {
			sus = r.Processes
		}
		for _, x := range sus {
			if x.ID == s.Trace {
				return fmt.Sprintf("Noise: with %s, %s changed %.3f in the row filter %s, K %d, %s, %s, against a noise floor of %.3f (how much a normal run still differs from the others); a trace is a suspect only where it changed at least %d times its floor.",
					runs, x.ID, x.Score, r.Filter, r.K, r.Attrs, r.Linkage, x.Floor, rank.NoiseFactor)
			}
		}
	}
	return fmt.Sprintf("Noise: %s set the noise floors; what changes between the normal runs does not count.", runs)
}

// reportRuns describes the runs of the comparison.
func reportRuns(c *rank.Comparison) []report.Run {
	var out []report.Run
	for r, run := range c.Runs {
		role := "normal"
		switch {
		case r == rank.Faulty:
			role = "faulty"
		case r > rank.Faulty:
			role = "normal (noise floors)"
		}
		rr := report.Run{Role: role, Dir: trace.Printable(run.Dir), Program: trace.Printable(strings.Join(programs(run), ", "))}
		if m := run.Manifest; m != nil {
			rr.Command = trace.Printable(strings.Join(m.Command, " "))
			if !m.Start.IsZero() {
				rr.Started = m.Start.Format("2006-01-02 15:04:05 MST")
				if !m.End.IsZero() {
					rr.Took = m.End.Sub(m.Start).Round(1e6).String()
				}
			}
		}
		lo, hi := -1, 0
		for _, p := range run.Procs {
			rr.Traces += len(p.Threads)
			if lo < 0 || len(p.Threads) < lo {
				lo = len(p.Threads)
			}
			hi = max(hi, len(p.Threads))
		}
		threads := plural(uint64(hi), "thread")
		if lo != hi {
			threads = fmt.Sprintf("%d–%d threads", lo, hi)
		}
		rr.Shape = fmt.Sprintf("%s × %s (%s)", plural(uint64(len(run.Procs)), "process"), threads, plural(uint64(rr.Traces), "trace"))
		rr.Endings = endings(run)
		out = append(out, rr)
	}
	return out
}

// endings groups the ranks of a run by how they ended.
func endings(run *decode.Run) []report.Ending {
	var order []string
	ranks := map[string][]int{}
	bad := map[string]bool{}
	for _, p := range run.Procs {
		how := ended(p.Rank)
		if ranks[how] == nil {
			order = append(order, how)
		}
		ranks[how] = append(ranks[how], p.Index)
		bad[how] = p.Rank == nil || p.Rank.Ending() != ""
	}
	var out []report.Ending
	for _, how := range order {
		out = append(out, report.Ending{How: trace.Printable(how), Ranks: rankList(ranks[how]), Bad: bad[how]})
	}
	return out
}

// The commands that reproduce the page's parts.

// commonFlags are the reading flags every command of the page repeats.
func (f *reportFlags) commonFlags(twoRuns bool) []string {
	var out []string
	if f.exactPolling {
		out = append(out, "--exact-polling")
	}
	if f.signatures {
		out = append(out, "--signatures")
	}
	if f.mixedPrograms {
		out = append(out, "--mixed-programs")
	}
	if f.force && twoRuns {
		out = append(out, "--force")
	}
	return out
}

// gridFlags are the grid's flags as given.
func (f *reportFlags) gridFlags() []string {
	var out []string
	for _, n := range f.alsoNormal {
		out = append(out, "--also-normal", n)
	}
	if len(f.filters) > 0 {
		out = append(out, "--filters", strings.Join(f.filters, ","))
	}
	if f.custom != "" {
		out = append(out, "--custom", f.custom)
	}
	if !slices.Equal(f.ks, rank.DefaultKs) {
		out = append(out, "--k", joinInts(f.ks))
	}
	if !slices.Equal(f.attrs, modeNames(fca.Modes())) {
		out = append(out, "--attrs", strings.Join(f.attrs, ","))
	}
	if !slices.Equal(f.linkages, linkageNames(rank.DefaultLinkages)) {
		out = append(out, "--linkage", strings.Join(f.linkages, ","))
	}
	return out
}

func (f *reportFlags) rowCommands(args []string, r report.Row) []string {
	view := []string{"--filter", r.Filter, "--k", strconv.Itoa(r.K), "--attrs", r.Attrs}
	jsm := shellLine(append(append(append([]string{"difftrace", "jsm", args[0], args[1]}, view...), f.commonFlags(true)...), "-o", "jsm.svg")...)
	latN := shellLine(append(append(append([]string{"difftrace", "lattice", args[0]}, view...), f.commonFlags(false)...), "-o", "lattice-normal.svg")...)
	latF := shellLine(append(append(append([]string{"difftrace", "lattice", args[1]}, view...), f.commonFlags(false)...), "-o", "lattice-faulty.svg")...)
	row := append([]string{"difftrace", "rank", args[0], args[1], "--filters", r.Filter, "--k", strconv.Itoa(r.K), "--attrs", r.Attrs, "--linkage", r.Linkage}, f.commonFlags(true)...)
	for _, n := range f.alsoNormal {
		row = append(row, "--also-normal", n)
	}
	return []string{
		jsm + "    # the three matrices",
		latN + "    # the normal run's lattice",
		latF + "    # the faulty run's lattice (its loops numbered as in that run alone)",
		shellLine(append(row, "--no-session")...) + "    # the row's B-score and suspects",
	}
}

func (f *reportFlags) diffCommand(args []string, id trace.ID, filter string, k int) string {
	line := []string{"difftrace", "diffnlr", id.String(), "--normal", args[0], "--faulty", args[1]}
	for _, n := range f.alsoNormal {
		line = append(line, "--also-normal", n)
	}
	line = append(line, "--filter", filter, "--k", strconv.Itoa(k))
	return shellLine(append(line, f.commonFlags(true)...)...)
}

func (f *reportFlags) commands(args []string, rpt *report.Report, rk *rank.Ranking, hung bool) []report.Command {
	rankLine := append(append([]string{"difftrace", "rank", args[0], args[1]}, f.gridFlags()...), f.commonFlags(true)...)
	out := []report.Command{{What: "the ranking, the consensus and the suggestion", Line: shellLine(rankLine...)}}
	if rk.Suggestion != nil {
		out = append(out, report.Command{What: "then the suggested diffNLR (rank saves its session in .difftrace/)", Line: "difftrace diffnlr " + rk.Suggestion.Trace.String()})
	}
	if hung {
		out = append(out, report.Command{What: "the hang analysis", Line: shellLine(append([]string{"difftrace", "hang", args[1], args[0]}, f.commonFlags(false)...)...)})
	}
	for _, d := range rpt.Diffs {
		out = append(out, report.Command{What: "the diffNLR of " + d.Trace + " (-o diffnlr.svg draws it)", Line: d.Command})
	}
	if len(rpt.Rows) > 0 {
		r := rpt.Rows[0]
		out = append(out, report.Command{What: fmt.Sprintf("the matrices, lattices and B-score of row 1 (filter %s, K %d, %s, %s); every row's are under its combination above", r.Filter, r.K, r.Attrs, r.Linkage),
			Line: strings.Join(r.Commands, "\n")})
	}
	page := append(append([]string{"difftrace", "report", args[0], args[1]}, f.gridFlags()...), f.commonFlags(true)...)
	if f.shown != 8 {
		page = append(page, "--rows", strconv.Itoa(f.shown))
	}
	if f.diffs != 6 {
		page = append(page, "--diffs", strconv.Itoa(f.diffs))
	}
	name := "report.html"
	if f.out != "" && f.out != "-" {
		name = filepath.Base(f.out)
	}
	out = append(out, report.Command{What: "this page", Line: shellLine(append(page, "-o", name)...)})
	return out
}

// shellLine joins words into a command line a POSIX shell reads back as
// those words.
func shellLine(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellQuote(w)
	}
	return trace.Printable(strings.Join(q, " "))
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=,+@%-]+$`)

func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
