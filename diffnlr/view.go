package diffnlr

import (
	"fmt"

	"github.com/difftrace/difftrace/internal/plural"
)

// View is a picture's diff abridged for display, as a drawing shows it
// (package draw/diffgraph): rows of element labels and lines that stand
// for what is hidden, with the words around them. WriteText prints the
// same abridged diff.
type View struct {
	Parts []Part
	// Title names the comparison ("diffNLR" when the picture has none);
	// Normal and Faulty name the runs ("normal", "faulty" by default).
	Title, Normal, Faulty string
	// Summary counts the elements of each side and the changes, and says
	// when a trace is empty: "normal: 5 elements · faulty: 6 elements · 1
	// change".
	Summary string
	// End marks the faulty trace's last event where it was cut short:
	// "faulty trace ends here" (the picture's Ended says why).
	End string
}

// Part is a run of rows of one kind; or, with Skipped set, a line that
// stands for changes not shown; or, with Head set, the heading of a
// section, with a note on its traces.
type Part struct {
	Kind Kind
	Rows []Row
	// Skipped, on two lines, counts what the changes not shown hold.
	Skipped string
	// Head is a section's title, Note what the section's traces are
	// ("unchanged", "the faulty trace is empty").
	Head, Note string
}

// Row is one line of a part: an element, or one that stands for hidden
// elements of the part's kind.
type Row struct {
	// Label is the element's label, or for hidden elements the line that
	// counts them ("… 187 more faulty-only …").
	Label  string
	Hidden bool
	// Last marks the faulty run's last recorded event, when the run was
	// cut short and ends differently from the normal one.
	Last bool
}

// View abridges the picture's diff as p.Abridge says.
func (p *Picture) View() View {
	v := p.view()
	normal, faulty := p.names()
	out := View{Title: p.title(), Normal: normal, Faulty: faulty, End: p.endText()}
	out.Summary = fmt.Sprintf("%s: %s %s · %s: %s %s · %s %s",
		normal, thousands(v.normalLen), plural.Word(v.normalLen, "element", "elements"),
		faulty, thousands(v.faultyLen), plural.Word(v.faultyLen, "element", "elements"),
		thousands(v.changes), plural.Word(v.changes, "change", "changes"))
	if s := p.wholeEmptyText(&v); s != "" {
		out.Summary += " · " + s
	}
	for _, pt := range v.parts {
		q := Part{Kind: pt.kind, Head: pt.head, Note: pt.note}
		if pt.skip != nil {
			q.Skipped = skipLines(pt.skip)
		}
		for _, r := range pt.rows {
			row := Row{Hidden: r.hidden > 0, Last: r.last}
			if row.Hidden {
				row.Label = p.rowText(pt.kind, r)
			} else {
				row.Label = p.label(r.elem)
			}
			q.Rows = append(q.Rows, row)
		}
		out.Parts = append(out.Parts, q)
	}
	return out
}

// IsDefault reports whether a is the default abridging (its zero fields
// and the defaults they take alike).
func (a Abridge) IsDefault() bool { return a.withDefaults() == (Abridge{}).withDefaults() }
