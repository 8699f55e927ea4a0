package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// NLRs is the result of "difftrace nlr": the nested-loop representation
// of chosen traces of one run, or of a normal and a faulty run, under one
// filter and K, with the bodies of the loops they use. Names are as the
// traces hold them; the text escapes them (trace.Printable).
type NLRs struct {
	Filter string     `json:"filter"`
	K      int        `json:"k"`
	Runs   []string   `json:"runs"` // the runs' directories, the normal run first
	Traces []TraceNLR `json:"traces"`
	// Loops define the loops the traces use: "L0 = [MPI_Send, MPI_Recv]".
	Loops []string `json:"loops"`
}

// TraceNLR is one trace of one run.
type TraceNLR struct {
	Trace string `json:"trace"`
	// Run is "run" with one run, else "normal" or "faulty".
	Run string `json:"run"`
	// Exists is false for a trace of the comparison that this run lacks.
	Exists     bool   `json:"exists"`
	Calls      uint64 `json:"calls"`      // the calls the filter kept
	Iterations uint64 `json:"iterations"` // the loop iterations completed
	NLR        string `json:"nlr"`        // "MPI_Init, L0^4, MPI_Finalize"
}

// NewNLRs lists the traces ids of c (each in every run, in turn) as n
// folded them.
func NewNLRs(c *compare.Comparison, n *compare.NLR, ids []trace.ID) *NLRs {
	names := n.Names()
	labels := []string{"run"}
	if len(c.Runs) > 1 {
		labels = []string{"normal", "faulty"}
	}
	d := &NLRs{Filter: n.Filter.Name(), K: n.K}
	for _, run := range c.Runs {
		d.Runs = append(d.Runs, run.Dir)
	}
	var used []nlr.Sequence
	for _, id := range ids {
		i, _ := c.Index(id)
		for r := range c.Runs {
			seq := n.Recorded(r, i)
			used = append(used, seq)
			d.Traces = append(d.Traces, TraceNLR{
				Trace: id.String(), Run: labels[r], Exists: c.Has(r, i),
				Calls: n.Kept[r][i], Iterations: n.Table.Iterations(seq), NLR: seq.Format(names),
			})
		}
	}
	d.Loops = n.Table.Legend(names, used...)
	if d.Loops == nil {
		d.Loops = []string{}
	}
	return d
}

func (*NLRs) defaultFormat() Format { return Text }
func (*NLRs) name() string          { return "the NLRs" }

// writeText writes a table, a row per trace and run, and the loops.
func (d *NLRs) writeText(out io.Writer, _ Options) error {
	fmt.Fprintf(out, "filter %s, K = %d\n", d.Filter, d.K)
	two := len(d.Runs) > 1
	if two {
		for r, dir := range d.Runs {
			fmt.Fprintf(out, "%s run: %s\n", []string{"normal", "faulty"}[r], dir)
		}
	}
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	if two {
		fmt.Fprintln(tw, "TRACE\tRUN\tCALLS\tITER\tNLR")
	} else {
		fmt.Fprintln(tw, "TRACE\tCALLS\tITER\tNLR")
	}
	for _, t := range d.Traces {
		// Printable of the whole NLR is Printable of each name in it:
		// names are set apart by ", " and brackets.
		text := trace.Printable(t.NLR)
		if !t.Exists {
			text = "(no such trace in this run)"
		}
		if two {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", t.Trace, t.Run, t.Calls, t.Iterations, text)
		} else {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", t.Trace, t.Calls, t.Iterations, text)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(d.Loops) > 0 {
		fmt.Fprintf(out, "\nloops:\n")
		for _, l := range d.Loops {
			fmt.Fprintf(out, "  %s\n", trace.Printable(l))
		}
	}
	return nil
}
