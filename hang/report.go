package hang

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/difftrace/difftrace/draw"
	"github.com/difftrace/difftrace/trace"
)

// WriteText prints the report: how the run ended, the classes as a tree,
// the progress of each trace (least first, at most rows of them; rows ≤ 0
// prints all) and the suspects with their reasons.
func (rep *Report) WriteText(w io.Writer, rows int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "run     %s\n", trace.Printable(rep.Run))
	if rep.Normal != "" {
		fmt.Fprintf(&b, "normal  %s\n", trace.Printable(rep.Normal))
	}
	if !rep.Hung {
		fmt.Fprintf(&b, "%s\n", trace.Printable(rep.Ended))
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "ended   %s\n", trace.Printable(rep.Ended))
	b.WriteString("\nwhere the traces ended (classes, by call stack):\n")
	rep.Classes.writeTree(&b, "", true, true)

	fmt.Fprintf(&b, "\nprogress, least first (calls under %s):\n", trace.Printable(rep.Filter))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  TRACE\tWHERE\tSTOPPED IN")
	for i, p := range rep.Progress {
		if rows > 0 && i == rows {
			fmt.Fprintf(tw, "  … %d more (--rows 0 shows all)\t\t\n", len(rep.Progress)-rows)
			break
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", p.Trace, trace.Printable(p.Where), trace.Printable(last(p.End)))
	}
	tw.Flush()

	if rep.WaitFor != nil {
		b.WriteString("\nwho waited for whom (capture's MPI wrapper):\n")
		for _, l := range rep.WaitFor.lines() {
			b.WriteString("  " + trace.Printable(l) + "\n")
		}
	}

	b.WriteString("\nsuspects:\n")
	writeSuspects(&b, rep.Suspects, "  ")
	writeLoops(&b, rep.Loops, "")
	for _, n := range rep.Notes {
		fmt.Fprintf(&b, "note: %s\n", trace.Printable(n))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSuspects lists the suspects with their reasons, or says there are
// none.
func writeSuspects(b *strings.Builder, suspects []Suspect, indent string) {
	if len(suspects) == 0 {
		b.WriteString(indent + "none\n")
	}
	for _, s := range suspects {
		fmt.Fprintf(b, "%s%s  %s\n", indent, s.Trace, trace.Printable(s.Reason))
	}
}

// writeLoops lists the loops the report names, in ID order.
func writeLoops(b *strings.Builder, loops map[string]string, indent string) {
	if len(loops) == 0 {
		return
	}
	ids := slices.Collect(maps.Keys(loops))
	slices.SortFunc(ids, func(a, c string) int {
		x, _ := strconv.Atoi(a[1:])
		y, _ := strconv.Atoi(c[1:])
		return x - y
	})
	fmt.Fprintf(b, "%sloops:\n", indent)
	for _, id := range ids {
		fmt.Fprintf(b, "%s  %s = %s\n", indent, id, trace.Printable(loops[id]))
	}
}

// Dot is the classes' tree as Graphviz source, for draw.Render.
func (rep *Report) Dot() []byte {
	if rep.Classes == nil {
		return []byte("digraph hang {\n\tn0 [shape=box, label=" + draw.Quote(rep.Ended) + "];\n}\n")
	}
	return rep.Classes.dot()
}

// WriteBrief prints how the run ended, the classes and the suspects: the
// hang section another report (rank's) puts above its own.
func (rep *Report) WriteBrief(w io.Writer) error {
	if !rep.Hung {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "hang    %s\n", trace.Printable(rep.Ended))
	b.WriteString("        where the traces ended:\n")
	var tree strings.Builder
	rep.Classes.writeTree(&tree, "", true, true)
	for _, l := range strings.SplitAfter(tree.String(), "\n") {
		if l != "" {
			b.WriteString("      " + l)
		}
	}
	b.WriteString("        suspects (difftrace hang for the details):\n")
	writeSuspects(&b, rep.Suspects, "          ")
	writeLoops(&b, rep.Loops, "        ")
	_, err := io.WriteString(w, b.String())
	return err
}
