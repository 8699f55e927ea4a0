package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/trace"
)

type statsFlags struct {
	readFlags
	by     string
	edges  bool
	format string
	traces string
	top    int
	out    string
}

func newStatsCmd() *cobra.Command {
	var f statsFlags
	cmd := &cobra.Command{
		Use:   "stats RUN",
		Short: "Count calls per function and caller→callee edges, per thread, process or program",
		Long: `stats counts how often each function was called and, with --edges, how often
each caller called each callee (calls made with no caller, the outermost
frames, have the caller "(root)"). Counts are per thread, per process (its
threads together) or per program (every trace together), sorted by count,
most first, then by name.

Traces are streamed in parallel: memory grows with the distinct functions
and edges, not with the events, so runs larger than memory can be counted.`,
		Example: `  difftrace stats testdata/parlot/oddeven4
  difftrace stats testdata/parlot/oddeven4 --by program --edges
  difftrace stats faulty/ --by thread --trace 5 --format csv -o faulty5.csv
  difftrace stats faulty/ --top 10 --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			level, err := decode.ParseLevel(f.by)
			if err != nil {
				return err
			}
			switch f.format {
			case "table", "json", "csv":
			default:
				return fmt.Errorf("--format %q: want table, json or csv", f.format)
			}
			if f.top < 0 {
				return fmt.Errorf("--top %d: want 0 (all) or more", f.top)
			}
			run, done, err := f.openWithProgress(cmd, args[0])
			if err != nil {
				return err
			}
			ids, err := run.Select(f.traces)
			if err != nil {
				return err
			}
			// The output first: an -o that cannot be written fails before
			// the work.
			out, err := createOutput(f.out, cmd.OutOrStdout())
			if err != nil {
				return err
			}
			defer out.Abort()
			stats, err := run.Summarize(ids, f.edges)
			done()
			if err != nil {
				return err
			}
			groups := decode.GroupStats(ids, stats, level)
			sw := statsWriter{w: out, tab: run, f: &f, level: level}
			switch f.format {
			case "table":
				sw.table(groups)
			case "json":
				sw.json(run.Dir, groups)
			case "csv":
				sw.csv(groups)
			}
			return out.Commit()
		},
	}
	cmd.Flags().StringVar(&f.by, "by", "process", "count per thread, process or program")
	cmd.Flags().BoolVar(&f.edges, "edges", false, "also count caller→callee edges")
	cmd.Flags().StringVarP(&f.format, "format", "f", "table", "output format: table, json or csv")
	cmd.Flags().StringVarP(&f.traces, "trace", "t", "", "traces to count: P.T (a thread) or P (a process), comma-separated; all when empty")
	cmd.Flags().IntVar(&f.top, "top", 0, "show only the `N` most frequent functions (and edges) of each group; 0 shows all")
	cmd.Flags().StringVarP(&f.out, "output", "o", "", "write to `FILE` (written whole or not at all) instead of standard output")
	f.register(cmd)
	cmd.ValidArgsFunction = completeRunDir
	cmd.RegisterFlagCompletionFunc("by", cobra.FixedCompletions([]string{"thread", "process", "program"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"table", "json", "csv"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

type statsWriter struct {
	w     io.Writer
	tab   decode.Namer
	f     *statsFlags
	level decode.Level
}

func (s *statsWriter) funcs(st *decode.Stats) []decode.FuncCount {
	fc := st.ByCalls(s.tab)
	if s.f.top > 0 && len(fc) > s.f.top {
		fc = fc[:s.f.top]
	}
	return fc
}

func (s *statsWriter) edgeList(st *decode.Stats) []decode.EdgeCount {
	ec := st.EdgesByCalls(s.tab)
	if s.f.top > 0 && len(ec) > s.f.top {
		ec = ec[:s.f.top]
	}
	return ec
}

func (s *statsWriter) name(sym trace.Symbol) string {
	if sym == trace.Return {
		return "(root)"
	}
	return trace.Printable(s.tab.Name(sym).Qualify(s.tab.Label(sym)))
}

func (s *statsWriter) title(g decode.Group) string {
	switch s.level {
	case decode.ByThread:
		return "thread " + g.Name
	case decode.ByProcess:
		return "process " + g.Name
	}
	return fmt.Sprintf("program (%s)", plural(uint64(len(g.Procs)), "process"))
}

func (s *statsWriter) table(groups []decode.Group) {
	for gi, g := range groups {
		st := g.Stats
		if gi > 0 {
			fmt.Fprintln(s.w)
		}
		fmt.Fprintf(s.w, "== %s: %s, %s, %s, %s, max depth %d",
			s.title(g), plural(uint64(st.Traces), "trace"), plural(st.Events, "event"), plural(st.Calls, "call"), plural(uint64(len(st.Funcs)), "function"), st.MaxDepth)
		if st.Open > 0 {
			fmt.Fprintf(s.w, ", %s at the end", plural(st.Open, "open call"))
		}
		fmt.Fprintln(s.w)
		fc := s.funcs(st)
		w := len("CALLS")
		for _, c := range fc {
			w = max(w, countWidth(c.Calls))
		}
		fmt.Fprintf(s.w, "%*s  FUNCTION\n", w, "CALLS")
		for _, c := range fc {
			fmt.Fprintf(s.w, "%*d  %s\n", w, c.Calls, s.name(c.Func))
		}
		if !s.f.edges {
			continue
		}
		ec := s.edgeList(st)
		w = len("CALLS")
		for _, c := range ec {
			w = max(w, countWidth(c.Calls))
		}
		nw := len("CALLER")
		for _, c := range ec {
			nw = max(nw, len(s.name(c.Caller)))
		}
		fmt.Fprintf(s.w, "\n%*s  %-*s  CALLEE\n", w, "CALLS", nw, "CALLER")
		for _, c := range ec {
			fmt.Fprintf(s.w, "%*d  %-*s  %s\n", w, c.Calls, nw, s.name(c.Caller), s.name(c.Callee))
		}
	}
}

// countWidth returns the width of a count printed in decimal.
func countWidth(c uint64) int { return len(strconv.FormatUint(c, 10)) }

type jsonFunc struct {
	Image string `json:"image"`
	Func  string `json:"func"` // as written: demangled, with its parameters
}

func (s *statsWriter) jsonName(sym trace.Symbol) *jsonFunc {
	if sym == trace.Return {
		return nil
	}
	n := s.tab.Name(sym)
	return &jsonFunc{n.Image, n.Func}
}

func (s *statsWriter) json(dir string, groups []decode.Group) {
	type fn struct {
		jsonFunc
		Calls uint64 `json:"calls"`
	}
	type edge struct {
		Caller *jsonFunc `json:"caller"` // null: called with no caller
		Callee *jsonFunc `json:"callee"`
		Calls  uint64    `json:"calls"`
	}
	type group struct {
		Name      string `json:"name"`
		Traces    int    `json:"traces"`
		Events    uint64 `json:"events"`
		Calls     uint64 `json:"calls"`
		Open      uint64 `json:"open_calls"`
		Unmatched uint64 `json:"unmatched_returns"`
		MaxDepth  int    `json:"max_depth"`
		Functions []fn   `json:"functions"`
		Edges     []edge `json:"edges,omitempty"`
	}
	doc := struct {
		Run    string  `json:"run"`
		By     string  `json:"by"`
		Groups []group `json:"groups"`
	}{Run: dir, By: s.level.String(), Groups: []group{}}
	for _, g := range groups {
		st := g.Stats
		jg := group{Name: g.Name, Traces: st.Traces, Events: st.Events, Calls: st.Calls, Open: st.Open,
			Unmatched: st.Unmatched, MaxDepth: st.MaxDepth, Functions: []fn{}}
		for _, c := range s.funcs(st) {
			jg.Functions = append(jg.Functions, fn{*s.jsonName(c.Func), c.Calls})
		}
		if s.f.edges {
			jg.Edges = []edge{}
			for _, c := range s.edgeList(st) {
				jg.Edges = append(jg.Edges, edge{s.jsonName(c.Caller), s.jsonName(c.Callee), c.Calls})
			}
		}
		doc.Groups = append(doc.Groups, jg)
	}
	enc := json.NewEncoder(s.w)
	enc.SetIndent("", "  ")
	enc.Encode(doc)
}

// csv writes one row per function (kind "function") and per edge (kind
// "edge"); a function row leaves the caller columns empty, an edge with no
// caller names it "(root)". Names are escaped as in the table
// (trace.Printable): a CSV file is read in terminals and spreadsheets too,
// and CSV has no escapes of its own; JSON keeps them exactly.
func (s *statsWriter) csv(groups []decode.Group) {
	w := csv.NewWriter(s.w)
	w.Write([]string{s.level.String(), "kind", "caller_image", "caller", "image", "function", "calls"})
	for _, g := range groups {
		for _, c := range s.funcs(g.Stats) {
			n := s.tab.Name(c.Func)
			w.Write([]string{g.Name, "function", "", "", trace.Printable(n.Image), trace.Printable(n.Func), strconv.FormatUint(c.Calls, 10)})
		}
		if !s.f.edges {
			continue
		}
		for _, c := range s.edgeList(g.Stats) {
			ci, cf := "", "(root)"
			if c.Caller != trace.Return {
				n := s.tab.Name(c.Caller)
				ci, cf = trace.Printable(n.Image), trace.Printable(n.Func)
			}
			n := s.tab.Name(c.Callee)
			w.Write([]string{g.Name, "edge", ci, cf, trace.Printable(n.Image), trace.Printable(n.Func), strconv.FormatUint(c.Calls, 10)})
		}
	}
	w.Flush()
}
