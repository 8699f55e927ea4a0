package dot_test

import (
	"fmt"

	"github.com/difftrace/difftrace/draw/dot"
)

// A call graph whose names need quoting: a C++ template, a quote, a
// backslash.
func Example() {
	g := dot.Digraph("calls")
	g.NodeDefaults(dot.A("shape", "box"))
	g.Node("n0", dot.A("label", "std::vector<int>::push_back"))
	g.Node("n1", dot.A("label", `print("\n")`))
	g.Node("n2", dot.HTML("label", "<B>"+dot.EscapeHTML("a<b> & c")+"</B>"))
	g.Edge("n0", "n1", dot.A("label", "2"))
	g.Edge("n1", "n2")
	fmt.Print(string(g.Bytes()))
	// Output:
	// digraph calls {
	// 	node [shape="box"];
	// 	n0 [label="std::vector<int>::push_back"];
	// 	n1 [label="print(\"\\n\")"];
	// 	n2 [label=<<B>a&lt;b&gt; &amp; c</B>>];
	// 	n0 -> n1 [label="2"];
	// 	n1 -> n2;
	// }
}
