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
	"github.com/difftrace/difftrace/outlier"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

// Outliers is the result of "difftrace rank RUN" with one run: the
// run's behaviour classes and roles, the ranking of the traces that stand
// apart from their peers over the grid, the suspects each diffed against
// its nearest class-mate, and how far each trace got. Its JSON is the
// analysis as it is, every row included.
type Outliers struct {
	Analysis *outlier.Report
	// Shown is how many rows the table shows (0: all); TopN how many
	// suspects per row.
	Shown, TopN int
	// AllRows is the flag that shows every row ("--rows 0").
	AllRows string
}

// Analyze compares the traces of the one run c opened with one another
// over grid (outlier.Analyze) into o.
func (o *Outliers) Analyze(c *compare.Comparison, grid rank.Grid) (*Outliers, error) {
	var err error
	o.Analysis, err = outlier.Analyze(c, grid)
	return o, err
}

func (*Outliers) defaultFormat() Format { return Text }
func (*Outliers) name() string          { return "one-run ranking" }

func (o *Outliers) writeJSON(w io.Writer, _ Options) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(o.Analysis)
}

// writeCSV writes one line per row and suspect.
func (o *Outliers) writeCSV(w io.Writer, _ Options) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"filter", "k", "attrs", "linkage", "classes", "roles", "position", "suspect", "score", "peer", "similarity"}); err != nil {
		return err
	}
	for _, r := range o.Analysis.Rows {
		base := []string{r.Filter, strconv.Itoa(r.K), r.Attrs, r.Linkage, strconv.Itoa(r.Classes), strconv.Itoa(r.Roles)}
		if len(r.Suspects) == 0 {
			if err := cw.Write(append(base, "", "", "", "", "")); err != nil {
				return err
			}
		}
		for i, s := range r.Suspects {
			if err := cw.Write(append(base, strconv.Itoa(i+1), s.ID.String(), fmtScore(s.Score), s.Peer.String(), fmtScore(s.Similarity))); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func fmtScore(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

func (o *Outliers) writeText(w io.Writer, _ Options) error {
	a := o.Analysis
	var b strings.Builder
	fmt.Fprintf(&b, "run       %s (alone: its traces are compared with one another)\n", trace.Printable(a.Run))
	fmt.Fprintf(&b, "traces    %d in %d %s\n", a.Traces, a.Processes, outPlural(a.Processes, "process", "processes"))
	fmt.Fprintf(&b, "grid      filters %s × K %s × %s × %s: %d combinations\n",
		trace.Printable(strings.Join(a.Filters, ", ")), outJoinK(a.Ks), strings.Join(a.Attrs, ", "), strings.Join(a.Links, ", "), len(a.Rows))
	for _, n := range a.Notes {
		fmt.Fprintf(&b, "note: %s\n", trace.Printable(n))
	}

	fmt.Fprintf(&b, "\nbehaviour classes (filter %s, K %d, %s), largest first:\n", trace.Printable(a.ClassView.Filter), a.ClassView.K, a.ClassView.Attrs)
	for _, cl := range a.Classes {
		fmt.Fprintf(&b, "  %s\n", trace.Printable(cl.Text()))
	}

	with := 0
	for _, r := range a.Rows {
		if len(r.Suspects) > 0 {
			with++
		}
	}
	fmt.Fprintf(&b, "\ntraces apart from their peers: %d of %d combinations find some\n", with, len(a.Rows))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FILTER\tK\tATTRS\tLINKAGE\tCLASSES\tROLES\tAPART (height; nearest class-mate)")
	shown := 0
	for _, r := range a.Rows {
		if o.Shown > 0 && shown == o.Shown {
			break
		}
		shown++
		var sus []string
		for i, s := range r.Suspects {
			if o.TopN > 0 && i == o.TopN {
				sus = append(sus, fmt.Sprintf("+%d", len(r.Suspects)-o.TopN))
				break
			}
			sus = append(sus, fmt.Sprintf("%s (%.3f; %s)", s.ID, s.Score, s.Peer))
		}
		cell := strings.Join(sus, ", ")
		if cell == "" {
			cell = "-"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%d\t%s\n", trace.Printable(r.Filter), r.K, r.Attrs, r.Linkage, r.Classes, r.Roles, cell)
	}
	tw.Flush()
	if shown < len(a.Rows) {
		more := ""
		if o.AllRows != "" {
			more = " (" + o.AllRows + " shows all)"
		}
		fmt.Fprintf(&b, "… %d more rows%s\n", len(a.Rows)-shown, more)
	}

	if len(a.Votes) > 0 {
		fmt.Fprintf(&b, "\nconsensus: %s was the first apart from its peers in %d of %d combinations\n", a.Votes[0].ID, a.Votes[0].First, with)
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  TRACE\tFIRST\tLISTED")
		for i, v := range a.Votes {
			if i == 5 {
				fmt.Fprintf(tw, "  … %d more\t\t\n", len(a.Votes)-5)
				break
			}
			fmt.Fprintf(tw, "  %s\t%d\t%d\n", v.ID, v.First, v.Listed)
		}
		tw.Flush()
	}

	b.WriteString("\nsuspects:\n")
	if len(a.Suspects) == 0 {
		fmt.Fprintf(&b, "  none: %s\n", trace.Printable(a.NoSuspect))
	}
	for _, s := range a.Suspects {
		fmt.Fprintf(&b, "  %s  %s; class-mate %s (similarity %.2f under %s, K %d, %s)\n",
			s.ID, trace.Printable(s.Reason), s.Peer, s.Similarity, trace.Printable(s.View.Filter), s.View.K, s.View.Attrs)
		if s.Difference != "" {
			fmt.Fprintf(&b, "      %s\n", trace.Printable(strings.Replace(s.Difference, "first difference:", "first difference from "+s.Peer.String()+":", 1)))
		}
		fmt.Fprintf(&b, "      %s\n", trace.Printable(s.Command))
	}

	if p := a.Progress; p != nil {
		fmt.Fprintf(&b, "\nprogress (filter %s, K %d): loop iterations at the top level, by position, and who lags\n", trace.Printable(p.Filter), p.K)
		for _, g := range p.Groups {
			if g.Loop == "" {
				fmt.Fprintf(&b, "  %-30s %s: no loop\n", g.Position, trace.Printable(listIDs(g.Traces)))
				continue
			}
			fmt.Fprintf(&b, "  %-30s %s: %d %s for most (%s)\n", g.Position, trace.Printable(listIDs(g.Traces)), g.Usual, outPluralU(g.Usual, "iteration", "iterations"), g.Loop)
		}
		if len(p.Lags) == 0 {
			b.WriteString("  nobody lags behind its peers\n")
		}
		for _, l := range p.Lags {
			fmt.Fprintf(&b, "  lags: %s\n", l.Text())
		}
		if len(p.Loops) > 0 {
			b.WriteString("  loops:\n")
			for _, l := range p.Loops {
				fmt.Fprintf(&b, "    %s\n", trace.Printable(l))
			}
		}
	}
	if a.Hang != nil {
		b.WriteString("\n")
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
		b.Reset()
		if err := (&HangBrief{Analysis: a.Hang}).writeText(w, Options{}); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func outPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func outPluralU(n uint64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func outJoinK(ks []int) string {
	var s []string
	for _, k := range ks {
		s = append(s, strconv.Itoa(k))
	}
	return strings.Join(s, ",")
}

// listIDs writes trace IDs compactly (trace.List).
func listIDs(ids []trace.ID) string { return trace.List(ids) }
