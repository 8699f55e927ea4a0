package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/trace"
)

// Stats is what "difftrace stats" counts of a run: per group of traces (a
// thread, a process or the whole program), how often each function was
// called and, when counted, each caller→callee edge, most first. Names are
// kept exactly; the text and the CSV escape them (trace.Printable).
type Stats struct {
	Run    string       `json:"run"`
	By     string       `json:"by"` // the groups: thread, process or program
	Groups []StatsGroup `json:"groups"`
	// Edges says that the edges were counted: the text and the CSV list
	// them, even when there are none.
	Edges bool `json:"-"`
}

// StatsGroup is the counts of one group of traces.
type StatsGroup struct {
	Name string `json:"name"` // "P.T", "P" or "program"
	// Processes counts the processes of the group.
	Processes int    `json:"-"`
	Traces    int    `json:"traces"`
	Events    uint64 `json:"events"`
	Calls     uint64 `json:"calls"`
	Open      uint64 `json:"open_calls"`
	Unmatched uint64 `json:"unmatched_returns"`
	MaxDepth  int    `json:"max_depth"`
	// Called counts the distinct functions called; Functions may list
	// fewer (the top ones).
	Called    int          `json:"-"`
	Functions []StatsCount `json:"functions"`
	Edges     []StatsEdge  `json:"edges,omitempty"`
}

// StatsFunc is a function as stats names it.
type StatsFunc struct {
	Image string `json:"image"`
	Func  string `json:"func"` // as written: demangled, with its parameters
	// Label is "image:function" as the table shows it (trace.Table.Label).
	Label string `json:"-"`
}

// StatsCount is how often a function was called.
type StatsCount struct {
	StatsFunc
	Calls uint64 `json:"calls"`
}

// StatsEdge is how often a caller called a callee.
type StatsEdge struct {
	Caller *StatsFunc `json:"caller"` // nil: called with no caller, the outermost frames
	Callee *StatsFunc `json:"callee"`
	Calls  uint64     `json:"calls"`
}

func (*Stats) defaultFormat() Format { return Text }
func (*Stats) name() string          { return "the call counts" }

// NewStats builds the Stats of the groups of run dir, grouped by level,
// naming functions with names; top > 0 keeps the top functions (and
// edges) of each group. edges says the edges were counted.
func NewStats(dir string, groups []decode.Group, level decode.Level, names decode.Namer, edges bool, top int) *Stats {
	d := &Stats{Run: dir, By: level.String(), Groups: []StatsGroup{}, Edges: edges}
	fn := func(s trace.Symbol) *StatsFunc {
		if s == trace.Return {
			return nil
		}
		n := names.Name(s)
		return &StatsFunc{Image: n.Image, Func: n.Func, Label: n.Qualify(names.Label(s))}
	}
	for _, g := range groups {
		st := g.Stats
		sg := StatsGroup{Name: g.Name, Processes: len(g.Procs), Traces: st.Traces, Events: st.Events, Calls: st.Calls, Open: st.Open,
			Unmatched: st.Unmatched, MaxDepth: st.MaxDepth, Called: len(st.Funcs), Functions: []StatsCount{}}
		for _, c := range statsTop(st.ByCalls(names), top) {
			sg.Functions = append(sg.Functions, StatsCount{*fn(c.Func), c.Calls})
		}
		if edges {
			sg.Edges = []StatsEdge{}
			for _, c := range statsTop(st.EdgesByCalls(names), top) {
				sg.Edges = append(sg.Edges, StatsEdge{fn(c.Caller), fn(c.Callee), c.Calls})
			}
		}
		d.Groups = append(d.Groups, sg)
	}
	return d
}

// statsTop keeps the first top of s, all of it when top is 0.
func statsTop[T any](s []T, top int) []T {
	if top > 0 && len(s) > top {
		return s[:top]
	}
	return s
}

// title names a group in the text.
func (d *Stats) title(g *StatsGroup) string {
	switch d.By {
	case "thread":
		return "thread " + g.Name
	case "process":
		return "process " + g.Name
	}
	return fmt.Sprintf("program (%s)", Count(uint64(g.Processes), "process"))
}

// statsLabel is how the text shows a function: "(root)" for no caller.
func statsLabel(f *StatsFunc) string {
	if f == nil {
		return "(root)"
	}
	return trace.Printable(f.Label)
}

// writeText writes a table per group: its totals, its functions by calls
// and, when counted, its edges.
func (d *Stats) writeText(out io.Writer, _ Options) error {
	for gi := range d.Groups {
		g := &d.Groups[gi]
		if gi > 0 {
			fmt.Fprintln(out)
		}
		fmt.Fprintf(out, "== %s: %s, %s, %s, %s, max depth %d",
			d.title(g), Count(uint64(g.Traces), "trace"), Count(g.Events, "event"), Count(g.Calls, "call"), Count(uint64(g.Called), "function"), g.MaxDepth)
		if g.Open > 0 {
			fmt.Fprintf(out, ", %s at the end", Count(g.Open, "open call"))
		}
		fmt.Fprintln(out)
		w := len("CALLS")
		for _, c := range g.Functions {
			w = max(w, decimalWidth(c.Calls))
		}
		fmt.Fprintf(out, "%*s  FUNCTION\n", w, "CALLS")
		for _, c := range g.Functions {
			fmt.Fprintf(out, "%*d  %s\n", w, c.Calls, statsLabel(&c.StatsFunc))
		}
		if !d.Edges {
			continue
		}
		w = len("CALLS")
		nw := len("CALLER")
		for _, c := range g.Edges {
			w = max(w, decimalWidth(c.Calls))
			nw = max(nw, len(statsLabel(c.Caller)))
		}
		fmt.Fprintf(out, "\n%*s  %-*s  CALLEE\n", w, "CALLS", nw, "CALLER")
		for _, c := range g.Edges {
			fmt.Fprintf(out, "%*d  %-*s  %s\n", w, c.Calls, nw, statsLabel(c.Caller), statsLabel(c.Callee))
		}
	}
	return nil
}

// writeCSV writes one row per function (kind "function") and per edge
// (kind "edge"); a function row leaves the caller columns empty, an edge
// with no caller names it "(root)". Names are escaped as in the text
// (trace.Printable): a CSV file is read in terminals and spreadsheets
// too, and CSV has no escapes of its own; JSON keeps them exactly.
func (d *Stats) writeCSV(out io.Writer, _ Options) error {
	w := csv.NewWriter(out)
	w.Write([]string{d.By, "kind", "caller_image", "caller", "image", "function", "calls"})
	p := trace.Printable
	for _, g := range d.Groups {
		for _, c := range g.Functions {
			w.Write([]string{g.Name, "function", "", "", p(c.Image), p(c.Func), strconv.FormatUint(c.Calls, 10)})
		}
		if !d.Edges {
			continue
		}
		for _, c := range g.Edges {
			ci, cf := "", "(root)"
			if c.Caller != nil {
				ci, cf = p(c.Caller.Image), p(c.Caller.Func)
			}
			var ei, ef string
			if c.Callee != nil {
				ei, ef = p(c.Callee.Image), p(c.Callee.Func)
			}
			w.Write([]string{g.Name, "edge", ci, cf, ei, ef, strconv.FormatUint(c.Calls, 10)})
		}
	}
	w.Flush()
	return nil
}

// decimalWidth returns the width of n printed in decimal.
func decimalWidth(n uint64) int { return len(strconv.FormatUint(n, 10)) }
