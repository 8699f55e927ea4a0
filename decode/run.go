package decode

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/difftrace/difftrace/internal/readerr"
	"github.com/difftrace/difftrace/parlot"

	"github.com/difftrace/difftrace/internal/parallel"
	"github.com/difftrace/difftrace/rundir"
	"github.com/difftrace/difftrace/trace"
)

// Format names the layout of a run directory.
type Format string

const (
	// FormatRun is this project's run directory: run.json, and
	// <prefix>.<rank>.info with <prefix>.<rank>.<thread> (prefix "trace").
	// The process index is the rank.
	FormatRun Format = "difftrace"
	// FormatParLOT is the original ParLOT tool's output:
	// Hdbg.<version>.<host>.<pid>.info with …<pid>.<thread>. Processes are
	// numbered by ascending pid, unless a run.json maps pids to ranks.
	FormatParLOT Format = "parlot"
)

// Options tune how a run is read.
type Options struct {
	// MaxEvents bounds the events decoded from any one trace (0 means
	// parlot.DefaultMaxEvents): a small hostile file can claim billions.
	MaxEvents uint64
	// Workers is how many traces decode at once (0 means GOMAXPROCS).
	Workers int
	// Progress, if set, is called each time ForEach (and so Load and
	// Summarize) finishes a trace, from any goroutine: for progress bars.
	Progress func()
	// MixedPrograms reads a run whose function tables name different
	// programs (an MPMD launch, several programs in one job); Open
	// refuses such a run otherwise, since a trace of another program
	// copied into a run would lead its consensus.
	MixedPrograms bool
	// Part and Parts, when Parts > 1, open only part Part of Parts of a
	// run directory of this project's layout (FormatRun), as one of Parts
	// processes that share the work of reading it: its processes Part·P/Parts
	// to (Part+1)·P/Parts−1 of the P function tables in file-name order.
	// Only those processes' files are opened, stat'ed and read, and only
	// their names interned; the directory listing and run.json are read
	// whole. The notes are those of the part; part 0 also says which ranks
	// of run.json left no traces at all. Run.Part says which part was
	// opened; other layouts are opened whole.
	Part, Parts int
	// Wait, when set, is called with the run directory before it is
	// read, to wait for recorders still writing it (record.Waiter).
	Wait func(dir string) error
}

// Run is a recorded run opened for reading: its processes, their threads and
// the files that hold them. Opening reads only the directory, the manifest
// and the function tables; traces are decoded on demand (Stream, ForEach,
// Load, Summarize), so a run larger than memory can still be read.
type Run struct {
	Dir    string
	Format Format
	// Manifest is the directory's run.json, nil if it has none; for a
	// uftrace recording, what uftrace's info files say in the same form.
	Manifest *Manifest
	Procs    []*Process
	// Symbols is the table every name of the run was interned into; it is
	// the table given to Open and may be shared with other runs. Its names
	// have identities for images (trace.Program for the program); Name
	// gives them as a listing of this run shows them.
	Symbols *trace.Table
	// Notes says what the user should know about the directory, e.g. ranks
	// the manifest lists that left no traces.
	Notes []string

	opts      Options
	functions []trace.Symbol // what the function tables name, for Functions
	endNotes  struct {       // see checkEnd
		sync.Mutex
		m map[trace.ID]string
	}
	byID     map[trace.ID]*TraceFile
	order    []trace.ID
	progName string
	// part and parts: the part of the run opened (Options.Part); parts is
	// 0 when the run was opened whole.
	part, parts int
}

// Part returns which part of the run was opened (Options.Part and Parts):
// 0 of 1 when it was opened whole.
func (r *Run) Part() (part, parts int) {
	if r.parts == 0 {
		return 0, 1
	}
	return r.part, r.parts
}

// share returns the positions lo to hi−1 of part of parts among n.
func share(n, part, parts int) (lo, hi int) {
	return part * n / parts, (part + 1) * n / parts
}

