package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/hang"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

// Page ranks the traces of the runs c opened over grid (rank.Sweep, with
// the hang analysis when the faulty run hung) and builds their page
// (NewPage) as this invocation asked for it, with the commands that
// reproduce each part; version is difftrace's.
func (v *Invocation) Page(c *compare.Comparison, grid rank.Grid, version string) (*Report, error) {
	rk, hung, err := rank.Sweep(c, grid)
	if err != nil {
		return nil, err
	}
	rpt, err := NewPage(c, rk, hung, PageOptions{Version: version, Rows: v.Rows, Diffs: v.Diffs, RowCommands: v.RowCommands, DiffCommand: v.DiffCommand})
	if err != nil {
		return nil, err
	}
	rpt.Commands = v.Commands(rpt, rk, hung != nil)
	return rpt, nil
}

// PageOptions say what the page holds beyond what the analysis found.
type PageOptions struct {
	Version string // difftrace's version, for the footer
	// Rows is how many of the best rows get their matrices, dendrograms
	// and lattices (the suggested view's row is added); Diffs how many
	// suspects their diffNLR (the suggested one first, always).
	Rows, Diffs int
	// RowCommands returns the command lines that draw a row's pictures,
	// and DiffCommand the one that prints the diffNLR of id under a filter
	// and K: the command line's own text. Nil gives none.
	RowCommands func(r Row) []string
	DiffCommand func(id trace.ID, filter string, k int) string
}

// NewPage builds the page of a ranking of c's runs, with the hang analysis
// of the faulty run (nil when it did not hang): the runs, the ranking, the
// precomputed combinations, the diffNLRs of the top suspects and the
// verdict. The page's own commands (Report.Commands) are the caller's.
func NewPage(c *compare.Comparison, rk *rank.Ranking, hung *hang.Report, o PageOptions) (*Report, error) {
	rpt := &Report{
		Title:   trace.Printable(c.RunLabel(compare.Normal) + " vs " + c.RunLabel(compare.Faulty)),
		Version: o.Version, Traces: len(c.IDs), Processes: len(c.Processes()),
	}
	rpt.Runs = pageRuns(c)
	FromRanking(rpt, rk)
	rpt.Hang = FromHang(hung)

	// The NLRs of every filter and K of the ranking, recognised once: the
	// precomputed rows and the diffNLRs' views take them.
	nlrs, err := recognizeRanking(c, rk)
	if err != nil {
		return nil, err
	}
	nlrOf := func(filter string, k int) (*compare.NLR, error) {
		for _, n := range nlrs {
			if n.Filter.Name() == filter && n.K == k {
				return n, nil
			}
		}
		return nil, fmt.Errorf("report: no NLR for filter %s, K %d", filter, k)
	}

	// The rows to precompute: the best ones, and the suggested view's.
	var rows []int
	for i := range min(o.Rows, len(rpt.Rows)) {
		rows = append(rows, i)
	}
	suggested := -1
	if v := rk.Suggestion; v != nil {
		suggested = slices.IndexFunc(rk.Rows, func(r rank.Row) bool { return r.Filter == v.Filter && r.K == v.K })
		if suggested >= 0 {
			rpt.Rows[suggested].Suggested = true
			if !slices.Contains(rows, suggested) {
				rows = append(rows, suggested)
			}
		}
	}
	if o.RowCommands != nil {
		for i := range rpt.Rows {
			rpt.Rows[i].Commands = o.RowCommands(rpt.Rows[i])
		}
	}
	if err := Precompute(rpt, rows, nlrOf); err != nil {
		return nil, err
	}
	for i := range rpt.Combinations {
		cb := &rpt.Combinations[i]
		cb.Commands = rpt.Rows[cb.Row].Commands
	}
	rpt.Precomputed = precomputedText(len(rows), len(rpt.Rows), o.Rows, suggested, len(rk.AlsoNormal) > 0)

	// The diffNLRs: the suggested trace, then the consensus's leaders.
	broadest := ""
	if len(rk.Filters) > 0 {
		broadest = rk.Filters[len(rk.Filters)-1]
	}
	fold := func(specs []string, ks []int) ([]*compare.NLR, error) {
		var out []*compare.NLR
		for _, s := range specs {
			for _, k := range ks {
				n, err := nlrOf(s, k)
				if err != nil {
					return nil, err
				}
				out = append(out, n)
			}
		}
		return out, nil
	}
	for _, id := range diffTargets(c, rk, o.Diffs) {
		v, source, err := diffView(rk, id, broadest, fold)
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue
		}
		n, err := nlrOf(v.Filter, v.K)
		if err != nil {
			return nil, err
		}
		d, err := pageDiff(n, id, source)
		if err != nil {
			return nil, err
		}
		if o.DiffCommand != nil {
			d.Command = o.DiffCommand(id, v.Filter, v.K)
		}
		rpt.Diffs = append(rpt.Diffs, d)
	}
	rpt.Verdict = verdict(rpt, rk)
	return rpt, nil
}

// recognizeRanking recognises the loops of every trace under each filter
// and K of the ranking, as the sweep did.
func recognizeRanking(c *compare.Comparison, rk *rank.Ranking) ([]*compare.NLR, error) {
	fs := make([]*filters.Filter, len(rk.Filters))
	for i, spec := range rk.Filters {
		var err error
		if fs[i], err = filters.Parse(spec); err != nil {
			return nil, fmt.Errorf("filter %q: %w", spec, err)
		}
	}
	return c.Recognize(fs, rk.Ks)
}

// precomputedText says which rows the page precomputed: the best ones
// (best of them asked for), and the suggested view's row (suggested, -1
// for none) when it is not among them.
func precomputedText(n, total, best, suggested int, noise bool) string {
	var b strings.Builder
	best = min(best, total)
	extra := suggested >= best
	switch {
	case n == 0:
		b.WriteString("No row's matrices, dendrograms and lattices are precomputed (--rows 0, and no suggested view)")
	case n == total:
		fmt.Fprintf(&b, "The matrices, dendrograms and lattices are precomputed for all %d rows", n)
	case best > 0 && extra:
		fmt.Fprintf(&b, "The matrices, dendrograms and lattices are precomputed for %d of the %d rows: the %d best and row %d, the suggested view's", n, total, best, suggested+1)
	case extra:
		fmt.Fprintf(&b, "The matrices, dendrograms and lattices are precomputed for row %d of the %d, the suggested view's", suggested+1, total)
	default:
		fmt.Fprintf(&b, "The matrices, dendrograms and lattices are precomputed for the %d best of the %d rows", n, total)
	}
	if n < total {
		b.WriteString("; a click on another row shows the commands that draw its pictures (difftrace jsm and difftrace lattice)")
	}
	b.WriteString(".")
	if noise {
		b.WriteString(" The page's matrices leave out what varies between the normal runs, as the ranking does; difftrace jsm, which takes one pair of runs, does not.")
	}
	return b.String()
}

// diffTargets returns the traces whose diffNLR the page holds, most of
// them: the suggested one (always: the verdict quotes its first
// difference), then the consensus's leaders (processes when every process
// has one thread, as the suggestion names them).
func diffTargets(c *compare.Comparison, rk *rank.Ranking, most int) []trace.ID {
	var out []trace.ID
	add := func(id trace.ID) {
		if len(out) < most && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	if v := rk.Suggestion; v != nil {
		out = append(out, v.Trace) // the verdict's, always
	}
	single := len(c.IDs) == len(c.Processes())
	for _, v := range rk.ThreadVotes {
		if v.Listed == 0 {
			break
		}
		id := v.ID
		if single {
			id = id.Process()
		}
		add(id)
	}
	return out
}
