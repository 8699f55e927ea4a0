package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/cluster"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/hang"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

type rankFlags struct {
	readFlags
	filters   []string
	ks        []int
	attrs     []string
	linkages  []string
	custom    string
	format    string
	out       string
	rows      int
	top       int
	noSession bool
	// alsoNormal are further normal runs: they set the noise floors.
	alsoNormal []string
}

func newRankCmd() *cobra.Command {
	var f rankFlags
	cmd := &cobra.Command{
		Use:   "rank NORMAL FAULTY",
		Short: "Rank the traces a bug changed most, over a sweep of filters, K, attributes and linkages",
		Long: `rank compares a normal and a faulty run of the same program (the DiffTrace
dissertation, §3.2.6, §3.3.3): for every combination of filter × K × attribute mode × linkage it
builds both runs' Jaccard similarity matrices, JSM_D = |JSM_faulty −
JSM_normal|, clusters each run's traces (distance 1 − JSM) and scores how
much the clustering changed with the B-score B_k (Fowlkes–Mallows; 1 = the
same clustering, lower = the bug changed it more; k = the number of distinct
attribute sets in the normal run, clipped to [2, n−1]).

The table lists the combinations by ascending B-score, like Tables 3.6–3.9 of
the DiffTrace dissertation, each with its top processes and threads: the ones whose JSM_D
rows changed most. A trace's score is the mean change of its similarity to
every other trace; the suspects are those scoring at least half the highest
score, most changed first (equal scores: the one whose loop iterations
changed more first). Processes are analysed with their threads' attributes
merged (the union). The consensus closes the table: which trace was first
(most suspicious) in how many combinations, and in how many it was listed.

The default grid: every filter preset that keeps calls in these runs (a
preset that keeps the same calls as an earlier one is left out), K = 10,
the six attribute modes, and the linkages ward, average, complete and
single. --custom adds a regular expression to every filter. Filter presets:

` + filterHelp() + `
Real programs vary from run to run by themselves: receives from any source,
dynamic schedules, work stealing, polling. Polling never counts (a stretch of
MPI_Test, MPI_Iprobe, poll or sched_yield calls reads as its calls once
each; --exact-polling counts them). For the rest, record the normal run two
or more times and give the others with --also-normal: what differs between
the normal runs is noise — a count that varies carries no frequency, an
attribute that comes and goes is left out, and a faulty trace that made the
same calls as in any normal run did nothing new. With three normal runs or
more, each trace also gets a noise floor (how much a normal run still
differs after learning from the others), and is a suspect only where its
change is at least twice its floor; the table shows the top thread's score
and floor.

Any run may be given as its summary (difftrace summarize, which reads a large
run in parallel under the MPI launcher): the ranking is the same.

rank remembers the runs and parameters in .difftrace/ (session.json and
ranking.json, in the current directory), so "difftrace diffnlr 5" can follow
without repeating them.`,
		Example: `  difftrace rank testdata/runs/oddeven-normal testdata/runs/oddeven-swapbug
  difftrace diffnlr 5
  difftrace rank normal/ faulty/ --filters mpi,omp.crit+mem --custom CPU_Exec --attrs sing.noFreq,doub.log10
  difftrace rank normal/ faulty/ --linkage ward --k 10,50 --format json -o ranking.json
  difftrace rank normal-1/ faulty/ --also-normal normal-2/ --also-normal normal-3/`,
		Args:              runArgs(2, 2),
		ValidArgsFunction: completeRunDirs,
		RunE: func(cmd *cobra.Command, args []string) error {
			grid, err := f.grid()
			if err != nil {
				return err
			}
			switch f.format {
			case "table", "json", "csv":
			default:
				return fmt.Errorf("--format %q: want table, json or csv", f.format)
			}
			if f.rows < 0 || f.top < 0 {
				return fmt.Errorf("--rows and --top take 0 (all) or more")
			}
			c, err := f.openComparison(cmd, append(args[:2:2], f.alsoNormal...))
			if err != nil {
				return err
			}
			// The output first: an -o that cannot be written fails before
			// the sweep.
			out, err := createOutput(f.out, cmd.OutOrStdout(), args...)
			if err != nil {
				return err
			}
			defer out.Abort()
			// A faulty run that hung gets the hang analysis too: where
			// each rank stopped and whom to suspect, the first suspect
			// being the trace whose diffNLR rank suggests.
			rk, hung, err := hang.Sweep(c, grid)
			if err != nil {
				return err
			}
			switch f.format {
			case "table":
				writeRankTable(out, c, rk, hung, &f)
			case "json":
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(struct {
					*rank.Ranking
					Hang *hang.Report `json:"hang,omitempty"`
				}{rk, hung}); err != nil {
					return err
				}
			case "csv":
				if err := writeRankCSV(out, rk); err != nil {
					return err
				}
			}
			if err := out.Commit(); err != nil {
				return err
			}
			if f.noSession {
				return nil
			}
			s, err := f.session(args, rk)
			if err != nil {
				return err
			}
			return saveSession(s, rk, cmd.ErrOrStderr())
		},
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
	fl.StringVar(&f.format, "format", "table", "table (aligned, for the terminal), json or csv")
	fl.StringVarP(&f.out, "output", "o", "", "write to this file instead of standard output")
	fl.IntVar(&f.rows, "rows", 20, "rows of the table to show (0: all); json and csv have all")
	fl.IntVar(&f.top, "top", 5, "suspects to show per cell (0: all)")
	fl.BoolVar(&f.noSession, "no-session", false, "do not write .difftrace/ in the current directory")
	filterSpecs(cmd, "filters")
	completeJoined(cmd, "attrs", ",", attrModes)
	completeJoined(cmd, "linkage", ",", linkages)
	completeWords(cmd, "format", "table", "json", "csv")
	return cmd
}

// grid checks the flags and builds the parameter grid.
func (f *rankFlags) grid() (rank.Grid, error) {
	var g rank.Grid
	var err error
	if len(f.filters) == 0 {
		if g.Filters, err = rank.DefaultFilters(f.custom); err != nil {
			return g, fmt.Errorf("--custom: %v", err)
		}
		g.Prune = true
	}
	for _, spec := range f.filters {
		flt, err := filters.Parse(rank.WithCustom(strings.TrimSpace(spec), f.custom))
		if err != nil {
			return g, fmt.Errorf("--filters: %v", err)
		}
		g.Filters = append(g.Filters, flt)
	}
	for _, k := range f.ks {
		if k < 1 || k > nlr.MaxK {
			return g, fmt.Errorf("--k %d: the longest loop body must be between 1 and %d (10 is usual)", k, nlr.MaxK)
		}
		g.Ks = appendNew(g.Ks, k)
	}
	for _, a := range f.attrs {
		m, err := fca.ParseMode(strings.TrimSpace(a))
		if err != nil {
			return g, fmt.Errorf("--attrs: %v", err)
		}
		g.Modes = appendNew(g.Modes, m)
	}
	for _, l := range f.linkages {
		if strings.EqualFold(strings.TrimSpace(l), "all") {
			for _, m := range cluster.Methods() {
				g.Linkages = appendNew(g.Linkages, m)
			}
			continue
		}
		m, err := cluster.ParseMethod(strings.TrimSpace(l))
		if err != nil {
			return g, fmt.Errorf("--linkage %q: want %s, or all", l, strings.Join(linkageNames(cluster.Methods()), ", "))
		}
		g.Linkages = appendNew(g.Linkages, m)
	}
	switch {
	case len(g.Ks) == 0:
		return g, fmt.Errorf("--k: give at least one value")
	case len(g.Modes) == 0:
		return g, fmt.Errorf("--attrs: give at least one mode")
	case len(g.Linkages) == 0:
		return g, fmt.Errorf("--linkage: give at least one linkage")
	}
	return g, nil
}

func appendNew[T comparable](s []T, v T) []T {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

func modeNames(ms []fca.Mode) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.String())
	}
	return out
}

