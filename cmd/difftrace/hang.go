package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/draw"
	"github.com/difftrace/difftrace/draw/hangtree"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/hang"
	"github.com/difftrace/difftrace/internal/outfile"
	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/rank"
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
	cmd := &cobra.Command{
		Use:   "hang RUN [NORMAL] [-o classes.svg|.png|.dot|.json]...",
		Short: "Say where the ranks of a hung run stopped, how far each got, and whom to suspect",
		Long:  help("hang"),
		Example: `  difftrace hang testdata/runs/stencil-skipbug testdata/runs/stencil-normal
  difftrace hang dlbug/ -o classes.svg
  difftrace hang faulty/ normal/ --format json`,
		Args:              runArgs(1, 2),
		ValidArgsFunction: completeRunDir,
		RunE:              func(cmd *cobra.Command, args []string) error { return f.run(cmd, args) },
	}
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
	flt, err := f.check()
	if err != nil {
		return err
	}
	// The normal run comes first in a comparison.
	dirs := args[:1]
	if len(args) == 2 {
		dirs = []string{args[1], args[0]}
	}
	c, err := f.openComparison(cmd, dirs)
	if err != nil {
		return err
	}
	rep, err := hang.Analyze(c, hang.Options{Filter: flt, K: f.k})
	if err != nil {
		return err
	}
	printNotes(cmd, c.Notes())
	doc := &report.HangAnalysis{Analysis: rep, Rows: f.rows}
	out, err := outfile.Create("", cmd.OutOrStdout())
	if err != nil {
		return err
	}
	if err := report.Write(out, doc, report.Options{Format: report.Format(f.format)}); err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	return outfile.WriteAll(cmd.ErrOrStderr(), f.outs, args, func(i int, o *outfile.File) error {
		if hasExt(f.outs[i], ".json") {
			return report.Write(o, doc, report.Options{Format: report.JSON})
		}
		format, _ := draw.FormatOf(f.outs[i])
		pic, err := hangtree.Draw(rep, format)
		if err != nil {
			return fmt.Errorf("drawing %s: %v", f.outs[i], err)
		}
		_, err = o.Write(pic)
		return err
	})
}

// check checks the flags and returns the filter.
func (f *hangFlags) check() (*filters.Filter, error) {
	flt, err := filters.Parse(f.filter)
	if err != nil {
		return nil, fmt.Errorf("--filter: %v", err)
	}
	if err := rank.CheckK(f.k); err != nil {
		return nil, param.Flags(err, gridFlags)
	}
	if f.format != "text" && f.format != "json" {
		return nil, fmt.Errorf("--format %s: give text or json", f.format)
	}
	for _, o := range f.outs {
		if !hasExt(o, ".json") {
			if _, err := draw.FormatOf(o); err != nil {
				return nil, fmt.Errorf("-o %s: %v (or .json for the report)", o, err)
			}
		}
	}
	return flt, nil
}

// hasExt reports whether path ends in ext, in any case.
func hasExt(path, ext string) bool {
	return len(path) >= len(ext) && strings.EqualFold(path[len(path)-len(ext):], ext)
}
