package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/hang"
	"github.com/difftrace/difftrace/report"
)

type hangFlags struct {
	analysisFlags
	format string
	rows   int
	outs   []string
}

func newHangCmd() *cobra.Command {
	var f hangFlags
	cmd := command("hang RUN [NORMAL] [-o classes.svg|.png|.dot|.json]...", "Say where the ranks of a hung run stopped, how far each got, and whom to suspect",
		runArgs(1, 2), completeRunDirs(1), func(cmd *cobra.Command, args []string) error { return f.run(cmd, args) })
	f.register(cmd)
	f.registerFilter(cmd, hang.DefaultFilter)
	f.registerK(cmd)
	cmd.Flags().StringVar(&f.format, "format", "text", "text or json")
	cmd.Flags().IntVar(&f.rows, "rows", 20, "progress rows to print (0: all)")
	cmd.Flags().StringArrayVarP(&f.outs, "output", "o", nil, "draw the classes to this file (.svg, .png, .dot) or write the report (.json); repeatable")
	completeWords(cmd, "format", "text", "json")
	return cmd
}

func (f *hangFlags) run(cmd *cobra.Command, args []string) error {
	p, err := f.parse()
	if err != nil {
		return err
	}
	if f.format != "text" && f.format != "json" {
		return fmt.Errorf("--format %s: give text or json", f.format)
	}
	doc := &report.HangAnalysis{Rows: f.rows}
	formats, err := checkFiles(doc, f.outs)
	if err != nil {
		return err
	}
	c, err := f.openComparison(cmd, hang.Runs(args[0], args[1:]...))
	if err != nil {
		return err
	}
	if doc.Analysis, err = hang.Analyze(c, hang.Options{Filter: p.Filter, K: p.K}); err != nil {
		return err
	}
	printNotes(cmd, c.Notes()...)
	if err := writeOut(cmd, doc, report.Format(f.format)); err != nil {
		return err
	}
	return writeFiles(cmd, doc, f.outs, formats, args)
}
