package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/hang"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

// Ranking is the result of "difftrace rank": the ranking of a sweep and,
// when the faulty run hung, the hang analysis. Its text is the table
// (the runs, the grid, the run-wide changes, the hang section, the rows,
// the consensus and where to look next), its CSV one line per row, its
// JSON the ranking with the hang analysis as "hang".
type Ranking struct {
	*rank.Ranking
	Hang *hang.Report // nil when the faulty run did not hang

	// Traces and Processes count the objects compared (the union of the
	// runs' trace IDs), for the table's header.
	Traces, Processes int
	// SuspectShare is the cut the sweep listed suspects at
	// (rank.Grid.SuspectShare); 0 or rank.SuspectShare, the default, is
	// not shown.
	SuspectShare float64

	// Shown is how many rows the table shows (0: all), TopN how many
	// suspects per cell (0: all); CSV and JSON have everything.
	Shown, TopN int
	// AllRows and AlsoNormal are how the command asks for every row
	// ("--rows 0") and for another normal run ("--also-normal"), named in
	// the table's advice.
	AllRows, AlsoNormal string
}

// Sweep ranks the traces of the runs c opened over grid (rank.Sweep) into
// d, with the hang analysis when the faulty run hung (where each rank
// stopped and whom to suspect, the first suspect being the trace whose
// diffNLR the ranking suggests), and the counts and the cut of its header.
func (d *Ranking) Sweep(c *compare.Comparison, grid rank.Grid) (*Ranking, error) {
	d.Traces, d.Processes, d.SuspectShare = len(c.IDs), len(c.Processes()), grid.SuspectShare
	var err error
	d.Ranking, d.Hang, err = rank.Sweep(c, grid)
	return d, err
}

func (*Ranking) defaultFormat() Format { return Text }
func (*Ranking) name() string          { return "the ranking" }

// writeJSON writes the ranking's fields with the hang analysis as "hang".
func (d *Ranking) writeJSON(w io.Writer, _ Options) error {
	var share float64
	if d.SuspectShare != rank.SuspectShare {
		share = d.SuspectShare
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		*rank.Ranking
		SuspectShare float64      `json:"suspect_share,omitempty"`
		Hang         *hang.Report `json:"hang,omitempty"`
	}{d.Ranking, share, d.Hang})
}

// writeCSV writes one line per row of the ranking, every suspect listed.
func (d *Ranking) writeCSV(w io.Writer, _ Options) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"filter", "k", "attrs", "linkage", "bscore", "clusters", "process_bscore", "process_clusters", "top_processes", "top_threads"})
	ids := func(sus []rank.Suspect) string {
		var s []string
		for _, x := range sus {
			s = append(s, x.ID.String())
		}
		return strings.Join(s, " ")
	}
	for _, r := range d.Rows {
		cw.Write([]string{r.Filter, strconv.Itoa(r.K), r.Attrs, r.Linkage,
			strconv.FormatFloat(r.BScore, 'f', 6, 64), strconv.Itoa(r.Clusters),
			strconv.FormatFloat(r.ProcessBScore, 'f', 6, 64), strconv.Itoa(r.ProcessClusters),
			ids(r.Processes), ids(r.Threads)})
	}
	cw.Flush()
	return cw.Error()
}

// writeText writes the table. Like every text form here it leaves the
// errors of w to the caller, who flushes it.
func (d *Ranking) writeText(out io.Writer, _ Options) error {
	rk := d.Ranking
	d.writeHeader(out)
	if d.Hang != nil {
		(&HangBrief{Analysis: d.Hang}).writeText(out, Options{})
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
	if d.Shown > 0 {
		shown = min(shown, d.Shown)
	}
	for _, r := range rk.Rows[:shown] {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%.3f\t%s\t%s", r.Filter, r.K, r.Attrs, r.Linkage, r.BScore,
			suspectList(r.Processes, d.TopN), suspectList(r.Threads, d.TopN))
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
		fmt.Fprintf(out, "… %d more rows (%s shows all)\n", len(rk.Rows)-shown, d.AllRows)
	}
	writeConsensus(out, "threads", rk.ThreadVotes, len(rk.Rows))
	writeConsensus(out, "processes", rk.ProcessVotes, len(rk.Rows))
	d.writeNext(out)
	return nil
}

