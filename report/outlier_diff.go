package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// PeerDiffNLR is the result of "difftrace diffnlr TRACE --against PEER":
// the diffNLR of one trace against another trace of the same run. Its JSON
// is the diff as data, names in full; its text the abridged diff, PEER's
// side marked "-", TRACE's "+".
type PeerDiffNLR struct {
	Trace   string `json:"trace"`
	Against string `json:"against"`
	Run     string `json:"run"`
	Filter  string `json:"filter"`
	K       int    `json:"k"`
	// Ended says how TRACE's process was cut short, "" when it ended
	// normally.
	Ended string         `json:"ended,omitempty"`
	First *FirstDiff     `json:"first_difference"` // nil when they make the same calls
	Diff  []DiffNLRBlock `json:"diff"`
	Loops []DiffLoop     `json:"loops"`

	text DiffText
}

// NewPeerDiffNLR returns the document of a diffNLR of two traces of one
// run (outlier.PeerDiff): d.ID against the trace against.
func NewPeerDiffNLR(d *compare.DiffNLR, against trace.ID) *PeerDiffNLR {
	n := d.NLR
	c := n.Comparison()
	full := func(s trace.Symbol) string { return c.Symbols.Name(s).Func }
	doc := &PeerDiffNLR{Trace: d.ID.String(), Against: against.String(), Run: c.Runs[0].Dir, Filter: n.Filter.Name(), K: n.K,
		Ended: c.Runs[0].Ending(d.ID.Proc), Diff: []DiffNLRBlock{}}
	doc.text = DiffText{Picture: d.Picture, Loops: d.Loops}
	var used []nlr.Sequence
	for _, t := range []trace.ID{d.ID, against} {
		if i, ok := peerIndex(c, t); ok {
			used = append(used, n.Seq(0, i))
		}
	}
	if len(d.Blocks) > 0 {
		doc.Diff = diffBlocks(d.Blocks[0], full)
	}
	if len(d.Partings) > 0 {
		doc.First = firstDiff(d.Partings[0], full)
	}
	doc.Loops = diffLoops(n.Table, used, full)
	return doc
}

// peerIndex finds a trace of the run, or the one thread of a process.
func peerIndex(c *compare.Comparison, t trace.ID) (int, bool) {
	if !t.IsProcess() {
		return c.Index(t)
	}
	for i, id := range c.IDs {
		if id.Proc == t.Proc {
			return i, true
		}
	}
	return 0, false
}

func (*PeerDiffNLR) defaultFormat() Format { return Text }
func (*PeerDiffNLR) name() string          { return "diffNLR against a peer" }

func (d *PeerDiffNLR) writeJSON(w io.Writer, _ Options) error { return writeDataJSON(w, d) }

// writeText writes the header (the traces, the run, the view), the diff,
// coloured when o.Color says, and the loops.
func (d *PeerDiffNLR) writeText(w io.Writer, o Options) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "diffNLR(%s against %s): filter %s, K %d\n", d.Trace, d.Against, trace.Printable(d.Filter), d.K)
	fmt.Fprintf(bw, "run  %s (one run: %s is the - side, %s the + side)\n", trace.Printable(diffShortPath(d.Run)), d.Against, d.Trace)
	bw.WriteString("\n")
	if err := d.text.Picture.WriteText(bw, o.Color); err != nil {
		return err
	}
	if len(d.text.Loops) > 0 {
		bw.WriteString("\nloops:\n")
		for _, l := range d.text.Loops {
			bw.WriteString("  " + trace.Printable(l) + "\n")
		}
	}
	return bw.Flush()
}
