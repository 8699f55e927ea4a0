package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// DiffNLR is the result of "difftrace diffnlr": the diffNLR of one trace
// or process under one view. Its JSON is the diff as data, names in full
// (with parameters), nothing abridged; its text is the abridged diff as a
// terminal shows it, between a header (the view, the runs) and the loops.
type DiffNLR struct {
	Trace  string `json:"trace"`
	Normal string `json:"normal"` // the runs' directories
	Faulty string `json:"faulty"`
	Filter string `json:"filter"`
	K      int    `json:"k"`
	// View says where the filter and K come from ("best-ranked in …").
	View string `json:"view,omitempty"`
	// Ended says how the faulty trace was cut short, "" when it ended
	// normally.
	Ended   string       `json:"faulty_ended,omitempty"`
	RunWide []string     `json:"run_wide"` // changes left out, every process of the faulty run shows them
	Threads []DiffThread `json:"threads"`
	Loops   []DiffLoop   `json:"loops"` // the loops the threads' NLRs use

	// Text is what the text form says besides.
	Text DiffText `json:"-"`
}

// DiffText is what the text form of a DiffNLR shows that its JSON does
// not: names as the diff writes them (without parameters).
type DiffText struct {
	RunWide []string
	// Picture is the abridged diff (diffnlr.Picture.WriteText writes it),
	// its notes the first differences.
	Picture *diffnlr.Picture
	// Empty names the threads of a process whose calls the filter dropped
	// in both runs.
	Empty []string
	Loops []string // the loops the abridged diff shows, defined
}

// DiffThread is one thread's first difference and whole diff.
type DiffThread struct {
	Trace string         `json:"trace"`
	First *FirstDiff     `json:"first_difference"` // nil when its calls did not change
	Diff  []DiffNLRBlock `json:"diff"`
}

// FirstDiff is where a thread's runs first part, names in full.
type FirstDiff struct {
	Text        string   `json:"text"` // the line the text form says
	Stack       []string `json:"call_stack"`
	Normal      []string `json:"normal_only"`
	Faulty      []string `json:"faulty_only"`
	NormalOrder []string `json:"normal_order,omitempty"`
	FaultyOrder []string `json:"faulty_order,omitempty"`
	// Place is the view's own first difference: loops around it, calls in
	// common before, …
	Place   *diffnlr.First `json:"place"`
	NewPair *DiffNewPair   `json:"new_pair,omitempty"`
	// Kind and what follows are read on the whole call trees.
	Kind        string               `json:"kind"`
	Calls       []string             `json:"calls"`
	FaultyCalls []string             `json:"faulty_calls"`
	Loops       []DiffLoopPlace      `json:"loops"`
	Explanation *diffnlr.Explanation `json:"explanation"`
}

// DiffLoopPlace is a loop around a first difference.
type DiffLoopPlace struct {
	Body      string `json:"body"` // the first call of its body
	Period    int    `json:"period"`
	Iteration int    `json:"iteration"`
	Count     int    `json:"count"`
}

// DiffNewPair is the first pair of calls no normal run makes.
type DiffNewPair struct {
	Call  uint64   `json:"call"` // the second call's index in the faulty trace, from 0
	Prev  string   `json:"prev"`
	Next  string   `json:"next"`
	Usual []string `json:"usual"` // what follows prev in the normal runs
}

// DiffNLRBlock is a stretch of a diff that one run, or both, have.
type DiffNLRBlock struct {
	Kind     string   `json:"kind"`
	Elements []string `json:"elements"`
}

// DiffLoop defines a loop.
type DiffLoop struct {
	ID   string   `json:"id"`
	Body []string `json:"body"`
}

// NewDiffNLR returns the document of a diffNLR; view says where its filter
// and K come from ("" for nowhere in particular).
func NewDiffNLR(d *compare.DiffNLR, view string) *DiffNLR {
	n := d.NLR
	c := n.Comparison()
	full := func(s trace.Symbol) string { return c.Symbols.Name(s).Func }
	doc := &DiffNLR{Trace: d.ID.String(), Normal: c.Runs[compare.Normal].Dir, Faulty: c.Runs[compare.Faulty].Dir,
		Filter: n.Filter.Name(), K: n.K, View: view, Ended: c.Runs[compare.Faulty].Ending(d.ID.Proc),
		RunWide: []string{}, Threads: []DiffThread{}}
	doc.Text = DiffText{Picture: d.Picture, Loops: d.Loops}
	for _, ch := range n.RunWide {
		doc.RunWide = append(doc.RunWide, ch.Format(n.Table, full))
		doc.Text.RunWide = append(doc.Text.RunWide, ch.Format(n.Table, n.Names()))
	}
	if len(d.Threads) > 1 {
		doc.Text.Empty = d.Empty
	}
	var used []nlr.Sequence
	for j, t := range d.Threads {
		i, _ := c.Index(t)
		used = append(used, n.Seq(compare.Normal, i), n.Seq(compare.Faulty, i))
		th := DiffThread{Trace: t.String(), Diff: diffBlocks(d.Blocks[j], full)}
		for _, p := range d.Partings {
			if p.Trace == t {
				th.First = firstDiff(p, full)
			}
		}
		doc.Threads = append(doc.Threads, th)
	}
	doc.Loops = diffLoops(n.Table, used, full)
	return doc
}

// namesOf writes symbols by full, for a document's data.
func namesOf(ss []trace.Symbol, full func(trace.Symbol) string) []string {
	out := []string{}
	for _, s := range ss {
		out = append(out, full(s))
	}
	return out
}

