package dot

import (
	"strings"
	"testing"

	gographviz "github.com/goccy/go-graphviz"
	"github.com/goccy/go-graphviz/cgraph"

	drawgv "github.com/difftrace/difftrace/draw/graphviz"
)

// hostile are names a trace may hold.
var hostile = []string{
	"MPI_Init",
	`say "hi"`,
	`ends in a backslash\`,
	`\"`,
	`a\nb\l\N\G`,
	"two\nlines",
	"cr\rlf\r\n",
	"tab\there",
	"<b>&amp;</b> & <",
	"std::vector<std::pair<int, double>>::push_back(std::pair<int, double>&&)",
	"operator<<(std::ostream&, Foo const&)",
	"node", "EDGE", "Graph", "subgraph", "strict", "digraph",
	"", " ", "3", "-1", "1.5", "0x1f", "_x", "é",
	"\x1b[2J\x07",
	"bad \xff\xfe utf-8 \xc3",
	"bidi \u202e override",
	"}; evil -> node [label=x]; {",
	"// comment", "/* comment */", "# hash",
}

// parse reads DOT source back with Graphviz's own parser (go-graphviz) and
// calls fn on the graph.
func parse(t *testing.T, src []byte, fn func(g *cgraph.Graph)) {
	t.Helper()
	drawgv.Exclusive(func() {
		g, err := gographviz.ParseBytes(src)
		if err != nil {
			t.Fatalf("Graphviz cannot parse the source: %v\n%s", err, src)
		}
		defer g.Close()
		fn(g)
	})
}

// Every hostile name is one node, with its label as Graphviz reads it:
// backslashes and quotes escaped, a line feed as \n, nothing unprintable.
func TestHostileNames(t *testing.T) {
	g := Digraph("hostile \"graph\"")
	g.Attrs(A("label", `title with "quotes" and \`), A("labelloc", "t"))
	g.NodeDefaults(A("shape", "box"), A("fontname", "Helvetica"))
	for i, s := range hostile {
		g.Node(s, A("label", s), A("tooltip", s))
		if i > 0 {
			g.Edge(hostile[i-1], s, A("label", s))
		}
	}
	src := g.Bytes()
	parse(t, src, func(pg *cgraph.Graph) {
		n, err := pg.NodeNum()
		if err != nil {
			t.Fatal(err)
		}
		if n != len(hostile) {
			t.Errorf("%d nodes for %d distinct names:\n%s", n, len(hostile), src)
		}
		e, err := pg.EdgeNum()
		if err != nil {
			t.Fatal(err)
		}
		if e != len(hostile)-1 {
			t.Errorf("%d edges, want %d:\n%s", e, len(hostile)-1, src)
		}
		if got := pg.GetStr("label"); got != `title with \"quotes\" and \\` && got != `title with "quotes" and \\` {
			t.Errorf("graph label read back as %q", got)
		}
		labels := map[string]bool{}
		for nd, err := pg.FirstNode(); nd != nil && err == nil; nd, err = pg.NextNode(nd) {
			l := nd.GetStr("label")
			labels[l] = true
			if strings.ContainsAny(l, "\x00\x07\x1b\r\t\n") || !isUTF8(l) {
				t.Errorf("label %q holds an unprintable character", l)
			}
			if nd.GetStr("shape") != "box" {
				t.Errorf("node %q lost the default shape", l)
			}
		}
		for _, s := range hostile {
			want := labelAsRead(s)
			if s == "" {
				want = `\N` // Graphviz reports an empty label as its default
			}
			if !labels[want] {
				t.Errorf("no node labelled %q (from %q); labels: %v", want, s, labels)
			}
		}
	})
}

// labelAsRead is how Graphviz's parser keeps Quote(s): the quotes gone,
// \" a quote, other escapes as written (Graphviz reads \\ and \n when it
// draws the label).
func labelAsRead(s string) string {
	q := Quote(s)
	return strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
}

func isUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// HTML-like labels with hostile text parse, and keep the text as entities.
func TestHTMLLabels(t *testing.T) {
	g := Digraph("html")
	for i, s := range hostile {
		g.Node("n"+string(rune('a'+i)), HTML("label", "<B>"+EscapeHTML(s)+"</B><BR/>"+EscapeHTML(s)))
	}
	src := g.Bytes()
	parse(t, src, func(pg *cgraph.Graph) {
		n, err := pg.NodeNum()
		if err != nil || n != len(hostile) {
			t.Fatalf("%d nodes (%v), want %d:\n%s", n, err, len(hostile), src)
		}
		for nd, err := pg.FirstNode(); nd != nil && err == nil; nd, err = pg.NextNode(nd) {
			l := nd.GetStr("label")
			if !strings.HasPrefix(l, "<B>") || strings.Count(l, "<") != 3 || strings.ContainsAny(l, "\x00\x07\x1b\r\n") {
				t.Errorf("label %q: the text changed the markup or kept control characters", l)
			}
		}
	})
}

// Subgraphs and clusters nest, each statement where it was added.
func TestSubgraphs(t *testing.T) {
	g := Digraph("G")
	g.NodeDefaults(A("shape", "box"))
	c := g.Subgraph("cluster_0")
	g.Node("after")
	c.Attrs(A("label", "a \"cluster\""))
	c.Node("inside", A("label", "in"))
	c.Subgraph("").Node("deeper")
	g.Edge("inside", "after")
	want := `digraph G {
	node [shape="box"];
	subgraph cluster_0 {
		graph [label="a \"cluster\""];
		inside [label="in"];
		subgraph {
			deeper;
		}
	}
	after;
	inside -> after;
}
`
	if got := string(g.Bytes()); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	parse(t, g.Bytes(), func(pg *cgraph.Graph) {
		sub, err := pg.SubGraphByName("cluster_0")
		if err != nil || sub == nil {
			t.Fatalf("no cluster_0: %v", err)
		}
		if n, _ := sub.NodeNum(); n != 2 {
			t.Errorf("cluster_0 holds %d nodes, want 2", n)
		}
		if n, _ := pg.NodeNum(); n != 3 {
			t.Errorf("%d nodes, want 3", n)
		}
	})
	u := Undirected("")
	u.Edge("a", "b")
	if got := string(u.Bytes()); got != "graph {\n\ta -- b;\n}\n" {
		t.Errorf("undirected graph: %q", got)
	}
}

func TestID(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"n0", "n0"},
		{"_x1", "_x1"},
		{"42", "42"},
		{"0x", `"0x"`},
		{"", `""`},
		{"node", `"node"`},
		{"Subgraph", `"Subgraph"`},
		{"a b", `"a b"`},
		{"é", `"é"`},
		{"a-b", `"a-b"`},
		{`a\`, `"a\\"`},
	} {
		if got := ID(c.in); got != c.want {
			t.Errorf("ID(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"MPI_Init", `"MPI_Init"`},
		{`say "hi"`, `"say \"hi\""`},
		{`a\nb\l\N`, `"a\\nb\\l\\N"`},
		{"two\nlines", `"two\nlines"`},
		{"tab\there", `"tab here"`},
		{"\x1b[2J\r\b", `"\\x1b[2J\\x0d\\x08"`},
		{"c1\u009b bidi\u202e bad\xff", `"c1\\u009b bidi\\u202e bad\\xff"`},
	} {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestEscapeHTML(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"MPI_Init", "MPI_Init"},
		{`a<b> & "c" 'd'`, "a&lt;b&gt; &amp; &quot;c&quot; &#39;d&#39;"},
		{"two\nlines\tand tab", "two lines and tab"},
		{"\x1b]0;pwned\x07\r", `\x1b]0;pwned\x07\x0d`},
		{"c1\u0085 bidi\u2066 bad\xc3", `c1\u0085 bidi\u2066 bad\xc3`},
	} {
		if got := EscapeHTML(c.in); got != c.want {
			t.Errorf("EscapeHTML(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}
