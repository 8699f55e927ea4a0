// Package hangtree draws where the traces of a hung run stopped, as STAT
// draws it: hang's tree of end stacks, one box per node with its frames and
// its traces, the nodes where traces ended in red, edges labelled with how
// many traces they carry.
package hangtree

import (
	"context"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/draw"
	"github.com/difftrace/difftrace/draw/dot"
	"github.com/difftrace/difftrace/hang"
)

// DOT is the tree of rep's classes as Graphviz source, for draw.Render; a
// report without classes is one box saying how the run ended.
func DOT(rep *hang.Report) []byte {
	g := dot.Digraph("hang")
	if rep.Classes == nil {
		g.Node("n0", dot.A("shape", "box"), dot.A("label", rep.Ended))
		return g.Bytes()
	}
	g.Attrs(dot.A("rankdir", "TB"), dot.A("fontname", "Helvetica"))
	g.NodeDefaults(dot.A("shape", "box"), dot.A("style", "rounded,filled"), dot.A("fillcolor", "#eef3fb"),
		dot.A("color", "#4a6fa5"), dot.A("fontname", "Helvetica"), dot.A("fontsize", "11"))
	g.EdgeDefaults(dot.A("color", "#4a6fa5"), dot.A("fontname", "Helvetica"), dot.A("fontsize", "10"))
	id := 0
	var walk func(n *hang.Node) string
	walk = func(n *hang.Node) string {
		me := "n" + strconv.Itoa(id)
		id++
		label := strings.Join(n.Frames, "\n")
		if label == "" {
			label = "all traces"
		}
		attrs := []dot.Attr{dot.A("label", label+"\n"+n.List)}
		if n.Ended > 0 {
			attrs = append(attrs, dot.A("fillcolor", "#fde2e1"), dot.A("color", "#b3261e"))
		}
		g.Node(me, attrs...)
		for _, c := range n.Children {
			k := walk(c)
			g.Edge(me, k, dot.A("label", strconv.Itoa(c.Count)))
		}
		return me
	}
	walk(rep.Classes)
	return g.Bytes()
}

// Draw draws the tree of rep's classes in format f: the Graphviz source
// for draw.DOT, else as draw.Render lays it out.
func Draw(rep *hang.Report, f draw.Format) ([]byte, error) {
	if f == draw.DOT {
		return DOT(rep), nil
	}
	return draw.Render(context.Background(), DOT(rep), f)
}
