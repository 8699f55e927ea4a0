package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/trace"
)

func newInfoCmd() *cobra.Command {
	var rf readFlags
	cmd := &cobra.Command{
		Use:   "info RUN",
		Short: "Summarise a recorded run: processes, threads, events, functions, compression, how it ended",
		Long: `info lists the processes and threads of a run directory, the events and
distinct functions of every trace, the compressed size and compression ratio,
and what the run's manifest (run.json) says about how each rank ended: exited
with a status, killed by a signal, killed by a timeout, or no record.

RUN is a difftrace run directory (run.json, trace.<rank>.info,
trace.<rank>.<thread>), the original ParLOT output
(Hdbg.<version>.<host>.<pid>.info and ….<pid>.<thread>; processes are then
numbered by ascending pid), or a uftrace recording: the directory uftrace
record wrote (processes in order of appearance), or a directory holding one
such directory per rank (uftrace.<rank>). Traces are streamed, so runs
larger than memory can be summarised.`,
		Example: `  difftrace info testdata/parlot/oddeven4
  difftrace info faulty/ --max-events 1e10`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			run, done, err := rf.openWithProgress(cmd, args[0])
			if err != nil {
				return err
			}
			ids := run.Traces()
			stats, err := run.Summarize(ids, false)
			done()
			if err != nil {
				return err
			}
			out, err := createOutput("", cmd.OutOrStdout())
			if err != nil {
				return err
			}
			writeInfo(out, run, stats)
			return out.Commit()
		},
	}
	rf.register(cmd)
	cmd.ValidArgsFunction = completeRunDir
	return cmd
}

// ratio returns the compression ratio (2 bytes per value over the file size).
func ratio(events uint64, bytes int64) string {
	if bytes == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(2*events)/float64(bytes))
}