// diffBlocks is a diff as data, names written by full.
func diffBlocks(bs []diffnlr.Block, full func(trace.Symbol) string) []DiffNLRBlock {
	out := []DiffNLRBlock{}
	for _, b := range bs {
		jb := DiffNLRBlock{Kind: b.Kind.String(), Elements: []string{}}
		for _, e := range b.Elems {
			jb.Elements = append(jb.Elements, e.Format(full))
		}
		out = append(out, jb)
	}
	return out
}

// firstDiff is where a thread's runs first part, as data.
func firstDiff(p compare.Parting, full func(trace.Symbol) string) *FirstDiff {
	names := func(ss []trace.Symbol) []string { return namesOf(ss, full) }
	f, x := p.Explanation.First, p.Explanation
	fd := &FirstDiff{Text: p.Text, Stack: names(p.Stack), Normal: names(f.Normal), Faulty: names(f.Faulty),
		NormalOrder: names(f.NormalOrder), FaultyOrder: names(f.FaultyOrder), Place: &f,
		Kind: x.Kind.String(), Calls: names(x.Normal), FaultyCalls: names(x.Faulty), Loops: []DiffLoopPlace{}, Explanation: &x}
	for _, l := range x.Loops {
		fd.Loops = append(fd.Loops, DiffLoopPlace{full(l.Body), l.Period, l.Iteration, l.Count})
	}
	if np := p.NewPair; np != nil {
		fd.NewPair = &DiffNewPair{Call: np.Call, Prev: full(np.Prev), Next: full(np.Next), Usual: names(np.Usual)}
	}
	return fd
}

// diffLoops defines the loops the sequences use, names written by full.
func diffLoops(t *nlr.Table, used []nlr.Sequence, full func(trace.Symbol) string) []DiffLoop {
	out := []DiffLoop{}
	for _, id := range t.Used(used...) {
		l := DiffLoop{ID: nlr.LoopName(id), Body: []string{}}
		for _, e := range t.Body(id) {
			l.Body = append(l.Body, e.Format(full))
		}
		out = append(out, l)
	}
	return out
}

// writeDataJSON writes a diff document's values as they are: names with
// "<" or "&" in them (C++ templates) stay readable.
func writeDataJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func (*DiffNLR) defaultFormat() Format { return Text }
func (*DiffNLR) name() string          { return "diffNLR" }

func (d *DiffNLR) writeJSON(w io.Writer, _ Options) error { return writeDataJSON(w, d) }

// writeText writes the header (the view, the runs, the run-wide changes
// left out), the diff, coloured when o.Color says, and the loops.
// DiffNLRHead counts the lines the text of a diffNLR writes before what
// compare.DiffNLR lays out (diffnlr.Abridge.Lines): the title, the two runs
// and a blank line.
const DiffNLRHead = 4

// TextAbridge returns how the text of a diffNLR is abridged to fit in
// lines lines, its header included (0: no limit), showing context common
// and changed changed elements at each end of a long run, and changes
// changes, the first and the last ones (-1: all). A value it cannot take
// is a param.Error naming it: "lines", "context", "changed" or "changes".
func TextAbridge(context, changed, changes, lines int) (diffnlr.Abridge, error) {
	a := diffnlr.Abridge{Context: context, Changed: changed, Changes: changes}
	if lines < 0 {
		return a, param.Errorf("lines", strconv.Itoa(lines), "give the most lines the text may take, or 0 for no limit")
	}
	if lines > 0 {
		a.Lines = max(1, lines-DiffNLRHead)
	}
	for _, v := range []struct {
		name string
		n    int
	}{{"context", context}, {"changed", changed}, {"changes", changes}} {
		if v.n == 0 || v.n < -1 {
			return a, param.Errorf(v.name, strconv.Itoa(v.n), "give 1 or more, or -1 for no limit")
		}
	}
	return a, nil
}

func (d *DiffNLR) writeText(w io.Writer, o Options) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "diffNLR(%s): filter %s, K %d", d.Trace, d.Filter, d.K)
	if d.View != "" {
		fmt.Fprintf(bw, " (%s)", d.View)
	}
	fmt.Fprintf(bw, "\nnormal  %s\nfaulty  %s\n", diffShortPath(d.Normal), diffShortPath(d.Faulty))
	for _, ch := range d.Text.RunWide {
		fmt.Fprintf(bw, "run-wide, left out (every process of the faulty run shows it): %s\n", diffEllipsis(trace.Printable(ch), 100))
	}
	bw.WriteString("\n")
	if err := d.Text.Picture.WriteText(bw, o.Color); err != nil {
		return err
	}
	if len(d.Text.Empty) > 0 {
		fmt.Fprintf(bw, "\nno call kept in either run: threads %s\n", strings.Join(d.Text.Empty, ", "))
	}
	if len(d.Text.Loops) > 0 {
		bw.WriteString("\nloops:\n")
		for _, l := range d.Text.Loops {
			bw.WriteString("  " + trace.Printable(l) + "\n")
		}
	}
	return bw.Flush()
}

// diffShortPath writes a path below the current directory relative to it (a
// session keeps absolute paths).
func diffShortPath(p string) string {
	wd, err := os.Getwd()
	if err != nil || !filepath.IsAbs(p) {
		return p
	}
	rel, err := filepath.Rel(wd, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return rel
}

// diffEllipsis cuts s to at most n runes, ending in "…" when it cut.
func diffEllipsis(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
