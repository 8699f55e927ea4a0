package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/report"
	"github.com/difftrace/difftrace/session"
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
	doc := &report.Outliers{Shown: f.rows, TopN: f.top, AllRows: "--rows 0"}
	return emit(cmd, f.out, format, []string{dir}, func() (report.Document, error) { return doc.Analyze(c, grid) })
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
	ab, color, formats, err := f.check(cmd, &report.PeerDiffNLR{})
	if err != nil {
		return err
	}
	d, err := session.Given([]string{f.faulty}, f.Filter, f.K).PeerDiff(id, against, ab, func(runs []string) (*compare.Comparison, error) { return f.openComparison(cmd, runs) }, func(notes ...string) { printNotes(cmd, notes...) })
	if err != nil {
		return param.Flags(err, paramFlags)
	}
	empty := ""
	if len(d.Empty) > 0 {
		empty = fmt.Sprintf("filter %s keeps no call of %s or %s; try another --filter", d.NLR.Filter.Name(), id, against)
	}
	return f.show(cmd, d, report.NewPeerDiffNLR(d, against), empty, color, formats, []string{f.faulty})
}
