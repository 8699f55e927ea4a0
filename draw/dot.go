package draw

import (
	"strings"

	"github.com/difftrace/difftrace/trace"
)

// Quote makes s a DOT double-quoted string whose label shows s as it is: a
// quote or a backslash is escaped (so "\n", "\l" or "\N" in a name are no
// label escapes), a line feed breaks the line, and control characters and
// the like are shown as trace.Printable writes them ("\x1b"): Graphviz
// would otherwise pass them into the SVG or its JSON, where they end the
// picture's text or fail to parse.
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

// HTML escapes s for a Graphviz HTML-like label: &, <, > and quotes as
// entities, line feeds and tabs as spaces, control characters and the like
// as trace.Printable writes them (XML has no place for them).
func HTML(s string) string {
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