// Process is one traced process of a run.
type Process struct {
	Index int    // P in trace IDs: the rank, or the position by ascending pid
	PID   int    // operating-system process id, 0 if unknown
	Host  string // "" if unknown
	Info  string // path of the function table (.info), "" if the format has none
	Funcs int    // functions the table defines (uftrace: functions the process called)
	// Program is the path of the traced program as the recording names it
	// (the first image of the function table; uftrace: the executable),
	// "" if unknown. Its functions are interned in image trace.Program.
	Program string
	Rank    *Rank // the manifest's record of this process, nil if none
	// Threads are the traces of the process, by thread index.
	Threads []*TraceFile
}

// ID returns the process's ID (P).
func (p *Process) ID() trace.ID { return trace.ID{Proc: p.Index, Thread: trace.AllThreads} }

// TraceFile is one thread's trace in a run.
type TraceFile struct {
	ID    trace.ID
	Path  string
	Bytes int64 // size on disk (compressed)
	Proc  *Process

	src source
}

// source produces one trace's events as symbols of the run's table. Each
// format supplies its own.
type source interface {
	open(maxEvents uint64) (symbolReader, error)
}

// symbolReader reads a trace's events; Read returns io.EOF after the last.
type symbolReader interface {
	Read(p []trace.Symbol) (int, error)
	Close() error
}

// ChunkSize is the number of events Stream hands over at a time.
const ChunkSize = 64 << 10

// dirFormat is one run-directory layout Open understands. To add a layout,
// write its detect and open functions and its source in a file of its own
// (as parlotdir.go does for ParLOT files and uftracedir.go for uftrace
// recordings) and list it in formats; everything else (Stream, ForEach,
// statistics, the commands) works through TraceFile sources unchanged.
type dirFormat struct {
	kind Format
	// detect reports whether the directory listing looks like this layout.
	detect func(d *dirListing) bool
	// open fills r.Procs (with sources) and interns names into r.Symbols.
	open func(r *Run, d *dirListing) error
}

// formats are tried in order; the first whose detect succeeds opens the run.
var formats = []dirFormat{
	{FormatRun, detectRunDir, openRunDir},
	{FormatParLOT, detectParLOT, openParLOT},
	{FormatUftrace, detectUftrace, openUftraceRun},
}

// dirListing is a run directory's file names, read once.
type dirListing struct {
	dir   string
	names map[string]bool
	all   []string // sorted
}

// listDir reads the names in dir (os.ReadDir sorts them).
func listDir(dir string) (*dirListing, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, readerr.New(dir, err)
	}
	d := &dirListing{dir: dir, names: make(map[string]bool, len(ents))}
	for _, e := range ents {
		d.names[e.Name()] = true
		d.all = append(d.all, e.Name())
	}
	return d, nil
}

func (d *dirListing) has(name string) bool { return d.names[name] }

func (d *dirListing) path(name string) string { return filepath.Join(d.dir, name) }