func linkageNames(ms []cluster.Method) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.String())
	}
	return out
}

// session returns what diffnlr needs to follow this ranking.
func (f *rankFlags) session(args []string, rk *rank.Ranking) (*session, error) {
	s := &session{Schema: sessionSchema, Filters: rk.Filters, Custom: f.custom, Ks: rk.Ks, Attrs: rk.Attrs, Linkages: rk.Links}
	var err error
	if s.Normal, err = filepath.Abs(args[0]); err != nil {
		return nil, err
	}
	if s.Faulty, err = filepath.Abs(args[1]); err != nil {
		return nil, err
	}
	for _, d := range f.alsoNormal {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, err
		}
		s.AlsoNormal = append(s.AlsoNormal, abs)
	}
	s.ExactPolling = f.exactPolling
	if best, ok := rk.Best(); ok {
		s.Best = &best
	}
	s.Suggestion = rk.Suggestion
	if len(rk.ThreadVotes) > 0 {
		s.TopThread = rk.ThreadVotes[0].ID.String()
	}
	if len(rk.ProcessVotes) > 0 {
		s.TopProcess = rk.ProcessVotes[0].ID.String()
	}
	return s, nil
}

// suspectList writes up to top suspects (0: all) as "5, 4, 6" and "+n" for
// the rest.
func suspectList(sus []rank.Suspect, top int) string {
	if len(sus) == 0 {
		return "-"
	}
	var parts []string
	for i, s := range sus {
		if top > 0 && i == top {
			parts = append(parts, fmt.Sprintf("+%d", len(sus)-top))
			break
		}
		parts = append(parts, s.ID.String())
	}
	return strings.Join(parts, ", ")
}

