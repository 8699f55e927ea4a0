package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/report"
)

type reportFlags struct {
	rankFlags
	// shown is how many of the best rows get their matrices, dendrograms
	// and lattices in the page; diffs how many suspects their diffNLR.
	shown, diffs int
}

func newReportCmd() *cobra.Command {
	var f reportFlags
	cmd := command("report NORMAL FAULTY [-o report.html] | report RUN [-o page.html]", "Write the whole comparison as one self-contained HTML page: verdict, ranking, matrices, dendrograms, lattices and diffNLRs",
		runArgs(1, 2), completeRunDirs(2), func(cmd *cobra.Command, args []string) error { return f.run(cmd, args) })
	f.registerGrid(cmd)
	fl := cmd.Flags()
	fl.StringVarP(&f.out, "output", "o", "", "write the page to this file (.html; .json for the values) instead of standard output")
	fl.IntVar(&f.shown, "rows", report.DefaultRows, "best rows whose matrices, dendrograms and lattices the page holds (the suggested view's row is added)")
	fl.IntVar(&f.diffs, "diffs", report.DefaultDiffs, "suspects whose diffNLR the page holds, the suggested one first (it always)")
	return cmd
}

func (f *reportFlags) run(cmd *cobra.Command, args []string) error {
	grid, format, err := f.check()
	if err != nil {
		return err
	}
	if len(args) == 1 {
		return f.runOne(cmd, args[0], grid, format)
	}
	c, err := f.openComparison(cmd, append(args[:2:2], f.alsoNormal...))
	if err != nil {
		return err
	}
	inv := f.invocation(args[0])
	inv.Faulty, inv.AlsoNormal, inv.Force, inv.Rows, inv.Diffs = args[1], f.alsoNormal, f.force, f.shown, f.diffs
	return f.emit(cmd, format, args, func() (report.Document, error) { return inv.Page(c, grid, version) })
}

// emit writes the page build returns (emit) and says where it went.
func (f *reportFlags) emit(cmd *cobra.Command, format report.Format, inputs []string, build func() (report.Document, error)) error {
	if err := emit(cmd, f.out, format, inputs, build); err != nil {
		return err
	}
	if f.out != "" && f.out != "-" {
		fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", f.out)
	}
	return nil
}

// runOne writes the page of one run's traces compared with one another.
func (f *reportFlags) runOne(cmd *cobra.Command, dir string, grid rank.Grid, format report.Format) error {
	if len(f.alsoNormal) > 0 {
		return fmt.Errorf("--also-normal goes with a normal and a faulty run; with one run its traces are compared with one another")
	}
	c, err := f.openComparison(cmd, []string{dir})
	if err != nil {
		return err
	}
	inv := f.invocation(dir)
	return f.emit(cmd, format, []string{dir}, func() (report.Document, error) { return inv.OutlierPage(c, grid, version) })
}

// check checks the flags: the grid, what the page holds and its format.
func (f *reportFlags) check() (rank.Grid, report.Format, error) {
	grid, err := f.grid()
	if err != nil {
		return grid, "", err
	}
	if f.shown < 0 || f.diffs < 0 {
		return grid, "", fmt.Errorf("--rows and --diffs take 0 or more")
	}
	if strings.EqualFold(filepath.Ext(f.out), ".json") {
		return grid, report.JSON, nil
	}
	return grid, report.HTML, nil
}

// invocation is how the page's commands repeat the flags for the run
// normal (and the faulty run, set apart).
func (f *reportFlags) invocation(normal string) *report.Invocation {
	return &report.Invocation{Normal: normal, GridSpec: f.GridSpec, ExactPolling: f.exactPolling, Signatures: f.signatures, MixedPrograms: f.mixedPrograms, Out: f.out}
}