// Open opens the run in dir and interns every function name of its tables
// into symbols (in process order, so the symbols do not depend on timing).
// Names are interned by image identity, not path (see names.go): the
// program's functions in image trace.Program, a library's under its file
// name, so runs recorded from different directories, or of programs with
// different file names, share their symbols.
// It reads no ParLOT trace: it lists the processes, threads and files (a
// uftrace recording is read once, in parallel, to learn which functions
// it calls: uftrace keeps no table of them). Open two
// runs of a comparison one after the other with the same table (normal run
// first): equal names then get equal symbols, and nothing else may use the
// table while Open runs.
func Open(dir string, symbols *trace.Table, opts Options) (*Run, error) {
	if opts.MaxEvents == 0 {
		opts.MaxEvents = parlot.DefaultMaxEvents
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Wait != nil {
		if err := opts.Wait(dir); err != nil {
			return nil, err
		}
	}
	st, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, readerr.Reason(dir, err, "no such run directory (give the directory a capture wrote its traces to)")
		}
		return nil, readerr.New(dir, err)
	}
	if !st.IsDir() {
		return nil, &NotDirError{Path: dir}
	}
	d, err := listDir(dir)
	if err != nil {
		return nil, err
	}
	if opts.Parts > 1 && (opts.Part < 0 || opts.Part >= opts.Parts) {
		return nil, fmt.Errorf("%s: part %d of %d cannot be", dir, opts.Part, opts.Parts)
	}
	r := &Run{Dir: dir, Symbols: symbols, opts: opts, byID: map[trace.ID]*TraceFile{}}
	for _, f := range formats {
		if !f.detect(d) {
			continue
		}
		r.Format = f.kind
		if err := f.open(r, d); err != nil {
			return nil, err
		}
		break
	}
	emptyPart := r.parts > 0 && len(r.Procs) == 0 // a part with no processes of a run that has some
	if r.Format == "" || len(r.Procs) == 0 && !emptyPart {
		return nil, noTraces(d)
	}
	sort.Slice(r.Procs, func(i, j int) bool { return r.Procs[i].Index < r.Procs[j].Index })
	for _, p := range r.Procs {
		sort.Slice(p.Threads, func(i, j int) bool { return p.Threads[i].ID.Thread < p.Threads[j].ID.Thread })
		for _, t := range p.Threads {
			t.Proc = p
			r.byID[t.ID] = t
			r.order = append(r.order, t.ID)
		}
	}
	if len(r.order) == 0 && r.parts == 0 { // a part's processes may have left none; the other parts' did
		return nil, fmt.Errorf("%s: the function tables are there but no trace files (<name>.<thread> next to each .info); copy the trace files of the run into the directory", dir)
	}
	if err := r.checkListed(); err != nil {
		return nil, err
	}
	if !opts.MixedPrograms {
		if err := r.checkOneProgram(); err != nil {
			return nil, err
		}
	}
	r.progName = r.programName()
	slices.Sort(r.functions)
	r.functions = slices.Compact(r.functions)
	r.addNotes()
	return r, nil
}

// Functions returns the symbols of the functions the run's function tables
// name (for uftrace recordings, the functions its processes called),
// ascending: what tells two recordings of one program from recordings of
// two programs.
func (r *Run) Functions() []trace.Symbol { return slices.Clone(r.functions) }

// noTraces explains an empty or unrecognised directory.
func noTraces(d *dirListing) error {
	var loose int
	for _, n := range d.all {
		if _, _, ok := rundir.SplitTrace(n); ok {
			loose++
		}
	}
	if loose > 0 {
		return fmt.Errorf("%s: %d trace files but no .info function table for them; copy the .info files of the same run into the directory", d.dir, loose)
	}
	return fmt.Errorf("%s: no traces found: expected a difftrace run (run.json, trace.<rank>.info, trace.<rank>.<thread>), ParLOT output (Hdbg.<version>.<host>.<pid>.info with Hdbg.….<pid>.<thread>) or a uftrace recording (uftrace record's data directory, or one such directory per rank); give the directory a capture or uftrace record wrote", d.dir)
}

// checkOneProgram refuses a run whose processes' function tables name
// different programs (the first image of a ParLOT table, uftrace's
// executable): the processes of the program most of them ran (on a tie,
// that of the lowest process) are the run, and the first other is named.
func (r *Run) checkOneProgram() error {
	count := map[string]int{}
	var progs []string // in process order
	for _, p := range r.Procs {
		if p.Program == "" {
			continue
		}
		if count[p.Program] == 0 {
			progs = append(progs, p.Program)
		}
		count[p.Program]++
	}
	if len(progs) < 2 {
		return nil
	}
	usual := progs[0]
	for _, pr := range progs[1:] {
		if count[pr] > count[usual] {
			usual = pr
		}
	}
	for _, p := range r.Procs {
		if p.Program == "" || p.Program == usual {
			continue
		}
		file := p.Info
		if file == "" && len(p.Threads) > 0 {
			file = p.Threads[0].Path
		}
		return &MixedProgramsError{File: file, Proc: p.Index, Program: p.Program, Usual: usual, Count: count[usual], Procs: len(r.Procs)}
	}
	return nil
}

