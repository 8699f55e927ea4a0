package report

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/trace"
)

// Info is what "difftrace info" says of a run: its format and how it was
// recorded, its size and compression, a row per trace and per process
// (with how each process ended), and notes. Values are as the run's files
// hold them; the text escapes them (trace.Printable), since anyone can
// write those files.
type Info struct {
	Dir    string        `json:"dir"`
	Format decode.Format `json:"format"`
	// ByRank says that the processes of an original ParLOT run are
	// numbered by rank from its manifest, not by ascending pid.
	ByRank bool `json:"by_rank,omitempty"`
	// Recorder is what the run's manifest says of the recording; nil when
	// the run has none.
	Recorder *InfoRecorder `json:"recorder"`
	// Programs are the distinct paths of the run's programs, in process
	// order (Programs).
	Programs []string `json:"programs"`

	Events    uint64 `json:"events"`
	Calls     uint64 `json:"calls"`
	Functions int    `json:"functions"` // distinct functions called
	Named     int    `json:"named"`     // functions the function tables name
	Bytes     int64  `json:"bytes"`     // the traces' size on disk (compressed)
	Open      uint64 `json:"open_calls"`

	Traces    []InfoTrace   `json:"traces"`
	Processes []InfoProcess `json:"processes"`
	Notes     []string      `json:"notes"`
}

// InfoRecorder is how a run was recorded, from its manifest.
type InfoRecorder struct {
	Tool        string    `json:"tool"`
	ToolVersion string    `json:"tool_version"`
	Backend     string    `json:"backend"`
	Images      string    `json:"images"`
	Command     []string  `json:"command"`
	Start       time.Time `json:"start"` // zero when not recorded
	End         time.Time `json:"end"`   // zero when not recorded
}

// InfoTrace is one trace of a run.
type InfoTrace struct {
	ID        string `json:"trace"`
	PID       int    `json:"pid"` // 0 when unknown
	Events    uint64 `json:"events"`
	Functions int    `json:"functions"`
	Open      uint64 `json:"open_calls"`
	Bytes     int64  `json:"bytes"`
	File      string `json:"file"` // the file's name, without its directory
}

// InfoProcess is one process of a run.
type InfoProcess struct {
	Index     int    `json:"process"`
	PID       int    `json:"pid"`  // 0 when unknown
	Host      string `json:"host"` // "" when unknown
	Threads   int    `json:"threads"`
	Events    uint64 `json:"events"`
	Functions int    `json:"functions"`
	Ended     string `json:"ended"` // how it ended (Ended)
}

func (*Info) defaultFormat() Format { return Text }
func (*Info) name() string          { return "the run's summary" }

// NewInfo builds the Info of run from the Stats of its traces (stats[i]
// is of run.Traces()[i], as decode.Run.Summarize returns them).
func NewInfo(run *decode.Run, stats []*decode.Stats) *Info {
	ids := run.Traces()
	d := &Info{Dir: run.Dir, Format: run.Format, Programs: Programs(run), Named: run.Symbols.Len() - 1}
	d.ByRank = run.Format == decode.FormatParLOT && run.Manifest != nil && len(run.Procs) > 0 && run.Procs[0].Rank != nil
	if m := run.Manifest; m != nil {
		d.Recorder = &InfoRecorder{Tool: m.Tool, ToolVersion: m.ToolVersion, Backend: m.Backend, Images: m.Images,
			Command: m.Command, Start: m.Start, End: m.End}
	}
	var total decode.Stats
	index := make(map[trace.ID]int, len(ids))
	for i, id := range ids {
		index[id] = i
		total.Add(stats[i])
		t, _ := run.Trace(id)
		d.Bytes += t.Bytes
		st := stats[i]
		d.Traces = append(d.Traces, InfoTrace{ID: id.String(), PID: infoPID(t.Proc), Events: st.Events, Functions: len(st.Funcs),
			Open: st.Open, Bytes: t.Bytes, File: filepath.Base(t.Path)})
	}
	d.Events, d.Calls, d.Functions, d.Open = total.Events, total.Calls, len(total.Funcs), total.Open

	byName := map[string]*decode.Stats{}
	for _, g := range decode.GroupStats(ids, stats, decode.ByProcess) {
		byName[g.Name] = g.Stats
	}
	for _, p := range run.Procs {
		st := byName[p.ID().String()]
		if st == nil {
			st = &decode.Stats{}
		}
		d.Processes = append(d.Processes, InfoProcess{Index: p.Index, PID: infoPID(p), Host: p.Host, Threads: len(p.Threads),
			Events: st.Events, Functions: len(st.Funcs), Ended: Ended(p.Rank)})
	}

	d.Notes = append(d.Notes, run.Notes...)
	d.Notes = append(d.Notes, run.TraceNotes()...) // what reading the traces found
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
		d.Notes = append(d.Notes, RankList(ranksOf[n])+": "+n)
	}
	for _, p := range run.Procs {
		if p.Rank == nil {
			continue
		}
		for _, th := range p.Rank.Threads {
			id := trace.ID{Proc: p.Index, Thread: th.Thread}
			if i, ok := index[id]; ok && th.Events != stats[i].Events {
				d.Notes = append(d.Notes, fmt.Sprintf("trace %s holds %d events but %s records %d", id, stats[i].Events, decode.ManifestName, th.Events))
			}
		}
	}
	return d
}

