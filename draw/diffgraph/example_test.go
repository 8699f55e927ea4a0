package diffgraph_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/draw"
	"github.com/difftrace/difftrace/draw/diffgraph"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// The swapBug of seeds/002 Fig. 3.5b as a Graphviz graph: a stem of common
// calls (c0…), the normal run's L1^16 on its left (n0), the faulty run's
// L1^7 and L0^9 on its right (f0, f1), rejoining at MPI_Finalize. (The
// graph's label, the title and legend, is left out here.)
func ExampleRender() {
	names := []string{"", "MPI_Init", "MPI_Comm_rank", "MPI_Finalize"}
	call := func(s trace.Symbol) nlr.Element { return nlr.Element{Loop: nlr.NoLoop, Sym: s} }
	normal := nlr.Sequence{call(1), call(2), {Loop: 1, Count: 16}, call(3)}
	faulty := nlr.Sequence{call(1), call(2), {Loop: 1, Count: 7}, {Loop: 0, Count: 9}, call(3)}
	blocks, err := diffnlr.Diff(normal, faulty)
	if err != nil {
		panic(err)
	}
	p := &diffnlr.Picture{Blocks: blocks, Label: func(e nlr.Element) string {
		if e.IsLoop() {
			return diffnlr.Label(e)
		}
		return names[e.Sym]
	}}
	var src bytes.Buffer
	if err := diffgraph.Render(&src, p, draw.DOT); err != nil { // draw.SVG, draw.PNG: the picture
		panic(err)
	}
	for _, line := range strings.Split(src.String(), "\n") {
		if strings.HasPrefix(line, "\tc") || strings.HasPrefix(line, "\tn") && !strings.HasPrefix(line, "\tnode") || strings.HasPrefix(line, "\tf") {
			fmt.Println(strings.TrimSpace(line))
		}
	}
	// Output:
	// c0 [label="MPI_Init", group="stem", fillcolor="#e2f3df", color="#3b8c40"];
	// c1 [label="MPI_Comm_rank", group="stem", fillcolor="#e2f3df", color="#3b8c40"];
	// n0 [label="L1^16", group="normal", fillcolor="#dce8fb", color="#2f6bc7"];
	// c2 [label="MPI_Finalize", group="stem", fillcolor="#e2f3df", color="#3b8c40"];
	// f0 [label="L1^7", group="faulty", fillcolor="#fbdfdd", color="#c8372f"];
	// f1 [label="L0^9", group="faulty", fillcolor="#fbdfdd", color="#c8372f"];
	// c0 -> c1 [color="#8f8f8f"];
	// c1 -> n0 [color="#2f6bc7", weight="8"];
	// c1 -> c2 [style="invis"];
	// c1 -> f0 [color="#c8372f", weight="8"];
	// n0 -> c2 [color="#2f6bc7"];
	// f0 -> f1 [color="#c8372f", weight="8"];
	// f1 -> c2 [color="#c8372f"];
}
