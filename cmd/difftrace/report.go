package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/hang"
	"github.com/difftrace/difftrace/internal/outfile"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/report"
	"github.com/difftrace/difftrace/trace"
)

type reportFlags struct {
	rankFlags
	// shown is how many of the best rows get their matrices, dendrograms
	// and lattices in the page; diffs how many suspects their diffNLR.
	shown, diffs int
}

func newReportCmd() *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:   "report NORMAL FAULTY [-o report.html]",
		Short: "Write the whole comparison as one self-contained HTML page: verdict, ranking, matrices, dendrograms, lattices and diffNLRs",
		Long: `report ranks the traces as "difftrace rank" does, over the same grid of
filters × K × attribute modes × linkages, and writes everything on one HTML
page that needs nothing else to be read (no network, no other file):

  verdict      the suspect, where its runs first part (the first line of
               "difftrace diffnlr" under the suggested view) and why: which
               combinations, the hang analysis, the noise floor; or "no
               clear suspect" and why;
  runs         program, command lines, ranks × threads, how each rank ended,
               and for a run that hung where each trace stopped and who
               waited for whom;
  ranking      the table of combinations by B-score, sortable and filterable,
               and the consensus;
  combination  for a row you click: the Jaccard similarity matrices of both
               runs and their difference on one colour scale, both runs'
               dendrograms cut into the row's clusters, and both concept
               lattices. These are precomputed for the --rows best rows and
               the row of the suggested view; any other row shows the
               commands that draw its pictures;
  diffNLR      the diffs of the top suspects (--diffs), each under its own
               clearest view, loops unfolding on a click;
  reproduce    the commands that give each part on the terminal.

Runs with more than 512 traces get summarised matrices (blocks of traces)
and dendrograms (on at most 128 classes); the page says so.

-o writes the page to a file (standard output without it); a name ending in
.json writes the report's values as JSON instead.`,
		Example: `  difftrace report testdata/runs/stencil-normal testdata/runs/stencil-skipbug -o report.html
  difftrace report normal/ faulty/ --also-normal normal-2/ --rows 12 -o report.html
  difftrace report normal/ faulty/ --filters mpi,omp --linkage ward -o report.json`,
		Args:              runArgs(2, 2),
		ValidArgsFunction: completeRunDirs,
		RunE:              func(cmd *cobra.Command, args []string) error { return f.run(cmd, args) },
	}
	f.registerGrid(cmd)
	fl := cmd.Flags()
	fl.StringVarP(&f.out, "output", "o", "", "write the page to this file (.html; .json for the values) instead of standard output")
	fl.IntVar(&f.shown, "rows", 8, "best rows whose matrices, dendrograms and lattices the page holds (the suggested view's row is added)")
	fl.IntVar(&f.diffs, "diffs", 6, "suspects whose diffNLR the page holds, the suggested one first (it always)")
	return cmd
}

func (f *reportFlags) run(cmd *cobra.Command, args []string) error {
	grid, format, err := f.check()
	if err != nil {
		return err
	}
	c, err := f.openComparison(cmd, append(args[:2:2], f.alsoNormal...))
	if err != nil {
		return err
	}
	// The output first: an -o that cannot be written fails before the
	// sweep.
	out, err := outfile.Create(f.out, cmd.OutOrStdout(), args...)
	if err != nil {
		return err
	}
	defer out.Abort()
	// The ranking, and the hang analysis when the faulty run hung.
	rk, hung, err := hang.Sweep(c, grid)
	if err != nil {
		return err
	}
	rpt, err := report.NewPage(c, rk, hung, report.PageOptions{Version: version, Rows: f.shown, Diffs: f.diffs,
		RowCommands: func(r report.Row) []string { return f.rowCommands(args, r) },
		DiffCommand: func(id trace.ID, filter string, k int) string { return f.diffCommand(args, id, filter, k) }})
	if err != nil {
		return err
	}
	rpt.Commands = f.commands(args, rpt, rk, hung != nil)
	if err := report.Write(out, rpt, report.Options{Format: format}); err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	if f.out != "" && f.out != "-" {
		fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", f.out)
	}
	return nil
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
	if hasExt(f.out, ".json") {
		return grid, report.JSON, nil
	}
	return grid, report.HTML, nil
}

// The commands that reproduce the page's parts.

// commonFlags are the reading flags every command of the page repeats.
func (f *reportFlags) commonFlags(twoRuns bool) []string {
	var out []string
	if f.exactPolling {
		out = append(out, "--exact-polling")
	}
	if f.signatures {
		out = append(out, "--signatures")
	}
	if f.mixedPrograms {
		out = append(out, "--mixed-programs")
	}
	if f.force && twoRuns {
		out = append(out, "--force")
	}
	return out
}