// checkListed refuses a trace file of a rank whose threads run.json lists
// without it: capture lists all of a rank's threads at once, when its
// traces are written, so such a file was copied in from another run. (A
// rank listed with no threads at all was cut short: addNotes says so.) A
// manifest without the run's size, of an older capture, gets a note.
func (r *Run) checkListed() error {
	for _, p := range r.Procs {
		if p.Rank == nil || len(p.Rank.Threads) == 0 {
			continue
		}
		for _, t := range p.Threads {
			if slices.ContainsFunc(p.Rank.Threads, func(th Thread) bool { return th.Thread == t.ID.Thread }) {
				continue
			}
			if r.Manifest.Size == 0 {
				continue // of an older capture: addNotes says so
			}
			return fmt.Errorf("%s: trace %s is not among the %d threads %s lists for rank %d: the file is from another run; remove it (or remove %s to read the traces without it)",
				t.Path, t.ID, len(p.Rank.Threads), ManifestName, p.Rank.Rank, ManifestName)
		}
	}
	return nil
}

// addNotes records processes without trace files and manifest ranks that
// left no traces.
func (r *Run) addNotes() {
	for _, p := range r.Procs {
		if len(p.Threads) == 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("process %d has a function table (%s) but no trace files", p.Index, filepath.Base(p.Info)))
		}
	}
	if r.Manifest == nil {
		return
	}
	if r.parts == 0 { // a part's are said by openRunDir
		have := map[*Rank]bool{}
		for _, p := range r.Procs {
			if p.Rank != nil {
				have[p.Rank] = true
			}
		}
		for i := range r.Manifest.Ranks {
			if rk := &r.Manifest.Ranks[i]; !have[rk] {
				r.Notes = append(r.Notes, leftNoTraces(rk.Rank))
			}
		}
	}
	// Where the manifest and the trace files disagree, say so: either may
	// be the one that is wrong (a recorder cut short, files copied by hand).
	for _, p := range r.Procs {
		if p.Rank == nil {
			continue
		}
		listed := map[int]*Thread{}
		for i := range p.Rank.Threads {
			listed[p.Rank.Threads[i].Thread] = &p.Rank.Threads[i]
		}
		files := map[int]*TraceFile{}
		for _, t := range p.Threads {
			files[t.ID.Thread] = t
		}
		for _, th := range p.Rank.Threads {
			if files[th.Thread] == nil {
				r.Notes = append(r.Notes, fmt.Sprintf("%s lists thread %d.%d, but there is no trace file for it", ManifestName, p.Index, th.Thread))
			}
		}
		for _, t := range p.Threads {
			th := listed[t.ID.Thread]
			switch {
			case th == nil && len(p.Rank.Threads) == 0:
				r.Notes = append(r.Notes, fmt.Sprintf("%s lists no threads for rank %d, but its trace %s exists (the recorder may have been cut short)", ManifestName, p.Index, t.ID))
			case th == nil:
				r.Notes = append(r.Notes, fmt.Sprintf("trace %s is not listed in %s (the recorder may have been cut short, or the file copied in)", t.ID, ManifestName))
			case th.Bytes > 0 && t.Bytes != th.Bytes:
				r.Notes = append(r.Notes, fmt.Sprintf("trace %s: %s says %d bytes, the file has %d (the file may be damaged, or from another run)", t.ID, ManifestName, th.Bytes, t.Bytes))
			}
		}
	}
}

func leftNoTraces(rank int) string {
	return fmt.Sprintf("rank %d is in %s but left no traces", rank, ManifestName)
}