// writeInfo prints what info shows. Whatever the run's files say (paths,
// the command line, hosts, how ranks ended, names in notes) is escaped
// with trace.Printable: anyone can write it.
func writeInfo(w io.Writer, run *decode.Run, stats []*decode.Stats) {
	safe := trace.Printable
	ids := run.Traces()
	var total decode.Stats
	var bytes int64
	for i, id := range ids {
		total.Add(stats[i])
		t, _ := run.Trace(id)
		bytes += t.Bytes
	}
	index := make(map[trace.ID]int, len(ids))
	for i, id := range ids {
		index[id] = i
	}

	fmt.Fprintf(w, "run         %s\n", run.Dir)
	switch run.Format {
	case decode.FormatParLOT:
		how := "processes numbered by ascending pid"
		if run.Manifest != nil && len(run.Procs) > 0 && run.Procs[0].Rank != nil {
			how = "processes numbered by rank from " + decode.ManifestName
		}
		fmt.Fprintf(w, "format      ParLOT (original tool output; %s)\n", how)
	case decode.FormatRun:
		fmt.Fprintf(w, "format      difftrace run directory (process = rank)\n")
	case decode.FormatUftrace:
		fmt.Fprintf(w, "format      uftrace recording (16-byte records, uncompressed; ratio is against 2 bytes per event)\n")
	default:
		fmt.Fprintf(w, "format      %s\n", run.Format)
	}
	if m := run.Manifest; m != nil {
		fmt.Fprintf(w, "recorded by %s %s, backend %s, images %s\n", safe(orDash(m.Tool)), safe(orDash(m.ToolVersion)), safe(orDash(m.Backend)), safe(orDash(m.Images)))
		if len(m.Command) > 0 {
			fmt.Fprintf(w, "command     %s\n", safe(strings.Join(m.Command, " ")))
		}
		if !m.Start.IsZero() {
			end := "not recorded"
			if !m.End.IsZero() {
				end = m.End.Format("2006-01-02 15:04:05 MST") + fmt.Sprintf(" (%s)", m.End.Sub(m.Start).Round(1e6))
			}
			fmt.Fprintf(w, "started     %s, ended %s\n", m.Start.Format("2006-01-02 15:04:05 MST"), end)
		}
	} else {
		fmt.Fprintf(w, "manifest    none (no %s: how the processes ended is not recorded)\n", decode.ManifestName)
	}
	if progs := programs(run); len(progs) > 0 {
		fmt.Fprintf(w, "program     %s\n", safe(strings.Join(progs, ", ")))
	}
	fmt.Fprintf(w, "processes   %d\n", len(run.Procs))
	fmt.Fprintf(w, "traces      %d\n", len(ids))
	fmt.Fprintf(w, "events      %d (%d calls)\n", total.Events, total.Calls)
	fmt.Fprintf(w, "functions   %d called, of %d named in the function tables\n", len(total.Funcs), run.Symbols.Len()-1)
	fmt.Fprintf(w, "compressed  %d bytes, ratio %s (%d bytes uncompressed)\n", bytes, ratio(total.Events, bytes), 2*total.Events)
	if total.Open > 0 {
		fmt.Fprintf(w, "open calls  %d at the ends of traces (threads stopped inside calls: killed, crashed or hung)\n", total.Open)
	}

	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TRACE\tPID\tEVENTS\tFUNCTIONS\tOPEN\tBYTES\tRATIO\tFILE")
	for i, id := range ids {
		t, _ := run.Trace(id)
		st := stats[i]
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\n", id, pid(t.Proc), st.Events, len(st.Funcs), st.Open, t.Bytes, ratio(st.Events, t.Bytes), safe(filepath.Base(t.Path)))
	}
	tw.Flush()

	fmt.Fprintln(w)
	groups := decode.GroupStats(ids, stats, decode.ByProcess)
	byName := map[string]*decode.Stats{}
	for _, g := range groups {
		byName[g.Name] = g.Stats
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PROCESS\tPID\tHOST\tTHREADS\tEVENTS\tFUNCTIONS\tENDED")
	for _, p := range run.Procs {
		st := byName[p.ID().String()]
		if st == nil {
			st = &decode.Stats{}
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%d\t%s\n", p.Index, pid(p), safe(orDash(p.Host)), len(p.Threads), st.Events, len(st.Funcs), safe(ended(p.Rank)))
	}
	tw.Flush()

	var notes []string
	notes = append(notes, run.Notes...)
	notes = append(notes, run.TraceNotes()...) // what reading the traces found
	// Ranks with the same note share one line.
	var rankNotes []string
	ranksOf := map[string][]int{}
	for _, p := range run.Procs {
		if p.Rank != nil && p.Rank.Note != "" {
			if ranksOf[p.Rank.Note] == nil {
				rankNotes = append(rankNotes, p.Rank.Note)
			}
			ranksOf[p.Rank.Note] = append(ranksOf[p.Rank.Note], p.Rank.Rank)
		}
	}
	for _, n := range rankNotes {
		notes = append(notes, rankList(ranksOf[n])+": "+n)
	}
	for _, p := range run.Procs {
		if p.Rank == nil {
			continue
		}
		for _, th := range p.Rank.Threads {
			id := trace.ID{Proc: p.Index, Thread: th.Thread}
			if i, ok := index[id]; ok && th.Events != stats[i].Events {
				notes = append(notes, fmt.Sprintf("trace %s holds %d events but %s records %d", id, stats[i].Events, decode.ManifestName, th.Events))
			}
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range notes {
			fmt.Fprintf(w, "note: %s\n", safe(n))
		}
	}
}

// rankList names ascending ranks compactly: "rank 3", "ranks 0, 2–5".
func rankList(ranks []int) string {
	var parts []string
	for i := 0; i < len(ranks); {
		j := i
		for j+1 < len(ranks) && ranks[j+1] == ranks[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, strconv.Itoa(ranks[i]))
		case j == i+1:
			parts = append(parts, strconv.Itoa(ranks[i]), strconv.Itoa(ranks[j]))
		default:
			parts = append(parts, fmt.Sprintf("%d–%d", ranks[i], ranks[j]))
		}
		i = j + 1
	}
	if len(ranks) == 1 {
		return "rank " + parts[0]
	}
	return "ranks " + strings.Join(parts, ", ")
}

// programs lists the distinct paths of the run's programs as recorded, in
// process order.
func programs(run *decode.Run) []string {
	var ps []string
	for _, p := range run.Procs {
		if p.Program != "" && !slices.Contains(ps, p.Program) {
			ps = append(ps, p.Program)
		}
	}
	return ps
}

// ended says how a rank ended, from its manifest record.
func ended(r *decode.Rank) string {
	switch {
	case r == nil:
		return "no record"
	case r.Status != "":
		return r.Status
	case r.KilledByTimeout:
		if r.Signal != "" {
			return "killed by timeout (" + r.Signal + ")"
		}
		return "killed by timeout"
	case r.Signal != "":
		return "killed by " + r.Signal
	case r.Exited:
		return fmt.Sprintf("exited with status %d", r.ExitStatus)
	}
	return "no record of the end (the recorder stopped first)"
}

func pid(p *decode.Process) string {
	if p == nil || p.PID == 0 {
		return "-"
	}
	return fmt.Sprint(p.PID)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
