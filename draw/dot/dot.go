// Package dot writes Graphviz DOT source: a graph, its attributes, nodes,
// edges and subgraphs (clusters among them), with one escaping of IDs and
// labels, the one the DOT language defines
// (https://graphviz.org/doc/info/lang.html). Every picture difftrace lays
// out with Graphviz is written with it.
//
// An ID is written as it is when it is a plain DOT identifier or numeral
// that is not a keyword (n0, c12, 3), else double-quoted (see Quote).
// Attribute values are always double-quoted, but for HTML-like labels (see
// HTML), whose text is escaped as HTML (EscapeHTML). Names from traces may
// hold anything (quotes, backslashes, line feeds, <>&, C++ templates,
// bytes that are not UTF-8); neither escaping lets them end a string, add
// a statement, or carry control characters into the picture.
package dot

import (
	"bytes"
	"io"
	"strings"

	"github.com/difftrace/difftrace/trace"
)

// Attr is one attribute of a graph, node or edge: a name and its value.
type Attr struct {
	Name  string
	Value string
	// HTML marks Value as an HTML-like label's markup, written between
	// angle brackets instead of quotes.
	HTML bool
}

// A returns the attribute name=value, value a string (quoted as Quote
// says).
func A(name, value string) Attr { return Attr{Name: name, Value: value} }

// HTML returns the attribute name=<markup>, an HTML-like label. Markup is
// Graphviz's HTML subset (<B>, <TABLE>, …); text from elsewhere goes into it
// through EscapeHTML.
func HTML(name, markup string) Attr { return Attr{Name: name, Value: markup, HTML: true} }

// Graph is a graph, digraph or subgraph being written: its statements in
// the order they were added.
type Graph struct {
	head  string // "digraph name", "subgraph cluster_0"
	edge  string // " -> " or " -- "
	stmts []stmt
}

// stmt is one statement: a line, or a subgraph.
type stmt struct {
	line string
	sub  *Graph
}

// Digraph starts a directed graph named name ("" for none).
func Digraph(name string) *Graph { return newGraph("digraph", name, " -> ") }

// Undirected starts an undirected graph named name ("" for none).
func Undirected(name string) *Graph { return newGraph("graph", name, " -- ") }

func newGraph(kind, name, edge string) *Graph {
	head := kind
	if name != "" {
		head += " " + ID(name)
	}
	return &Graph{head: head, edge: edge}
}

// Attrs sets attributes of the graph: "graph [a, b];".
func (g *Graph) Attrs(a ...Attr) { g.line("graph", a) }

// NodeDefaults sets the attributes of the nodes declared after it:
// "node [a, b];".
func (g *Graph) NodeDefaults(a ...Attr) { g.line("node", a) }

// EdgeDefaults sets the attributes of the edges declared after it:
// "edge [a, b];".
func (g *Graph) EdgeDefaults(a ...Attr) { g.line("edge", a) }

// Node declares the node id with attributes a.
func (g *Graph) Node(id string, a ...Attr) { g.line(ID(id), a) }

// Edge declares an edge from tail to head with attributes a.
func (g *Graph) Edge(tail, head string, a ...Attr) { g.line(ID(tail)+g.edge+ID(head), a) }

// Subgraph adds a subgraph named id, which the returned Graph fills; a
// name beginning with "cluster" makes it a cluster, drawn in a box of its
// own. Its statements stay at this place in g, however late they are added.
func (g *Graph) Subgraph(id string) *Graph {
	head := "subgraph"
	if id != "" {
		head += " " + ID(id)
	}
	s := &Graph{head: head, edge: g.edge}
	g.stmts = append(g.stmts, stmt{sub: s})
	return s
}

func (g *Graph) line(target string, a []Attr) {
	var b strings.Builder
	b.WriteString(target)
	if len(a) > 0 {
		b.WriteString(" [")
		for i, x := range a {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(ID(x.Name))
			b.WriteByte('=')
			if x.HTML {
				b.WriteByte('<')
				b.WriteString(x.Value)
				b.WriteByte('>')
			} else {
				b.WriteString(Quote(x.Value))
			}
		}
		b.WriteByte(']')
	}
	b.WriteByte(';')
	g.stmts = append(g.stmts, stmt{line: b.String()})
}

// Bytes returns the graph's DOT source.
func (g *Graph) Bytes() []byte {
	var b bytes.Buffer
	g.write(&b, 0)
	return b.Bytes()
}

// WriteTo writes the graph's DOT source to w.
func (g *Graph) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(g.Bytes())
	return int64(n), err
}

func (g *Graph) write(b *bytes.Buffer, depth int) {
	indent := strings.Repeat("\t", depth)
	b.WriteString(indent)
	b.WriteString(g.head)
	b.WriteString(" {\n")
	for _, s := range g.stmts {
		if s.sub != nil {
			s.sub.write(b, depth+1)
			continue
		}
		b.WriteString(indent)
		b.WriteByte('\t')
		b.WriteString(s.line)
		b.WriteByte('\n')
	}
	b.WriteString(indent)
	b.WriteString("}\n")
}

// ID writes an ID (a graph, node or attribute name): as it is when it is
// a plain identifier (letters, digits and _, not first a digit) or a
// numeral and not a keyword of the language, else as Quote writes it.
func ID(s string) string {
	if plain(s) {
		return s
	}
	return Quote(s)
}

// keywords are DOT's, which it reads in any case.
var keywords = []string{"node", "edge", "graph", "digraph", "subgraph", "strict"}

// plain reports whether s can be written unquoted.
func plain(s string) bool {
	if s == "" {
		return false
	}
	for _, k := range keywords {
		if strings.EqualFold(s, k) {
			return false
		}
	}
	numeral := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			numeral = false
			break
		}
	}
	if numeral {
		return true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// Quote makes s a DOT double-quoted string whose label shows s as it is: a
// quote or a backslash is escaped (so "\n", "\l" or "\N" in a name are no
// label escapes, and a name ending in a backslash does not swallow the
// closing quote), a line feed breaks the line, a tab is a space, and
// control characters, bytes that are not UTF-8 and the like are shown as
// trace.Printable writes them ("\x1b"): Graphviz would otherwise pass them
// into the SVG or its JSON, where they end the picture's text or fail to
// parse.
func Quote(s string) string {
	s = trace.PrintableLines(s)
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// EscapeHTML escapes s as text of an HTML-like label: &, <, > and quotes
// as entities, line feeds and tabs as spaces, control characters, bytes
// that are not UTF-8 and the like as trace.Printable writes them (XML has
// no place for them).
func EscapeHTML(s string) string {
	s = trace.Printable(strings.NewReplacer("\n", " ", "\t", " ").Replace(s))
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&#39;")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