// checkEnd notes, once a whole trace was read, what its end says against
// the manifest: a number of events other than the recorder counted, and
// calls still open at the end of a trace whose rank exited (an MPI_Abort
// or exit called deep in the program ends the recording there, and the
// last calls may not have been written). open says whether calls are open
// at the end (more calls than returns); the innermost is then found by
// reading the trace once more, which only such traces pay.
func (r *Run) checkEnd(t *TraceFile, events uint64, open bool) {
	rk := t.Proc.Rank
	if rk == nil {
		return
	}
	var note string
	for _, th := range rk.Threads {
		if th.Thread == t.ID.Thread && th.Events > 0 && th.Events != events {
			note = fmt.Sprintf("trace %s: %s counts %d events, the trace holds %d (the file may be damaged, or from another run)", t.ID, ManifestName, th.Events, events)
		}
	}
	if note == "" && open && rk.Exited && events > 0 {
		ev, stack, err := r.StackAt(t.ID, events-1)
		if ev.Exit && len(stack) > 0 {
			stack = stack[:len(stack)-1] // the last event left that call
		}
		if err == nil && len(stack) > 0 {
			f := stack[len(stack)-1].Func
			if n := r.Name(f); rk.Status != "" && (strings.HasSuffix(rk.Status, " in "+n.Brief()) || strings.HasSuffix(rk.Status, " in "+r.Label(f))) {
				return // the recorder saw the program leave from inside that call
			}
			note = fmt.Sprintf("trace %s: the end of this trace may be missing (the program left from inside %s)", t.ID, r.Name(f).Qualify(r.Label(f)))
		}
	}
	if note == "" {
		return
	}
	r.endNotes.Lock()
	defer r.endNotes.Unlock()
	if r.endNotes.m == nil {
		r.endNotes.m = map[trace.ID]string{}
	}
	r.endNotes.m[t.ID] = note
}

// TraceNotes returns what reading the traces found against the manifest
// (see checkEnd), by trace ID: for the traces read so far, so a command
// asks after it has read them.
func (r *Run) TraceNotes() []string {
	r.endNotes.Lock()
	defer r.endNotes.Unlock()
	var out []string
	for _, id := range r.order {
		if n, ok := r.endNotes.m[id]; ok {
			out = append(out, n)
		}
	}
	return out
}

// Traces returns the IDs of every trace of the run, by process then thread.
func (r *Run) Traces() []trace.ID { return append([]trace.ID(nil), r.order...) }

// Trace returns the trace with the given ID.
func (r *Run) Trace(id trace.ID) (*TraceFile, bool) {
	t, ok := r.byID[id]
	return t, ok
}

// Process returns the process with index p.
func (r *Run) Process(p int) (*Process, bool) {
	i := sort.Search(len(r.Procs), func(i int) bool { return r.Procs[i].Index >= p })
	if i < len(r.Procs) && r.Procs[i].Index == p {
		return r.Procs[i], true
	}
	return nil, false
}

