package report

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

// The page's defaults for its precomputed rows and its diffNLRs
// (PageOptions.Rows and Diffs): "difftrace report" takes them, and its
// commands name the others.
const (
	DefaultRows  = 8
	DefaultDiffs = 6
)

// Invocation is how "difftrace report" was asked for the page: the runs,
// and the grid and the reading options as the command line gave them. The
// commands that reproduce each part of the page repeat them.
type Invocation struct {
	Normal, Faulty string
	AlsoNormal     []string
	// GridSpec is the grid as given (nil Filters: the default); its
	// SuspectShare, the suspect cut, is not repeated when it is
	// rank.SuspectShare, the default.
	rank.GridSpec
	// The reading options: counting polling, naming C++ functions in full,
	// reading MPMD runs, comparing runs that look unrelated.
	ExactPolling, Signatures, MixedPrograms, Force bool
	// Rows and Diffs are the page's (PageOptions), Out the file it is
	// written to ("" or "-": standard output).
	Rows, Diffs int
	Out         string
}

// readFlags are the reading flags every command of the page repeats.
func (v *Invocation) readFlags(twoRuns bool) []string {
	var out []string
	if v.ExactPolling {
		out = append(out, "--exact-polling")
	}
	if v.Signatures {
		out = append(out, "--signatures")
	}
	if v.MixedPrograms {
		out = append(out, "--mixed-programs")
	}
	if v.Force && twoRuns {
		out = append(out, "--force")
	}
	return out
}

// gridFlags are the grid's flags as given.
func (v *Invocation) gridFlags() []string {
	var out []string
	for _, n := range v.AlsoNormal {
		out = append(out, "--also-normal", n)
	}
	if len(v.Filters) > 0 {
		out = append(out, "--filters", strings.Join(v.Filters, ","))
	}
	if v.Custom != "" {
		out = append(out, "--custom", v.Custom)
	}
	if !slices.Equal(v.Ks, rank.DefaultKs) {
		out = append(out, "--k", joinInts(v.Ks))
	}
	var modes []string
	for _, m := range fca.Modes() {
		modes = append(modes, m.String())
	}
	if !slices.Equal(v.Attrs, modes) {
		out = append(out, "--attrs", strings.Join(v.Attrs, ","))
	}
	var links []string
	for _, m := range rank.DefaultLinkages {
		links = append(links, m.String())
	}
	if !slices.Equal(v.Linkages, links) {
		out = append(out, "--linkage", strings.Join(v.Linkages, ","))
	}
	return append(out, v.shareFlag()...)
}

// shareFlag is --suspect-share as given, when not the default.
func (v *Invocation) shareFlag() []string {
	if v.SuspectShare == rank.SuspectShare {
		return nil
	}
	return []string{"--suspect-share", strconv.FormatFloat(v.SuspectShare, 'g', -1, 64)}
}

// RowCommands are the command lines that draw row r's pictures and give
// its B-score (PageOptions.RowCommands).
func (v *Invocation) RowCommands(r Row) []string {
	view := []string{"--filter", r.Filter, "--k", strconv.Itoa(r.K), "--attrs", r.Attrs}
	line := func(head []string, out string) string {
		return shellLine(append(append(append(head, view...), v.readFlags(len(head) == 4)...), "-o", out)...)
	}
	row := append([]string{"difftrace", "rank", v.Normal, v.Faulty, "--filters", r.Filter, "--k", strconv.Itoa(r.K), "--attrs", r.Attrs, "--linkage", r.Linkage}, v.readFlags(true)...)
	for _, n := range v.AlsoNormal {
		row = append(row, "--also-normal", n)
	}
	row = append(row, v.shareFlag()...)
	return []string{
		line([]string{"difftrace", "jsm", v.Normal, v.Faulty}, "jsm.svg") + "    # the three matrices",
		line([]string{"difftrace", "lattice", v.Normal}, "lattice-normal.svg") + "    # the normal run's lattice",
		line([]string{"difftrace", "lattice", v.Faulty}, "lattice-faulty.svg") + "    # the faulty run's lattice (its loops numbered as in that run alone)",
		shellLine(append(row, "--no-session")...) + "    # the row's B-score and suspects",
	}
}

// DiffCommand is the command line that prints the diffNLR of id under a
// filter and K (PageOptions.DiffCommand).
func (v *Invocation) DiffCommand(id trace.ID, filter string, k int) string {
	line := []string{"difftrace", "diffnlr", id.String(), "--normal", v.Normal, "--faulty", v.Faulty}
	for _, n := range v.AlsoNormal {
		line = append(line, "--also-normal", n)
	}
	line = append(line, "--filter", filter, "--k", strconv.Itoa(k))
	return shellLine(append(line, v.readFlags(true)...)...)
}

// Commands are the page's own commands (Report.Commands): the ranking,
// the suggested diffNLR, the hang analysis when the faulty run hung, the
// page's diffNLRs, the first row's pictures and the page itself.
func (v *Invocation) Commands(rpt *Report, rk *rank.Ranking, hung bool) []Command {
	rankLine := append(append([]string{"difftrace", "rank", v.Normal, v.Faulty}, v.gridFlags()...), v.readFlags(true)...)
	out := []Command{{What: "the ranking, the consensus and the suggestion", Line: shellLine(rankLine...)}}
	if rk.Suggestion != nil {
		out = append(out, Command{What: "then the suggested diffNLR (rank saves its session in .difftrace/)", Line: "difftrace diffnlr " + rk.Suggestion.Trace.String()})
	}
	if hung {
		out = append(out, Command{What: "the hang analysis", Line: shellLine(append([]string{"difftrace", "hang", v.Faulty, v.Normal}, v.readFlags(false)...)...)})
	}
	for _, d := range rpt.Diffs {
		out = append(out, Command{What: "the diffNLR of " + d.Trace + " (-o diffnlr.svg draws it)", Line: d.Command})
	}
	if len(rpt.Rows) > 0 {
		r := rpt.Rows[0]
		out = append(out, Command{What: fmt.Sprintf("the matrices, lattices and B-score of row 1 (filter %s, K %d, %s, %s); every row's are under its combination above", r.Filter, r.K, r.Attrs, r.Linkage),
			Line: strings.Join(r.Commands, "\n")})
	}
	page := append(append([]string{"difftrace", "report", v.Normal, v.Faulty}, v.gridFlags()...), v.readFlags(true)...)
	if v.Rows != DefaultRows {
		page = append(page, "--rows", strconv.Itoa(v.Rows))
	}
	if v.Diffs != DefaultDiffs {
		page = append(page, "--diffs", strconv.Itoa(v.Diffs))
	}
	return append(out, Command{What: "this page", Line: shellLine(append(page, "-o", v.pageName())...)})
}

// pageName is the name of the page's file in its own command.
func (v *Invocation) pageName() string {
	if v.Out != "" && v.Out != "-" {
		return filepath.Base(v.Out)
	}
	return "report.html"
}

// OutlierCommands are the commands of the one-run page (NewOutlierPage),
// the run being v.Normal: the analysis as text, and the page.
func (v *Invocation) OutlierCommands() OutlierCommands {
	rank := append(append([]string{"difftrace", "rank", v.Normal}, v.gridFlags()...), v.readFlags(false)...)
	page := append(append([]string{"difftrace", "report", v.Normal}, v.gridFlags()...), v.readFlags(false)...)
	return OutlierCommands{Rank: shellLine(rank...), Page: shellLine(append(page, "-o", v.pageName())...)}
}

// shellLine joins words into a command line a POSIX shell reads back as
// those words, with what a terminal would take for a control escaped
// (trace.Printable).
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
