package report

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/difftrace/difftrace/hang"
	"github.com/difftrace/difftrace/trace"
)

// HangAnalysis is the result of "difftrace hang": how a run ended, where
// its traces stopped (the classes, as a tree), how far each got, who
// waited for whom and whom to suspect. Its JSON is the analysis as it is.
type HangAnalysis struct {
	Analysis *hang.Report
	// Rows is how many traces the progress table lists, least progressed
	// first; 0 lists all.
	Rows int
}

func (*HangAnalysis) defaultFormat() Format { return Text }
func (*HangAnalysis) name() string          { return "hang analysis" }

func (h *HangAnalysis) writeJSON(w io.Writer, _ Options) error {
	return hangJSON(w, h.Analysis)
}

// hangJSON writes a hang analysis as JSON.
func hangJSON(w io.Writer, rep *hang.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// writeText writes the run (and the normal run), how it ended and, when it
// hung, the classes as a tree, the progress table, the waits, the
// suspects with their reasons, the loops they name and the notes.
func (h *HangAnalysis) writeText(w io.Writer, _ Options) error {
	rep := h.Analysis
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
	hangTree(&b, rep.Classes, "", true, true)

	fmt.Fprintf(&b, "\nprogress, least first (calls under %s):\n", trace.Printable(rep.Filter))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  TRACE\tWHERE\tSTOPPED IN")
	for i, p := range rep.Progress {
		if h.Rows > 0 && i == h.Rows {
			fmt.Fprintf(tw, "  … %d more (--rows 0 shows all)\t\t\n", len(rep.Progress)-h.Rows)
			break
		}
		stopped := "no call (it had returned from all)"
		if len(p.End) > 0 {
			stopped = p.End[len(p.End)-1]
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", p.Trace, trace.Printable(p.Where), trace.Printable(stopped))
	}
	tw.Flush()

	if rep.WaitFor != nil {
		b.WriteString("\nwho waited for whom (capture's MPI wrapper):\n")
		for _, l := range rep.WaitFor.Lines() {
			b.WriteString("  " + trace.Printable(l) + "\n")
		}
	}

	b.WriteString("\nsuspects:\n")
	hangSuspects(&b, rep.Suspects, "  ")
	hangLoops(&b, rep.Loops, "")
	for _, n := range rep.Notes {
		fmt.Fprintf(&b, "note: %s\n", trace.Printable(n))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// HangBrief is the hang section another command's text puts above its own
// (rank's): how the run ended, the classes and the suspects; nothing when
// the run did not hang. Its JSON is the analysis as it is.
type HangBrief struct {
	Analysis *hang.Report
}

func (*HangBrief) defaultFormat() Format { return Text }
func (*HangBrief) name() string          { return "hang section" }

func (h *HangBrief) writeJSON(w io.Writer, _ Options) error {
	return hangJSON(w, h.Analysis)
}

func (h *HangBrief) writeText(w io.Writer, _ Options) error {
	rep := h.Analysis
	if rep == nil || !rep.Hung {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "hang    %s\n", trace.Printable(rep.Ended))
	b.WriteString("        where the traces ended:\n")
	var tree strings.Builder
	hangTree(&tree, rep.Classes, "", true, true)
	for _, l := range strings.SplitAfter(tree.String(), "\n") {
		if l != "" {
			b.WriteString("      " + l)
		}
	}
	b.WriteString("        suspects (difftrace hang for the details):\n")
	hangSuspects(&b, rep.Suspects, "          ")
	hangLoops(&b, rep.Loops, "        ")
	_, err := io.WriteString(w, b.String())
	return err
}

// hangTree writes the classes' tree as indented lines with box-drawing
// branches, the traces of each node in its compact list.
func hangTree(b *strings.Builder, n *hang.Node, prefix string, last bool, top bool) {
	line := trace.Printable(strings.Join(n.Frames, " > "))
	if top {
		if line == "" {
			line = "all traces"
		}
		fmt.Fprintf(b, "  %s %s\n", line, n.List)
	} else {
		branch := "├─ "
		if last {
			branch = "└─ "
		}
		count := ""
		if n.Ended > 0 && len(n.Children) == 0 {
			traces := "traces"
			if n.Count == 1 {
				traces = "trace"
			}
			count = fmt.Sprintf("   %d %s", n.Count, traces)
		}
		fmt.Fprintf(b, "  %s%s%s %s%s\n", prefix, branch, line, n.List, count)
		if last {
			prefix += "   "
		} else {
			prefix += "│  "
		}
	}
	for i, c := range n.Children {
		hangTree(b, c, prefix, i == len(n.Children)-1, false)
	}
}

// hangSuspects lists the suspects with their reasons, or says there are
// none.
func hangSuspects(b *strings.Builder, suspects []hang.Suspect, indent string) {
	if len(suspects) == 0 {
		b.WriteString(indent + "none\n")
	}
	for _, s := range suspects {
		fmt.Fprintf(b, "%s%s  %s\n", indent, s.Trace, trace.Printable(s.Reason))
	}
}

// hangLoops lists the loops the analysis names, in ID order.
func hangLoops(b *strings.Builder, loops map[string]string, indent string) {
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
