package report

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

// diffView chooses the view of id's diffNLR as "difftrace diffnlr ID"
// after "difftrace rank" does: the suggested view for the suggested trace,
// else rank.Suggest over the ranking's rows, else the best-ranked row's
// filter and K. source says which, as diffnlr's header does.
func diffView(rk *rank.Ranking, id trace.ID, broadest string, fold rank.Fold) (*rank.View, string, error) {
	if v := rk.Suggestion; v != nil && v.Trace == id {
		return v, fmt.Sprintf("the clearest diff among the ranking's rows where %s is %s", id, pageViewWhy(v)), nil
	}
	v, ok, err := rank.Suggest(rk.Rows, id, broadest, fold)
	if err != nil {
		return nil, "", err
	}
	if ok {
		return &v, fmt.Sprintf("the clearest diff among the ranking's rows where %s is %s", id, pageViewWhy(&v)), nil
	}
	best, ok := rk.Best()
	if !ok {
		return nil, "", nil
	}
	return &rank.View{Trace: id, Filter: best.Filter, K: best.K},
		fmt.Sprintf("best-ranked, B-score %.3f; no filter of the ranking shows a change in the calls of %s", best.BScore, id), nil
}

// pageViewWhy says which rows a suggested view comes from.
func pageViewWhy(v *rank.View) string {
	return map[string]string{"first": "the top suspect", "listed": "a suspect", "changed": "changed"}[v.Why]
}

// pageDiff is the diffNLR of id under n as "difftrace diffnlr" prints it
// (with its default abridging), as values: the first differences, the
// notes, each line of the diff (a loop's with its body) and the loops.
func pageDiff(n *compare.NLR, id trace.ID, source string) (Diff, error) {
	d := Diff{Trace: id.String(), Header: fmt.Sprintf("diffNLR(%s): filter %s, K %d (%s)", id, n.Filter.Name(), n.K, source)}
	dn, err := n.Comparison().DiffNLR(n, id, diffAbridge)
	if err != nil {
		return d, err
	}
	return diffValues(n, dn, d)
}

// diffAbridge is diffnlr's default abridging.
var diffAbridge = diffnlr.Abridge{Context: 3, Changed: 4, Changes: 20}

// diffValues fills d with the diffNLR dn, made under n: its notes, first
// differences, lines and loops.
func diffValues(n *compare.NLR, dn *compare.DiffNLR, d Diff) (Diff, error) {
	id := dn.ID
	for _, ch := range n.RunWide {
		d.Notes = append(d.Notes, "run-wide, left out (every process of the faulty run shows it): "+diffEllipsis(trace.Printable(ch.Format(n.Table, n.Names())), 100))
	}
	if len(dn.Empty) > 0 && len(dn.Threads) > 1 {
		d.Notes = append(d.Notes, "no call kept in either run: threads "+strings.Join(dn.Empty, ", "))
	}
	for _, l := range dn.Loops {
		d.Loops = append(d.Loops, trace.Printable(l))
	}
	var text bytes.Buffer
	if err := dn.Picture.WriteText(&text, false); err != nil {
		return d, err
	}
	lines := strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n")
	// The notes (first differences) come before the diff's header lines.
	head := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "--- ") })
	if head < 0 || head+1 >= len(lines) {
		return d, fmt.Errorf("diffNLR(%s): unexpected text", id)
	}
	d.First = lines[:head]
	budget := maxBodyNodes
	for _, l := range lines[head+2:] {
		d.Lines = append(d.Lines, diffLine(n, l, &budget))
	}
	return d, nil
}

// maxBodyNodes bounds the elements of loop bodies a diff unfolds, and
// maxBodyLen those of one body.
const (
	maxBodyNodes = 4000
	maxBodyLen   = 200
	maxBodyDepth = 8
)

// loopLabel is how diffnlr writes a loop element: "L3^16".
var loopLabel = regexp.MustCompile(`^L(\d+)\^\d+`)

// diffLine reads one line of diffnlr's text: its sign, the element, the
// note beside a changed loop and the mark where a faulty trace ended;
// a loop gets its body.
func diffLine(n *compare.NLR, l string, budget *int) DiffLine {
	if strings.HasPrefix(l, "@@ ") {
		return DiffLine{Kind: "head", Text: l}
	}
	dl := DiffLine{Kind: "common", Sign: "  "}
	switch {
	case strings.HasPrefix(l, "- "):
		dl.Kind, dl.Sign = "normal", "- "
	case strings.HasPrefix(l, "+ "):
		dl.Kind, dl.Sign = "faulty", "+ "
	case strings.HasPrefix(l, "  (") && strings.HasSuffix(l, ")"):
		return DiffLine{Kind: "note", Text: strings.TrimSpace(l)}
	}
	rest := strings.TrimPrefix(l, dl.Sign)
	if i := strings.LastIndex(rest, "  <- "); i >= 0 {
		rest, dl.End = rest[:i], rest[i+len("  <- "):]
	}
	m := loopLabel.FindStringSubmatch(rest)
	if m == nil {
		dl.Text = rest
		return dl
	}
	dl.Text = m[0]
	if note := strings.TrimPrefix(rest[len(m[0]):], "  "); strings.HasPrefix(note, "(") && strings.HasSuffix(note, ")") {
		dl.Note = note[1 : len(note)-1]
	} else {
		dl.Text = rest
	}
	id, err := strconv.Atoi(m[1])
	if err == nil && id < n.Table.Len() {
		dl.Body = loopBody(n, int32(id), 1, budget)
	}
	return dl
}

// loopBody unfolds the body of loop id, loops within it too, within the
// budget.
func loopBody(n *compare.NLR, id int32, depth int, budget *int) []Node {
	body := n.Table.Body(id)
	names := n.Names()
	var out []Node
	for i, e := range body {
		if i == maxBodyLen || *budget <= 0 {
			out = append(out, Node{Text: fmt.Sprintf("… %d more", len(body)-i), More: len(body) - i})
			break
		}
		*budget--
		nd := Node{Text: trace.Printable(e.Format(names))}
		if e.IsLoop() && depth < maxBodyDepth {
			nd.Body = loopBody(n, e.Loop, depth+1, budget)
		}
		out = append(out, nd)
	}
	return out
}