// Select returns the traces a selection names: "" for all, or a
// comma-separated list of "P.T" (one thread) and "P" (every thread of a
// process), in run order without repeats.
func (r *Run) Select(sel string) ([]trace.ID, error) {
	if strings.TrimSpace(sel) == "" {
		return r.Traces(), nil
	}
	want := map[trace.ID]bool{}
	for _, part := range strings.Split(sel, ",") {
		id, err := trace.ParseID(part)
		if err != nil {
			return nil, err
		}
		if id.IsProcess() {
			p, ok := r.Process(id.Proc)
			if !ok {
				return nil, fmt.Errorf("%s: no process %d in this run (it has processes %s; see difftrace info %s)", r.Dir, id.Proc, r.procRange(), r.Dir)
			}
			for _, t := range p.Threads {
				want[t.ID] = true
			}
			continue
		}
		if _, ok := r.byID[id]; !ok {
			return nil, fmt.Errorf("%s: no trace %s in this run (see difftrace info %s for its traces)", r.Dir, id, r.Dir)
		}
		want[id] = true
	}
	var ids []trace.ID
	for _, id := range r.order {
		if want[id] {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

func (r *Run) procRange() string {
	if len(r.Procs) == 1 {
		return strconv.Itoa(r.Procs[0].Index)
	}
	return fmt.Sprintf("%d to %d", r.Procs[0].Index, r.Procs[len(r.Procs)-1].Index)
}

// events opens the trace id for reading its events one chunk at a time, in
// the run's symbols. The caller must Close it.
func (r *Run) events(id trace.ID) (symbolReader, error) {
	t, ok := r.byID[id]
	if !ok {
		return nil, fmt.Errorf("%s: no trace %s in this run", r.Dir, id)
	}
	return t.src.open(r.opts.MaxEvents)
}

// Stream decodes trace id and calls fn with its events in order, in chunks
// of at most ChunkSize. The chunk is reused: fn must copy what it keeps.
// Memory use does not depend on the trace's length. An error from fn stops
// the stream and is returned as is.
func (r *Run) Stream(id trace.ID, fn func(chunk []trace.Symbol) error) error {
	sr, err := r.events(id)
	if err != nil {
		return err
	}
	defer sr.Close()
	buf := make([]trace.Symbol, ChunkSize)
	t := r.byID[id]
	check := t.Proc.Rank != nil // something to check the end against
	var events, returns uint64
	for {
		n, err := sr.Read(buf)
		if n > 0 {
			events += uint64(n)
			if check {
				for _, s := range buf[:n] {
					if s == trace.Return {
						returns++
					}
				}
			}
			if ferr := fn(buf[:n]); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			if check {
				r.checkEnd(t, events, events > 2*returns)
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// ForEach calls fn(i, ids[i]) for every trace, on up to Options.Workers
// goroutines; fn usually calls Stream and keeps its result in slot i, which
// makes the outcome independent of scheduling. After a failure no further
// traces start, and the error returned is that of the failing trace with the
// lowest index, so errors are deterministic too.
func (r *Run) ForEach(ids []trace.ID, fn func(i int, id trace.ID) error) error {
	return parallel.For(len(ids), r.opts.Workers, func(i int) error {
		err := fn(i, ids[i])
		if r.opts.Progress != nil {
			r.opts.Progress()
		}
		return err
	})
}

// Load decodes the given traces into memory, in parallel. Memory grows with
// the events (4 bytes each): use it for runs known to fit, and Stream or
// ForEach otherwise.
func (r *Run) Load(ids []trace.ID) ([]trace.Trace, error) {
	out := make([]trace.Trace, len(ids))
	err := r.ForEach(ids, func(i int, id trace.ID) error {
		var ev []trace.Symbol
		err := r.Stream(id, func(c []trace.Symbol) error {
			ev = append(ev, c...)
			return nil
		})
		out[i] = trace.Trace{ID: id, Events: ev}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// MixedProgramsError is a run whose processes are not all of one program:
// traces of another program were copied in, or the directory holds two
// runs, unless the job ran several programs (then open it with
// Options.MixedPrograms).
type MixedProgramsError struct {
	File    string // the function table (or trace) of the odd process
	Proc    int    // its index
	Program string // its program
	Usual   string // the program most processes run
	Count   int    // how many run Usual
	Procs   int    // processes in the run
	// Allow says how the caller allows mixed programs (a command line's
	// flag); "" names Options.MixedPrograms.
	Allow string
}

func (e *MixedProgramsError) Error() string {
	allow := e.Allow
	if allow == "" {
		allow = "open the run with Options.MixedPrograms"
	}
	return fmt.Sprintf("%s: process %d is of the program %s, but %d of the run's %d processes are of %s: traces of another program were copied in, or the directory holds two runs; remove them, or %s if the job ran several programs (MPMD)",
		e.File, e.Proc, e.Program, e.Count, e.Procs, e.Usual, allow)
}

// NotDirError is a run given as a file, not as the directory that holds
// its traces.
type NotDirError struct {
	Path string
	// Hint says how the caller decodes a single trace file (a command
	// line's command); "" names parlot.NewReader and parlot.ParseU16.
	Hint string
}

func (e *NotDirError) Error() string {
	hint := e.Hint
	if hint == "" {
		hint = "read it with parlot.NewReader, or parlot.ParseU16 if it is in the raw u16 format"
	}
	return fmt.Sprintf("%s: is a file, not a run directory (give the directory that holds the traces; to decode a single trace file %s)", e.Path, hint)
}
