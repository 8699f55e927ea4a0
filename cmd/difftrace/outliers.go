package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/draw/diffgraph"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/internal/outfile"
	"github.com/difftrace/difftrace/outlier"
	"github.com/difftrace/difftrace/report"
	"github.com/difftrace/difftrace/trace"
)

// runOne ranks the traces of one run against one another.
func (f *rankFlags) runOne(cmd *cobra.Command, dir string) error {
	if len(f.alsoNormal) > 0 {
		return fmt.Errorf("--also-normal goes with a normal and a faulty run; with one run its traces are compared with one another")
	}
	grid, format, err := f.parse()
	if err != nil {
		return err
	}
	c, err := f.openComparison(cmd, []string{dir})
	if err != nil {
		return err
	}
	out, err := outfile.Create(f.out, cmd.OutOrStdout(), dir)
	if err != nil {
		return err
	}
	defer out.Abort()
	a, err := outlier.Analyze(c, grid)
	if err != nil {
		return err
	}
	doc := &report.Outliers{Analysis: a, Shown: f.rows, TopN: f.top, AllRows: "--rows 0"}
	if err := report.Write(out, doc, report.Options{Format: format}); err != nil {
		return err
	}
	return out.Commit()
}

// runAgainst shows the diffNLR of one trace against another trace of the
// same run (diffnlr --against).
func (f *diffNLRFlags) runAgainst(cmd *cobra.Command, id trace.ID) error {
	against, err := trace.ParseID(strings.TrimSpace(f.against))
	if err != nil {
		return fmt.Errorf("--against: %w", err)
	}
	if f.normal != "" {
		return fmt.Errorf("--against compares two traces of one run: name it with --faulty, not --normal")
	}
	if f.faulty == "" {
		return fmt.Errorf("--against needs the run: name it with --faulty RUN (difftrace rank RUN suggests the whole command)")
	}
	ab, color, formats, err := f.check(cmd)
	if err != nil {
		return err
	}
	if f.filter == "" {
		f.filter = "mpi"
	}
	if f.k == 0 {
		f.k = 10
	}
	flt, err := filters.Parse(f.filter)
	if err != nil {
		return fmt.Errorf("--filter: %v", err)
	}
	c, err := f.openComparison(cmd, []string{f.faulty})
	if err != nil {
		return err
	}
	res, err := c.Recognize([]*filters.Filter{flt}, []int{f.k})
	if err != nil {
		return err
	}
	printNotes(cmd, c.Notes())
	d, err := outlier.PeerDiff(res[0], id, against, ab)
	if err != nil {
		return err
	}
	if d.NoStacks != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "note: where the first difference lies in the program is left out: %s\n", trace.Printable(d.NoStacks.Error()))
	}
	doc := report.NewPeerDiffNLR(d, against)
	if err := report.Write(cmd.OutOrStdout(), doc, report.Options{Format: report.Text, Color: color}); err != nil {
		return err
	}
	if len(d.Empty) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "note: filter %s keeps no call of %s or %s; try another --filter\n", flt.Name(), id, against)
	}
	return outfile.WriteAll(cmd.ErrOrStderr(), f.outputs, []string{f.faulty}, func(i int, out *outfile.File) error {
		if formats[i] == jsonFormat {
			return report.Write(out, doc, report.Options{Format: report.JSON})
		}
		if err := diffgraph.Render(out, d.Picture, formats[i]); err != nil {
			return fmt.Errorf("-o %s: %v", f.outputs[i], strings.TrimPrefix(err.Error(), "diffnlr: "))
		}
		return nil
	})
}
