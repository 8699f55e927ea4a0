package hang

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/trace"
)

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

// WriteBrief prints how the run ended, the classes and the suspects: the
// hang section another report (rank's) puts above its own.
// report.HangBrief writes the same section as a report document; this
// one stays only until rank's text is one.
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