// writeHeader writes what was compared and how: the runs, the traces, the
// grid and the filters left out of it, the notes and the run-wide changes.
func (d *Ranking) writeHeader(out io.Writer) {
	rk := d.Ranking
	fmt.Fprintf(out, "normal  %s\n", rk.Normal)
	for _, dir := range rk.AlsoNormal {
		fmt.Fprintf(out, "normal  %s (noise floors)\n", dir)
	}
	fmt.Fprintf(out, "faulty  %s\n", rk.Faulty)
	fmt.Fprintf(out, "traces  %d threads in %d processes\n", d.Traces, d.Processes)
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
	for _, dr := range rk.Dropped {
		if dr.SameAs == "" {
			none = append(none, dr.Filter)
			continue
		}
		if same[dr.SameAs] == nil {
			sameOrder = append(sameOrder, dr.SameAs)
		}
		same[dr.SameAs] = append(same[dr.SameAs], dr.Filter)
	}
	if len(none) > 0 {
		fmt.Fprintf(out, "        left out, no call kept in these runs: %s\n", strings.Join(none, ", "))
	}
	for _, s := range sameOrder {
		fmt.Fprintf(out, "        left out, same calls as %s: %s\n", s, strings.Join(same[s], ", "))
	}
	if d.SuspectShare != 0 && d.SuspectShare != rank.SuspectShare {
		fmt.Fprintf(out, "        suspects: the traces scoring at least %g of the highest score\n", d.SuspectShare)
	}
	for _, n := range rk.Notes {
		fmt.Fprintf(out, "note: %s\n", trace.Printable(n))
	}
	writeRunWide(out, rk.RunWide)
}

// writeNext says where to look next: the suggested diffNLR, or why there
// is none.
func (d *Ranking) writeNext(out io.Writer) {
	rk := d.Ranking
	switch v := rk.Suggestion; {
	case v != nil:
		fmt.Fprintf(out, "\nhow it changed: difftrace diffnlr %s\n", v.Trace)
		if v.Why == "stopped" {
			fmt.Fprintf(out, "        (filter %s, K %d: %s made the calls of its normal run and stopped inside the last one)\n", v.Filter, v.K, v.Trace)
		} else {
			fmt.Fprintf(out, "        (filter %s, K %d: the clearest diff among the rows where %s is %s, %s)\n",
				v.Filter, v.K, v.Trace, ViewWhy(v), Count(uint64(v.Changes), "changed element"))
		}
		if v.CountsOnly {
			fmt.Fprintf(out, "        Only loop counts changed in %s. If the program varies by itself (receives from any source, dynamic\n"+
				"        schedules, work stealing), record the normal run once more and give it with %s: what\n"+
				"        changes between normal runs then counts as noise.\n", v.Trace, d.AlsoNormal)
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
				"        record the normal run once more and give it with %s: what changes between normal runs\n"+
				"        then counts as noise. diffnlr still shows the diff of a trace you name.\n", d.AlsoNormal)
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

// ViewWhy says which rows a suggested view comes from: "the top suspect",
// "a suspect" or "changed" (rank.View.Why "first", "listed", "changed").
func ViewWhy(v *rank.View) string {
	return map[string]string{"first": "the top suspect", "listed": "a suspect", "changed": "changed"}[v.Why]
}

// suspectList writes up to top suspects (0: all) as "5, 4, 6" and "+n" for
// the rest, "-" for none.
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

// writeConsensus writes which object of the level was first in most of
// the rows, and the five most voted.
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
		fmt.Fprintf(out, "        %s, K %d: %s%s\n", rw.Filter, rw.K, clip(trace.Printable(rw.Changes[0]), 100), more)
	}
}
