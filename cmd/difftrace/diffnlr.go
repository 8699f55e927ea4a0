package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/internal/outfile"
	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/report"
	"github.com/difftrace/difftrace/session"
	"github.com/difftrace/difftrace/trace"
)

type diffNLRFlags struct {
	analysisFlags
	normal, faulty string
	alsoNormal     []string
	outputs        []string
	color          string
	context        int
	changed        int
	changes        int
	full           bool
	lines          int
	// against names another trace of one run to diff TRACE against.
	against string
}

func newDiffNLRCmd() *cobra.Command {
	var f diffNLRFlags
	cmd := command("diffnlr TRACE [-o FILE]", "Show how one trace or process changed between the normal and the faulty run",
		cobra.ExactArgs(1), completeSuspects, func(cmd *cobra.Command, args []string) error { return f.run(cmd, args[0]) })
	f.registerComparing(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.normal, "normal", "", "the normal run's directory (default: the one in .difftrace/session.json)")
	fl.StringArrayVar(&f.alsoNormal, "also-normal", nil,
		"with --normal: another normal run (repeat for more); loops whose counts differ between the normal runs align whatever their counts (default: those rank was given)")
	fl.StringVar(&f.faulty, "faulty", "", "the faulty run's directory (default: the one in .difftrace/session.json)")
	fl.StringVarP(&f.Filter, "filter", "f", "",
		`which calls to keep: presets joined by "+", e.g. mpi, mem+omp.crit+cust=CPU_Exec (default: the best-ranked filter of the session, or mpi)`)
	fl.IntVarP(&f.K, "k", "k", 0, "longest loop body NLR looks for (default: the best-ranked K of the session, or 10)")
	fl.StringArrayVarP(&f.outputs, "output", "o", nil, "draw the picture into this file: .svg, .png or .dot (repeatable)")
	fl.StringVar(&f.color, "color", "auto", "colour the text diff: auto (when standard output is a terminal), always or never")
	fl.IntVar(&f.context, "context", 3, "common elements shown at each end of a long common run (-1: all)")
	fl.IntVar(&f.changed, "changed", 4, "elements shown at each end of a long changed run (-1: all)")
	fl.IntVar(&f.changes, "changes", 20, "changes shown, the first and the last ones, when there are more (-1: all)")
	fl.BoolVar(&f.full, "full", false, "show the whole diff, nothing abridged")
	fl.IntVar(&f.lines, "lines", 30, "the most lines the text takes: the limits above are tightened until it fits (0: no limit)")
	fl.StringVar(&f.against, "against", "", "diff TRACE against this other trace of the one run --faulty names (P.T), as difftrace rank RUN suggests")
	completeJoined(cmd, "filter", "+", filterTerms)
	completeWords(cmd, "color", "auto", "always", "never")
	cmd.MarkFlagDirname("normal")
	cmd.MarkFlagDirname("faulty")
	return cmd
}

// params settles the runs, the filter and K: from the flags, else from the
// session rank saved, else the defaults (session.Follow).
func (f *diffNLRFlags) params(cmd *cobra.Command) (*session.View, error) {
	switch {
	case f.normal != "" && f.faulty != "":
		return session.Given(append([]string{f.normal, f.faulty}, f.alsoNormal...), f.Filter, f.K), nil
	case f.normal != "" || f.faulty != "":
		return nil, fmt.Errorf("--normal and --faulty go together: give both runs, or neither to use the session of difftrace rank")
	}
	fl := cmd.Flags()
	v, err := session.Follow(cmd.ErrOrStderr(), readFix, f.Filter, f.K, fl.Changed("filter") || fl.Changed("k"))
	if err == nil && !fl.Changed("exact-polling") {
		f.exactPolling = v.ExactPolling
	}
	return v, err
}

// textFlags are the flags of the text's abridgement and colours.
var textFlags = map[string]string{"lines": "--lines", "context": "--context", "changed": "--changed", "changes": "--changes", "color": "--color"}

// readFix is the way round a session that cannot be read.
const readFix = "give --normal and --faulty"

func (f *diffNLRFlags) run(cmd *cobra.Command, arg string) error {
	id, err := trace.ParseID(strings.TrimSpace(arg))
	if err != nil {
		return err
	}
	if f.against != "" {
		return f.runAgainst(cmd, id)
	}
	ab, color, formats, err := f.check(cmd, &report.DiffNLR{})
	if err != nil {
		return err
	}
	v, err := f.params(cmd)
	if err != nil {
		return err
	}
	n, err := v.NLR(id, func(runs []string) (*compare.Comparison, error) { return f.openComparison(cmd, runs) }, func(notes ...string) { printNotes(cmd, notes...) })
	if err != nil {
		return param.Flags(err, paramFlags)
	}
	d, err := n.Comparison().DiffNLR(n, id, ab)
	if err != nil {
		return err
	}
	empty := ""
	if len(d.Threads) == len(d.Empty) {
		empty = fmt.Sprintf("filter %s keeps no call of %s in either run; try another --filter (difftrace filter RUN --filter SPEC shows what a filter keeps)", n.Filter.Name(), id)
	}
	return f.show(cmd, d, report.NewDiffNLR(d, v.Source), empty, color, formats, n.Comparison().Dirs())
}

// show writes a diffNLR: its text on standard output, coloured when color
// says, then the -o files; notes on stderr where the first difference
// lies in the program is left out, and empty when the filter kept
// nothing.
func (f *diffNLRFlags) show(cmd *cobra.Command, d *compare.DiffNLR, doc report.Document, empty string, color bool, formats []report.Format, inputs []string) error {
	if d.NoStacks != nil {
		printNotes(cmd, "where the first difference lies in the program is left out: "+d.NoStacks.Error())
	}
	if err := report.Write(cmd.OutOrStdout(), doc, report.Options{Format: report.Text, Color: color}); err != nil {
		return err
	}
	if empty != "" {
		printNotes(cmd, empty)
	}
	return writeFiles(cmd, doc, f.outputs, formats, inputs)
}

// check checks the flags that need no run: K, the abridging, the colours
// and the -o files of doc.
func (f *diffNLRFlags) check(cmd *cobra.Command, doc report.Document) (ab diffnlr.Abridge, color bool, formats []report.Format, err error) {
	if cmd.Flags().Changed("k") && f.K == 0 {
		return ab, false, nil, param.Flags(rank.CheckK(0), paramFlags)
	}
	ab = diffnlr.Full
	if !f.full {
		if ab, err = report.TextAbridge(f.context, f.changed, f.changes, f.lines); err != nil {
			return ab, false, nil, param.Flags(err, textFlags)
		}
	}
	if color, err = outfile.Color(f.color, cmd.OutOrStdout()); err != nil {
		return ab, false, nil, param.Flags(err, textFlags)
	}
	formats, err = checkFiles(doc, f.outputs)
	return ab, color, formats, err
}
