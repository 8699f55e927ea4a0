package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/report"
	"github.com/difftrace/difftrace/session"
)

type rankFlags struct {
	readFlags
	// GridSpec is the grid swept.
	rank.GridSpec
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
	cmd := command("rank NORMAL FAULTY | rank RUN", "Rank the traces a bug changed most, over a sweep of filters, K, attributes and linkages",
		runArgs(1, 2), completeRunDirs(2), func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				return f.runOne(cmd, args[0])
			}
			grid, format, err := f.parse()
			if err != nil {
				return err
			}
			c, err := f.openComparison(cmd, append(args[:2:2], f.alsoNormal...))
			if err != nil {
				return err
			}
			doc := &report.Ranking{Shown: f.rows, TopN: f.top, AllRows: "--rows 0", AlsoNormal: "--also-normal"}
			err = emit(cmd, f.out, format, args, func() (report.Document, error) { return doc.Sweep(c, grid) })
			if err != nil || f.noSession {
				return err
			}
			return session.Keep(args[0], args[1], f.alsoNormal, f.Custom, f.exactPolling, doc.Ranking, cmd.ErrOrStderr(), "pass --no-session")
		})
	f.registerGrid(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", "table", "table (aligned, for the terminal), json or csv")
	fl.StringVarP(&f.out, "output", "o", "", "write to this file instead of standard output")
	fl.IntVar(&f.rows, "rows", 20, "rows of the table to show (0: all); json and csv have all")
	fl.IntVar(&f.top, "top", 5, "suspects to show per cell (0: all)")
	fl.BoolVar(&f.noSession, "no-session", false, "do not write .difftrace/ in the current directory")
	completeWords(cmd, "format", "table", "json", "csv")
	return cmd
}

// registerGrid registers the flags rank and report share: how the runs
// are read, the further normal runs and the grid swept.
func (f *rankFlags) registerGrid(cmd *cobra.Command) {
	f.registerComparing(cmd)
	fl := cmd.Flags()
	fl.StringArrayVar(&f.alsoNormal, "also-normal", nil,
		"another normal run of the program (repeat for more): what changes between the normal runs is noise, and a trace is a suspect only where it changed clearly more than that")
	fl.StringSliceVar(&f.Filters, "filters", nil, "filters to sweep, comma-separated (default: every preset that keeps calls in these runs)")
	fl.IntSliceVar(&f.Ks, "k", rank.DefaultKs, "values of K (longest loop body) to sweep")
	fl.StringSliceVar(&f.Attrs, "attrs", rank.Names(fca.Modes()), "attribute modes to sweep")
	fl.StringSliceVar(&f.Linkages, "linkage", rank.Names(rank.DefaultLinkages),
		"linkages to sweep: single, complete, average, weighted, centroid, median, ward, or all")
	fl.StringVar(&f.Custom, "custom", "", "a regular expression of function names added to every filter (e.g. CPU_Exec)")
	fl.Float64Var(&f.SuspectShare, "suspect-share", rank.SuspectShare,
		"a trace is a suspect of a row when its score is at least this share of the row's highest score (above 0, at most 1)")
	filterSpecs(cmd, "filters")
	completeJoined(cmd, "attrs", ",", attrModes)
	completeJoined(cmd, "linkage", ",", linkages)
}

// parse checks rank's flags and returns the parameter grid and the
// output format.
func (f *rankFlags) parse() (rank.Grid, report.Format, error) {
	g, err := f.grid()
	if err != nil {
		return g, "", err
	}
	format, ok := rankFormats[f.format]
	switch {
	case !ok:
		return g, "", fmt.Errorf("--format %q: want table, json or csv", f.format)
	case f.rows < 0 || f.top < 0:
		return g, "", fmt.Errorf("--rows and --top take 0 (all) or more")
	}
	return g, format, nil
}

// grid checks the flags of the grid and builds it.
func (f *rankFlags) grid() (rank.Grid, error) {
	g, err := f.Grid()
	return g, param.Flags(err, gridFlags)
}

// gridFlags are the flags of rank.GridSpec's parameters.
var gridFlags = map[string]string{"filters": "--filters", "custom": "--custom", "K": "--k", "attrs": "--attrs", "linkage": "--linkage", "suspect share": "--suspect-share"}

// rankFormats are rank's --format values.
var rankFormats = map[string]report.Format{"table": report.Text, "json": report.JSON, "csv": report.CSV}
