package hangtree

import (
	"strings"
	"testing"

	gographviz "github.com/goccy/go-graphviz"

	"github.com/difftrace/difftrace/draw"
	drawgv "github.com/difftrace/difftrace/draw/graphviz"
	"github.com/difftrace/difftrace/hang"
	"github.com/difftrace/difftrace/trace"
)

// tree is where four ranks stopped: three in MPI_Allreduce, rank 1 in
// MPI_Waitall under a frame whose name needs quoting.
func tree() *hang.Report {
	leaf := func(frames []string, ids ...int) *hang.Node {
		var ts []trace.ID
		for _, p := range ids {
			ts = append(ts, trace.ID{Proc: p})
		}
		return &hang.Node{Frames: frames, Traces: ts, List: trace.List(ts), Count: len(ts), Ended: len(ts), Children: []*hang.Node{}}
	}
	all := []trace.ID{{Proc: 0}, {Proc: 1}, {Proc: 2}, {Proc: 3}}
	step := &hang.Node{Frames: []string{"main", `step<"x">`}, Traces: all, List: trace.List(all), Count: 4, Children: []*hang.Node{
		leaf([]string{"MPI_Allreduce"}, 0, 2, 3),
		leaf([]string{"exchange", "MPI_Waitall"}, 1),
	}}
	root := &hang.Node{Traces: all, List: trace.List(all), Count: 4, Children: []*hang.Node{step}}
	return &hang.Report{Hung: true, Ended: "timed out [0-3]", Classes: root}
}

func TestDOT(t *testing.T) {
	src := DOT(tree())
	for _, want := range []string{`n3 [label="exchange\nMPI_Waitall\n[1]", fillcolor="#fde2e1"`, `n1 -> n2 [label="3"]`, `label="main\nstep<\"x\">\n[0-3]"`} {
		if !strings.Contains(string(src), want) {
			t.Errorf("no %s in\n%s", want, src)
		}
	}
	drawgv.Exclusive(func() {
		g, err := gographviz.ParseBytes(src)
		if err != nil {
			t.Fatalf("Graphviz cannot parse the tree: %v\n%s", err, src)
		}
		defer g.Close()
		if n, _ := g.NodeNum(); n != 4 {
			t.Errorf("%d nodes, want 4", n)
		}
		if e, _ := g.EdgeNum(); e != 3 {
			t.Errorf("%d edges, want 3", e)
		}
	})
	none := string(DOT(&hang.Report{Ended: `every rank "exited" with status 0`}))
	if none != "digraph hang {\n\tn0 [shape=\"box\", label=\"every rank \\\"exited\\\" with status 0\"];\n}\n" {
		t.Errorf("report without classes:\n%s", none)
	}
}

func TestDraw(t *testing.T) {
	svg, err := Draw(tree(), draw.SVG)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "MPI_Waitall", "step&lt;&quot;x&quot;&gt;", "#fde2e1"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("SVG without %s", want)
		}
	}
	if src, err := Draw(tree(), draw.DOT); err != nil || string(src) != string(DOT(tree())) {
		t.Errorf("DOT format: %v\n%s", err, src)
	}
}