// gridFlags are the grid's flags as given.
func (f *reportFlags) gridFlags() []string {
	var out []string
	for _, n := range f.alsoNormal {
		out = append(out, "--also-normal", n)
	}
	if len(f.filters) > 0 {
		out = append(out, "--filters", strings.Join(f.filters, ","))
	}
	if f.custom != "" {
		out = append(out, "--custom", f.custom)
	}
	if !slices.Equal(f.ks, rank.DefaultKs) {
		out = append(out, "--k", joinInts(f.ks))
	}
	if !slices.Equal(f.attrs, modeNames(fca.Modes())) {
		out = append(out, "--attrs", strings.Join(f.attrs, ","))
	}
	if !slices.Equal(f.linkages, linkageNames(rank.DefaultLinkages)) {
		out = append(out, "--linkage", strings.Join(f.linkages, ","))
	}
	return append(out, f.shareFlag()...)
}

// shareFlag is --suspect-share as given, when not the default.
func (f *reportFlags) shareFlag() []string {
	if f.suspectShare == rank.SuspectShare {
		return nil
	}
	return []string{"--suspect-share", strconv.FormatFloat(f.suspectShare, 'g', -1, 64)}
}

func (f *reportFlags) rowCommands(args []string, r report.Row) []string {
	view := []string{"--filter", r.Filter, "--k", strconv.Itoa(r.K), "--attrs", r.Attrs}
	jsm := shellLine(append(append(append([]string{"difftrace", "jsm", args[0], args[1]}, view...), f.commonFlags(true)...), "-o", "jsm.svg")...)
	latN := shellLine(append(append(append([]string{"difftrace", "lattice", args[0]}, view...), f.commonFlags(false)...), "-o", "lattice-normal.svg")...)
	latF := shellLine(append(append(append([]string{"difftrace", "lattice", args[1]}, view...), f.commonFlags(false)...), "-o", "lattice-faulty.svg")...)
	row := append([]string{"difftrace", "rank", args[0], args[1], "--filters", r.Filter, "--k", strconv.Itoa(r.K), "--attrs", r.Attrs, "--linkage", r.Linkage}, f.commonFlags(true)...)
	for _, n := range f.alsoNormal {
		row = append(row, "--also-normal", n)
	}
	row = append(row, f.shareFlag()...)
	return []string{
		jsm + "    # the three matrices",
		latN + "    # the normal run's lattice",
		latF + "    # the faulty run's lattice (its loops numbered as in that run alone)",
		shellLine(append(row, "--no-session")...) + "    # the row's B-score and suspects",
	}
}

func (f *reportFlags) diffCommand(args []string, id trace.ID, filter string, k int) string {
	line := []string{"difftrace", "diffnlr", id.String(), "--normal", args[0], "--faulty", args[1]}
	for _, n := range f.alsoNormal {
		line = append(line, "--also-normal", n)
	}
	line = append(line, "--filter", filter, "--k", strconv.Itoa(k))
	return shellLine(append(line, f.commonFlags(true)...)...)
}

func (f *reportFlags) commands(args []string, rpt *report.Report, rk *rank.Ranking, hung bool) []report.Command {
	rankLine := append(append([]string{"difftrace", "rank", args[0], args[1]}, f.gridFlags()...), f.commonFlags(true)...)
	out := []report.Command{{What: "the ranking, the consensus and the suggestion", Line: shellLine(rankLine...)}}
	if rk.Suggestion != nil {
		out = append(out, report.Command{What: "then the suggested diffNLR (rank saves its session in .difftrace/)", Line: "difftrace diffnlr " + rk.Suggestion.Trace.String()})
	}
	if hung {
		out = append(out, report.Command{What: "the hang analysis", Line: shellLine(append([]string{"difftrace", "hang", args[1], args[0]}, f.commonFlags(false)...)...)})
	}
	for _, d := range rpt.Diffs {
		out = append(out, report.Command{What: "the diffNLR of " + d.Trace + " (-o diffnlr.svg draws it)", Line: d.Command})
	}
	if len(rpt.Rows) > 0 {
		r := rpt.Rows[0]
		out = append(out, report.Command{What: fmt.Sprintf("the matrices, lattices and B-score of row 1 (filter %s, K %d, %s, %s); every row's are under its combination above", r.Filter, r.K, r.Attrs, r.Linkage),
			Line: strings.Join(r.Commands, "\n")})
	}
	page := append(append([]string{"difftrace", "report", args[0], args[1]}, f.gridFlags()...), f.commonFlags(true)...)
	if f.shown != 8 {
		page = append(page, "--rows", strconv.Itoa(f.shown))
	}
	if f.diffs != 6 {
		page = append(page, "--diffs", strconv.Itoa(f.diffs))
	}
	name := "report.html"
	if f.out != "" && f.out != "-" {
		name = filepath.Base(f.out)
	}
	out = append(out, report.Command{What: "this page", Line: shellLine(append(page, "-o", name)...)})
	return out
}

// shellLine joins words into a command line a POSIX shell reads back as
// those words.
func shellLine(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellQuote(w)
	}
	return trace.Printable(strings.Join(q, " "))
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=,+@%-]+$`)

func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
