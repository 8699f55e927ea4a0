package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/outlier"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

// OutlierPage analyses the traces of the one run c opened over grid
// (outlier.Analyze) and builds their page (NewOutlierPage) as this
// invocation asked for it; version is difftrace's.
func (v *Invocation) OutlierPage(c *compare.Comparison, grid rank.Grid, version string) (*OutlierPage, error) {
	a, err := outlier.Analyze(c, grid)
	if err != nil {
		return nil, err
	}
	return NewOutlierPage(c, a, version, v.OutlierCommands())
}

// OutlierPage is the page of one run's traces compared with one another
// ("difftrace report RUN"): the run, its behaviour classes and roles, the
// suspects with the consensus over the grid, each suspect's diffNLR
// against its nearest class-mate, who lags, and the commands that
// reproduce each part. Its JSON is the analysis with the diffs.
type OutlierPage struct {
	Title    string          `json:"title"`
	Version  string          `json:"version"`
	Run      Run             `json:"run"`
	Headline string          `json:"headline"`
	Analysis *outlier.Report `json:"analysis"`
	// Diffs are the suspects' diffNLRs against their class-mates, in the
	// order of Analysis.Suspects (a suspect with no class-mate has none).
	Diffs    []Diff    `json:"diffs"`
	Commands []Command `json:"commands"`
	// Hang is the hang analysis's section, when the run did not end
	// normally (Analysis.Hang as the two-run page shows it).
	Hang *Hang `json:"-"`
}

// OutlierCommands are the command lines of the one-run page: the
// analysis as text, and the page itself. They repeat the command line's
// options; the page adds each suspect's diffNLR.
type OutlierCommands struct {
	Rank, Page string
}

// NewOutlierPage builds the page of the analysis a of the one run c
// holds, made by outlier.Analyze; version names difftrace in the footer.
func NewOutlierPage(c *compare.Comparison, a *outlier.Report, version string, cmds OutlierCommands) (*OutlierPage, error) {
	p := &OutlierPage{Title: trace.Printable(c.RunLabel(0)) + " alone", Version: version, Analysis: a}
	p.Run = pageRuns(c)[0]
	p.Run.Role = "the run"
	p.Headline = outlierHeadline(a)
	p.Hang = FromHang(a.Hang)
	for _, s := range a.Suspects {
		if s.Peer == s.ID || s.View.Filter == "" {
			continue
		}
		flt, err := filters.Parse(s.View.Filter)
		if err != nil {
			return nil, fmt.Errorf("report: filter %q: %w", s.View.Filter, err)
		}
		res, err := c.Recognize([]*filters.Filter{flt}, []int{s.View.K})
		if err != nil {
			return nil, err
		}
		dn, err := outlier.PeerDiff(res[0], s.ID, s.Peer, diffAbridge)
		if err != nil {
			return nil, err
		}
		d, err := diffValues(res[0], dn, Diff{Trace: s.ID.String(),
			Header: fmt.Sprintf("diffNLR(%s against %s): filter %s, K %d (%s is the - side, %s the + side)", s.ID, s.Peer, trace.Printable(s.View.Filter), s.View.K, s.Peer, s.ID)})
		if err != nil {
			return nil, err
		}
		d.Command = trace.Printable(s.Command)
		p.Diffs = append(p.Diffs, d)
	}
	p.Commands = []Command{{What: "the classes, the ranking, the consensus and the suspects as text", Line: cmds.Rank}}
	for _, d := range p.Diffs {
		p.Commands = append(p.Commands, Command{What: "the diffNLR of " + d.Trace + " against its class-mate (-o diffnlr.svg draws it)", Line: d.Command})
	}
	p.Commands = append(p.Commands, Command{What: "this page", Line: cmds.Page})
	return p, nil
}

// outlierHeadline says the page's answer in one sentence.
func outlierHeadline(a *outlier.Report) string {
	if len(a.Suspects) == 0 {
		return "No suspect: " + trace.Printable(a.NoSuspect) + "."
	}
	s := a.Suspects[0]
	line := "Look at trace " + s.ID.String() + " first — " + trace.Printable(s.Reason) + "."
	if len(a.Suspects) > 1 {
		var more []string
		for _, x := range a.Suspects[1:] {
			more = append(more, x.ID.String())
		}
		line += " Then " + strings.Join(more, ", ") + "."
	}
	return line
}

//go:embed outlier_page.html.tmpl
var outlierTemplate string

var outlierPage = template.Must(template.Must(page.Clone()).New("outlier").Funcs(template.FuncMap{
	"printable": trace.Printable,
	"list":      listIDs,
	"apart": func(r outlier.Row) string {
		var s []string
		for _, x := range r.Suspects {
			s = append(s, fmt.Sprintf("%s (%.3f; %s)", x.ID, x.Score, x.Peer))
		}
		if len(s) == 0 {
			return "-"
		}
		return strings.Join(s, ", ")
	},
	"peerFirst": func(s outlier.Suspect) string {
		return strings.Replace(s.Difference, "first difference:", "first difference from "+s.Peer.String()+":", 1)
	},
}).Parse(outlierTemplate))

func (*OutlierPage) defaultFormat() Format { return HTML }
func (*OutlierPage) name() string          { return "the one-run page" }

func (p *OutlierPage) writeHTML(w io.Writer, _ Options) error {
	return outlierPage.ExecuteTemplate(w, "outlier", p)
}