// writeText writes the summary, then a table of the traces, a table of
// the processes and the notes.
func (d *Info) writeText(w io.Writer, _ Options) error {
	safe := trace.Printable
	fmt.Fprintf(w, "run         %s\n", d.Dir)
	switch d.Format {
	case decode.FormatParLOT:
		how := "processes numbered by ascending pid"
		if d.ByRank {
			how = "processes numbered by rank from " + decode.ManifestName
		}
		fmt.Fprintf(w, "format      ParLOT (original tool output; %s)\n", how)
	case decode.FormatRun:
		fmt.Fprintf(w, "format      difftrace run directory (process = rank)\n")
	case decode.FormatUftrace:
		fmt.Fprintf(w, "format      uftrace recording (16-byte records, uncompressed; ratio is against 2 bytes per event)\n")
	default:
		fmt.Fprintf(w, "format      %s\n", d.Format)
	}
	if m := d.Recorder; m != nil {
		fmt.Fprintf(w, "recorded by %s %s, backend %s, images %s\n", safe(infoDash(m.Tool)), safe(infoDash(m.ToolVersion)), safe(infoDash(m.Backend)), safe(infoDash(m.Images)))
		if len(m.Command) > 0 {
			fmt.Fprintf(w, "command     %s\n", safe(strings.Join(m.Command, " ")))
		}
		if !m.Start.IsZero() {
			end := "not recorded"
			if !m.End.IsZero() {
				end = m.End.Format("2006-01-02 15:04:05 MST") + fmt.Sprintf(" (%s)", m.End.Sub(m.Start).Round(time.Millisecond))
			}
			fmt.Fprintf(w, "started     %s, ended %s\n", m.Start.Format("2006-01-02 15:04:05 MST"), end)
		}
	} else {
		fmt.Fprintf(w, "manifest    none (no %s: how the processes ended is not recorded)\n", decode.ManifestName)
	}
	if len(d.Programs) > 0 {
		fmt.Fprintf(w, "program     %s\n", safe(strings.Join(d.Programs, ", ")))
	}
	fmt.Fprintf(w, "processes   %d\n", len(d.Processes))
	fmt.Fprintf(w, "traces      %d\n", len(d.Traces))
	fmt.Fprintf(w, "events      %d (%d calls)\n", d.Events, d.Calls)
	fmt.Fprintf(w, "functions   %d called, of %d named in the function tables\n", d.Functions, d.Named)
	fmt.Fprintf(w, "compressed  %d bytes, ratio %s (%d bytes uncompressed)\n", d.Bytes, infoRatio(d.Events, d.Bytes), 2*d.Events)
	if d.Open > 0 {
		fmt.Fprintf(w, "open calls  %d at the ends of traces (threads stopped inside calls: killed, crashed or hung)\n", d.Open)
	}

	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TRACE\tPID\tEVENTS\tFUNCTIONS\tOPEN\tBYTES\tRATIO\tFILE")
	for _, t := range d.Traces {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\n", t.ID, infoPIDText(t.PID), t.Events, t.Functions, t.Open, t.Bytes, infoRatio(t.Events, t.Bytes), safe(t.File))
	}
	tw.Flush()

	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PROCESS\tPID\tHOST\tTHREADS\tEVENTS\tFUNCTIONS\tENDED")
	for _, p := range d.Processes {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%d\t%s\n", p.Index, infoPIDText(p.PID), safe(infoDash(p.Host)), p.Threads, p.Events, p.Functions, safe(p.Ended))
	}
	tw.Flush()

	if len(d.Notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range d.Notes {
			fmt.Fprintf(w, "note: %s\n", safe(n))
		}
	}
	return nil
}

// RankList names ascending ranks compactly: "rank 3", "ranks 0, 2–5".
func RankList(ranks []int) string {
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

// Programs lists the distinct paths of the run's programs as recorded, in
// process order.
func Programs(run *decode.Run) []string {
	var ps []string
	for _, p := range run.Procs {
		if p.Program != "" && !slices.Contains(ps, p.Program) {
			ps = append(ps, p.Program)
		}
	}
	return ps
}

// Ended says how a rank ended, from its manifest record (nil: none), in
// the run directory's words (rundir.Rank.Ended).
func Ended(r *decode.Rank) string {
	if r == nil {
		return "no record"
	}
	return r.Ended()
}

// infoRatio is the compression ratio: 2 bytes per value over the size.
func infoRatio(events uint64, bytes int64) string {
	if bytes == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(2*events)/float64(bytes))
}

func infoPID(p *decode.Process) int {
	if p == nil {
		return 0
	}
	return p.PID
}

func infoPIDText(pid int) string {
	if pid == 0 {
		return "-"
	}
	return strconv.Itoa(pid)
}

// infoDash shows an unknown value as "-".
func infoDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