func writeRankTable(out io.Writer, c *rank.Comparison, rk *rank.Ranking, hung *hang.Report, f *rankFlags) {
	procs := len(c.Processes())
	fmt.Fprintf(out, "normal  %s\n", rk.Normal)
	for _, d := range rk.AlsoNormal {
		fmt.Fprintf(out, "normal  %s (noise floors)\n", d)
	}
	fmt.Fprintf(out, "faulty  %s\n", rk.Faulty)
	fmt.Fprintf(out, "traces  %d threads in %d processes\n", len(c.IDs), procs)
	if len(rk.OnlyNormal) > 0 {
		fmt.Fprintf(out, "only in the normal run: %s (compared as traces with no calls in the faulty run)\n", strings.Join(rk.OnlyNormal, ", "))
	}
	if len(rk.OnlyFaulty) > 0 {
		fmt.Fprintf(out, "only in the faulty run: %s (compared as traces with no calls in the normal run)\n", strings.Join(rk.OnlyFaulty, ", "))
	}
	fmt.Fprintf(out, "grid    %d filters × K %s × %d attribute modes × %d linkages = %d combinations\n",
		len(rk.Filters), joinInts(rk.Ks), len(rk.Attrs), len(rk.Links), len(rk.Rows))
	fmt.Fprintf(out, "        filters: %s\n", strings.Join(rk.Filters, ", "))
	var none []string
	same := map[string][]string{}
	var sameOrder []string
	for _, d := range rk.Dropped {
		if d.SameAs == "" {
			none = append(none, d.Filter)
			continue
		}
		if same[d.SameAs] == nil {
			sameOrder = append(sameOrder, d.SameAs)
		}
		same[d.SameAs] = append(same[d.SameAs], d.Filter)
	}
	if len(none) > 0 {
		fmt.Fprintf(out, "        left out, no call kept in these runs: %s\n", strings.Join(none, ", "))
	}
	for _, s := range sameOrder {
		fmt.Fprintf(out, "        left out, same calls as %s: %s\n", s, strings.Join(same[s], ", "))
	}
	for _, n := range rk.Notes {
		fmt.Fprintf(out, "note: %s\n", trace.Printable(n))
	}
	writeRunWide(out, rk.RunWide)
	if hung != nil {
		hung.WriteBrief(out)
	}
	out.Write([]byte("\n"))

	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	floors := len(rk.AlsoNormal) > 0
	head := "FILTER\tK\tATTRIBUTES\tLINKAGE\tB-SCORE\tTOP PROCESSES\tTOP THREADS"
	if floors {
		head += "\tSCORE/FLOOR"
	}
	fmt.Fprintln(tw, head)
	shown := len(rk.Rows)
	if f.rows > 0 {
		shown = min(shown, f.rows)
	}
	for _, r := range rk.Rows[:shown] {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%.3f\t%s\t%s", r.Filter, r.K, r.Attrs, r.Linkage, r.BScore,
			suspectList(r.Processes, f.top), suspectList(r.Threads, f.top))
		if floors {
			if len(r.Threads) > 0 {
				fmt.Fprintf(tw, "\t%.3f/%.3f", r.Threads[0].Score, r.Threads[0].Floor)
			} else {
				fmt.Fprintf(tw, "\t-")
			}
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	if shown < len(rk.Rows) {
		fmt.Fprintf(out, "… %d more rows (--rows 0 shows all)\n", len(rk.Rows)-shown)
	}
	writeConsensus(out, "threads", rk.ThreadVotes, len(rk.Rows))
	writeConsensus(out, "processes", rk.ProcessVotes, len(rk.Rows))
	switch v := rk.Suggestion; {
	case v != nil:
		why := viewWhy(v)
		fmt.Fprintf(out, "\nhow it changed: difftrace diffnlr %s\n", v.Trace)
		if v.Why == "stopped" {
			fmt.Fprintf(out, "        (filter %s, K %d: %s made the calls of its normal run and stopped inside the last one)\n", v.Filter, v.K, v.Trace)
		} else {
			fmt.Fprintf(out, "        (filter %s, K %d: the clearest diff among the rows where %s is %s, %s)\n",
				v.Filter, v.K, v.Trace, why, plural(uint64(v.Changes), "changed element"))
		}
		if v.CountsOnly {
			fmt.Fprintf(out, "        Only loop counts changed in %s. If the program varies by itself (receives from any source, dynamic\n"+
				"        schedules, work stealing), record the normal run once more and give it with --also-normal: what\n"+
				"        changes between normal runs then counts as noise.\n", v.Trace)
		}
		if v.Culprit != "" {
			fmt.Fprintf(out, "        The faulty run did not end normally, and in a hang the ranks left waiting change as much as\n"+
				"        the one that caused it: %s is the first suspect of the hang analysis above.\n", v.Trace)
		} else if v.Parted {
			fmt.Fprintf(out, "        The faulty run did not end normally, and in a hang the ranks left waiting change as much as\n"+
				"        the one that caused it: %s is the first of the leading traces whose calls part from its normal\n"+
				"        run while both go on; the others only stopped earlier.\n", v.Trace)
		}
	case rk.NoClearSuspect != "":
		fmt.Fprintf(out, "\nhow it changed: no clear suspect: %s; no diff is suggested.\n", rk.NoClearSuspect)
		if len(rk.AlsoNormal) == 0 {
			fmt.Fprintf(out, "        If the program varies by itself (receives from any source, dynamic schedules, work stealing),\n"+
				"        record the normal run once more and give it with --also-normal: what changes between normal runs\n"+
				"        then counts as noise. diffnlr still shows the diff of a trace you name.\n")
		} else {
			fmt.Fprintf(out, "        diffnlr still shows the diff of a trace you name.\n")
		}
	case len(rk.ThreadVotes) > 0 && rk.ThreadVotes[0].First > 0:
		fmt.Fprintf(out, "\nhow it changed: no filter shows a change in the calls of %s\n", rk.ThreadVotes[0].ID)
	case len(rk.RunWide) > 0:
		fmt.Fprintf(out, "\nhow it changed: no trace stands out; apart from the run-wide changes above, every trace made the same calls in both runs (a bug that changes values but not calls does not show in call traces)\n")
	default:
		fmt.Fprintf(out, "\nhow it changed: no trace stands out; every trace made the same calls in both runs (a bug that changes values but not calls does not show in call traces)\n")
	}
}

// viewWhy says which rows a suggested view comes from.
func viewWhy(v *rank.View) string {
	return map[string]string{"first": "the top suspect", "listed": "a suspect", "changed": "changed"}[v.Why]
}

func writeConsensus(out io.Writer, level string, votes []rank.Vote, rows int) {
	fmt.Fprintf(out, "\nconsensus, %s: ", level)
	if len(votes) == 0 || votes[0].First == 0 {
		fmt.Fprintf(out, "no combination found a suspect (the runs look alike under every parameter)\n")
		return
	}
	top := rank.Top(votes)
	var ids []string
	for _, v := range top {
		ids = append(ids, v.ID.String())
	}
	if len(top) == 1 {
		fmt.Fprintf(out, "%s was the most suspicious in %d of %d combinations\n", ids[0], top[0].First, rows)
	} else {
		fmt.Fprintf(out, "%s tie: each was the most suspicious in %d of %d combinations\n", strings.Join(ids, ", "), top[0].First, rows)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  TRACE\tFIRST\tLISTED")
	for _, v := range votes[:min(len(votes), 5)] {
		fmt.Fprintf(tw, "  %s\t%d\t%d\n", v.ID, v.First, v.Listed)
	}
	tw.Flush()
}

func joinInts(ks []int) string {
	var s []string
	for _, k := range ks {
		s = append(s, strconv.Itoa(k))
	}
	return strings.Join(s, ",")
}

func writeRankCSV(out io.Writer, rk *rank.Ranking) error {
	w := csv.NewWriter(out)
	w.Write([]string{"filter", "k", "attrs", "linkage", "bscore", "clusters", "process_bscore", "process_clusters", "top_processes", "top_threads"})
	ids := func(sus []rank.Suspect) string {
		var s []string
		for _, x := range sus {
			s = append(s, x.ID.String())
		}
		return strings.Join(s, " ")
	}
	for _, r := range rk.Rows {
		w.Write([]string{r.Filter, strconv.Itoa(r.K), r.Attrs, r.Linkage,
			strconv.FormatFloat(r.BScore, 'f', 6, 64), strconv.Itoa(r.Clusters),
			strconv.FormatFloat(r.ProcessBScore, 'f', 6, 64), strconv.Itoa(r.ProcessClusters),
			ids(r.Processes), ids(r.Threads)})
	}
	w.Flush()
	return w.Error()
}

// completeRunDirs completes two run-directory arguments.
func completeRunDirs(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 1 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveFilterDirs
}

// writeRunWide reports the changes every process of the faulty run shows
// alike, once per filter and K, each change shortened to a line.
func writeRunWide(out io.Writer, rws []rank.RunWide) {
	if len(rws) == 0 {
		return
	}
	fmt.Fprintf(out, "run-wide changes: every process of the faulty run shows them alike (its command line, say), so they point at no trace and no row counts them\n")
	for _, rw := range rws {
		more := ""
		if len(rw.Changes) > 1 {
			more = fmt.Sprintf(" (and %d more)", len(rw.Changes)-1)
		}
		fmt.Fprintf(out, "        %s, K %d: %s%s\n", rw.Filter, rw.K, ellipsis(trace.Printable(rw.Changes[0]), 100), more)
	}
}

// ellipsis cuts s to at most n runes, ending in "…" when it cut.
func ellipsis(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
