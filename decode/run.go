package decode

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

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
	// DefaultMaxEvents): a small hostile file can claim billions.
	MaxEvents uint64
	// Workers is how many traces decode at once (0 means GOMAXPROCS).
	Workers int
	// Progress, if set, is called each time ForEach (and so Load and
	// Summarize) finishes a trace, from any goroutine: for progress bars.
	Progress func()
}

// Run is a recorded run opened for reading: its processes, their threads and
// the files that hold them. Opening reads only the directory, the manifest
// and the function tables; traces are decoded on demand (Stream, ForEach,
// Load, Summarize), so a run larger than memory can still be read.
type Run struct {
	Dir      string
	Format   Format
	Manifest *Manifest // nil when the directory has no run.json
	Procs    []*Process
	// Symbols is the table every name of the run was interned into; it is
	// the table given to Open and may be shared with other runs.
	Symbols *trace.Table
	// Notes says what the user should know about the directory, e.g. ranks
	// the manifest lists that left no traces.
	Notes []string

	opts  Options
	byID  map[trace.ID]*TraceFile
	order []trace.ID
}

// Process is one traced process of a run.
type Process struct {
	Index int    // P in trace IDs: the rank, or the position by ascending pid
	PID   int    // operating-system process id, 0 if unknown
	Host  string // "" if unknown
	Info  string // path of the function table (.info), "" if the format has none
	Funcs int    // functions the table defines
	Rank  *Rank  // the manifest's record of this process, nil if none
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
// write its detect and open functions in a file of its own and list it in
// formats; everything else (Stream, ForEach, statistics, the commands)
// works through TraceFile sources unchanged.
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
}

// dirListing is a run directory's file names, read once.
type dirListing struct {
	dir   string
	names map[string]bool
	all   []string // sorted
}

func (d *dirListing) has(name string) bool { return d.names[name] }

func (d *dirListing) path(name string) string { return filepath.Join(d.dir, name) }

// Open opens the run in dir and interns every function name of its tables
// into symbols (in process order, so the symbols do not depend on timing).
// It reads no trace: it lists the processes, threads and files. Open two
// runs of a comparison one after the other with the same table (normal run
// first): equal names then get equal symbols, and nothing else may use the
// table while Open runs.
func Open(dir string, symbols *trace.Table, opts Options) (*Run, error) {
	if opts.MaxEvents == 0 {
		opts.MaxEvents = DefaultMaxEvents
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	st, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such run directory (give the directory a capture wrote its traces to)", dir)
		}
		return nil, readError(dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: is a file, not a run directory (give the directory that holds the traces; to decode a single trace file use: difftrace decode --raw %s --format u16)", dir, dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, readError(dir, err)
	}
	d := &dirListing{dir: dir, names: map[string]bool{}}
	for _, e := range ents {
		d.names[e.Name()] = true
		d.all = append(d.all, e.Name())
	}
	sort.Strings(d.all)
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
	if r.Format == "" || len(r.Procs) == 0 {
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
	if len(r.order) == 0 {
		return nil, fmt.Errorf("%s: the function tables are there but no trace files (<name>.<thread> next to each .info); copy the trace files of the run into the directory", dir)
	}
	r.addNotes()
	return r, nil
}

// noTraces explains an empty or unrecognised directory.
func noTraces(d *dirListing) error {
	var loose int
	for _, n := range d.all {
		if _, _, ok := splitTrace(n); ok {
			loose++
		}
	}
	if loose > 0 {
		return fmt.Errorf("%s: %d trace files but no .info function table for them; copy the .info files of the same run into the directory", d.dir, loose)
	}
	return fmt.Errorf("%s: no traces found: expected a difftrace run (run.json, trace.<rank>.info, trace.<rank>.<thread>) or ParLOT output (Hdbg.<version>.<host>.<pid>.info with Hdbg.….<pid>.<thread>); give the directory a capture wrote", d.dir)
}

// splitTrace splits "<stem>.<thread>" where stem is "<prefix>.<number>".
func splitTrace(name string) (stem string, thread int, ok bool) {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 {
		return "", 0, false
	}
	t, err := strconv.Atoi(name[i+1:])
	if err != nil || t < 0 || !allDigits(name[i+1:]) {
		return "", 0, false
	}
	if _, _, ok := splitStem(name[:i]); !ok {
		return "", 0, false
	}
	return name[:i], t, true
}

// splitStem splits "<prefix>.<number>" (the number is a pid or a rank).
func splitStem(stem string) (prefix string, n int, ok bool) {
	i := strings.LastIndexByte(stem, '.')
	if i <= 0 || !allDigits(stem[i+1:]) {
		return "", 0, false
	}
	n, err := strconv.Atoi(stem[i+1:])
	if err != nil {
		return "", 0, false
	}
	return stem[:i], n, true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// infoStems returns the stems of the directory's .info files whose prefix
// satisfies keep, sorted.
func infoStems(d *dirListing, keep func(prefix string) bool) []string {
	var stems []string
	for _, n := range d.all {
		stem, ok := strings.CutSuffix(n, ".info")
		if !ok {
			continue
		}
		if prefix, _, ok := splitStem(stem); ok && keep(prefix) {
			stems = append(stems, stem)
		}
	}
	return stems
}

// defaultPrefix is the trace-file prefix of this project's run directories.
const defaultPrefix = "trace"

func detectRunDir(d *dirListing) bool {
	if d.has(ManifestName) {
		return true
	}
	return len(infoStems(d, func(p string) bool { return p == defaultPrefix })) > 0
}

func openRunDir(r *Run, d *dirListing) error {
	prefix := defaultPrefix
	if d.has(ManifestName) {
		m, err := readManifestFile(d.path(ManifestName))
		if err != nil {
			return err
		}
		r.Manifest = m
		if m.Prefix != "" {
			prefix = m.Prefix
		}
	}
	stems := infoStems(d, func(p string) bool { return p == prefix })
	if len(stems) == 0 {
		if r.Manifest != nil && detectParLOT(d) {
			// Original ParLOT files with a manifest that maps pids to ranks.
			r.Format = FormatParLOT
			return openParLOT(r, d)
		}
		return nil // no traces: Open explains
	}
	procs := make([]*Process, len(stems))
	for i, stem := range stems {
		_, rank, _ := splitStem(stem)
		p := &Process{Index: rank, Info: d.path(stem + ".info")}
		if r.Manifest != nil {
			if rk, ok := r.Manifest.Rank(rank); ok {
				p.Rank, p.PID, p.Host = rk, rk.PID, rk.Host
			}
		}
		procs[i] = p
	}
	return r.addParLOTProcs(d, stems, procs, func(p string) bool { return p == prefix })
}

func detectParLOT(d *dirListing) bool {
	return len(infoStems(d, func(string) bool { return true })) > 0
}

// openParLOT reads the original tool's layout. Processes are numbered by
// ascending pid (then prefix, which holds the host), or by rank when a
// manifest maps every pid to one.
func openParLOT(r *Run, d *dirListing) error {
	if r.Manifest == nil && d.has(ManifestName) {
		m, err := readManifestFile(d.path(ManifestName))
		if err != nil {
			return err
		}
		r.Manifest = m
	}
	stems := infoStems(d, func(string) bool { return true })
	type key struct {
		pid    int
		prefix string
	}
	keys := make(map[string]key, len(stems))
	for _, s := range stems {
		prefix, pid, _ := splitStem(s)
		keys[s] = key{pid, prefix}
	}
	sort.Slice(stems, func(i, j int) bool {
		a, b := keys[stems[i]], keys[stems[j]]
		if a.pid != b.pid {
			return a.pid < b.pid
		}
		return a.prefix < b.prefix
	})
	procs := make([]*Process, len(stems))
	byPID := map[int]*Rank{}
	if r.Manifest != nil {
		for i := range r.Manifest.Ranks {
			byPID[r.Manifest.Ranks[i].PID] = &r.Manifest.Ranks[i]
		}
	}
	mapped := 0
	for i, s := range stems {
		k := keys[s]
		p := &Process{Index: i, PID: k.pid, Info: d.path(s + ".info")}
		if rest, ok := strings.CutPrefix(k.prefix, "Hdbg."); ok {
			if _, host, ok := strings.Cut(rest, "."); ok {
				p.Host = host
			}
		}
		if rk, ok := byPID[k.pid]; ok {
			p.Rank = rk
			mapped++
		}
		procs[i] = p
	}
	if r.Manifest != nil {
		if mapped == len(procs) {
			for _, p := range procs {
				p.Index = p.Rank.Rank
			}
		} else {
			for _, p := range procs {
				p.Rank = nil
			}
			r.Notes = append(r.Notes, fmt.Sprintf("%s maps only %d of the %d processes to ranks by pid; processes are numbered by ascending pid", ManifestName, mapped, len(procs)))
		}
	}
	prefixes := map[string]bool{}
	for _, k := range keys {
		prefixes[k.prefix] = true
	}
	return r.addParLOTProcs(d, stems, procs, func(p string) bool { return prefixes[p] })
}

// readManifestFile reads run.json, refusing what is not a regular file.
func readManifestFile(path string) (*Manifest, error) {
	if _, err := regularFile(path); err != nil {
		return nil, err
	}
	m, err := ReadManifest(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, readError(path, err)
		}
		return nil, err
	}
	return m, nil
}

// OpenInput opens a regular file for reading, with errors that say what is
// wrong and what to do; a directory, FIFO or device is refused before it is
// opened (a FIFO would block). It returns the file and its size.
func OpenInput(path string) (*os.File, int64, error) {
	size, err := regularFile(path)
	if err != nil {
		return nil, 0, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, readError(path, err)
	}
	return f, size, nil
}

// regularFile returns the size of the regular file at path, or an error that
// says what is there instead. A FIFO or device would block or never end, so
// it is refused before it is opened.
func regularFile(path string) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, readError(path, err)
	}
	switch {
	case st.IsDir():
		return 0, fmt.Errorf("%s: cannot read: is a directory, not a file (remove or rename it; it is not part of the run)", path)
	case !st.Mode().IsRegular():
		what := "a special file"
		switch t := st.Mode().Type(); {
		case t&os.ModeNamedPipe != 0:
			what = "a named pipe (FIFO)"
		case t&os.ModeSocket != 0:
			what = "a socket"
		case t&os.ModeDevice != 0:
			what = "a device"
		}
		return 0, fmt.Errorf("%s: cannot read: not a regular file but %s; copy the real file into the run directory", path, what)
	}
	return st.Size(), nil
}

// addParLOTProcs finds the trace files of each process, reads the function
// tables (in parallel, each distinct table once) and interns their names in
// process order. inRun tells which prefixes belong to the run, so stray
// trace files without a table are caught.
func (r *Run) addParLOTProcs(d *dirListing, stems []string, procs []*Process, inRun func(string) bool) error {
	seen := map[int]string{}
	for i, p := range procs {
		if other, dup := seen[p.Index]; dup {
			return fmt.Errorf("%s: two processes claim index %d (%s.info and %s.info); keep one run per directory", d.dir, p.Index, other, stems[i])
		}
		seen[p.Index] = stems[i]
	}
	stemProc := make(map[string]*Process, len(stems))
	for i, s := range stems {
		stemProc[s] = procs[i]
	}
	// Trace files.
	for _, n := range d.all {
		stem, thread, ok := splitTrace(n)
		if !ok {
			continue
		}
		p, ok := stemProc[stem]
		if !ok {
			if prefix, _, _ := splitStem(stem); inRun(prefix) {
				return fmt.Errorf("%s: trace file without its function table %s.info; copy the .info file of the same process next to it", d.path(n), stem)
			}
			continue
		}
		path := d.path(n)
		size, err := regularFile(path)
		if err != nil {
			return err
		}
		p.Threads = append(p.Threads, &TraceFile{ID: trace.ID{Proc: p.Index, Thread: thread}, Path: path, Bytes: size})
	}
	// Function tables: read in parallel, identical contents parsed once.
	raws := make([][]byte, len(procs))
	err := parallel(len(procs), r.opts.Workers, func(i int) error {
		path := procs[i].Info
		if _, err := regularFile(path); err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return readError(path, err)
		}
		raws[i] = b
		return nil
	})
	if err != nil {
		return err
	}
	type parsed struct {
		table *FuncTable
		syms  []trace.Symbol
	}
	byHash := map[[32]byte]*parsed{}
	for i, p := range procs {
		h := sha256.Sum256(raws[i])
		pt, ok := byHash[h]
		if !ok {
			t, err := ParseFuncTable(bytes.NewReader(raws[i]), p.Info)
			if err != nil {
				return err
			}
			syms := make([]trace.Symbol, len(t.Names)+1)
			for id, n := range t.Names {
				syms[id+1] = r.Symbols.Intern(n)
			}
			pt = &parsed{t, syms}
			byHash[h] = pt
		}
		raws[i] = nil
		p.Funcs = len(pt.table.Names)
		for _, t := range p.Threads {
			t.src = &parlotSource{path: t.Path, info: p.Info, syms: pt.syms}
		}
	}
	r.Procs = append(r.Procs, procs...)
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
	have := map[*Rank]bool{}
	for _, p := range r.Procs {
		if p.Rank != nil {
			have[p.Rank] = true
		}
	}
	for i := range r.Manifest.Ranks {
		if rk := &r.Manifest.Ranks[i]; !have[rk] {
			r.Notes = append(r.Notes, fmt.Sprintf("rank %d is in %s but left no traces", rk.Rank, ManifestName))
		}
	}
}

// parlotSource decodes one ParLOT trace file and maps its per-process IDs to
// the run's symbols.
type parlotSource struct {
	path string
	info string
	syms []trace.Symbol // per-process ID → symbol; syms[0] = Return
}

func (s *parlotSource) open(maxEvents uint64) (symbolReader, error) {
	f, _, err := OpenInput(s.path)
	if err != nil {
		return nil, err
	}
	rd := NewReader(f, s.path, maxEvents)
	rd.CheckIDs(len(s.syms)-1, s.info)
	return &parlotSymbols{f: f, rd: rd, syms: s.syms}, nil
}

type parlotSymbols struct {
	f    *os.File
	rd   *Reader
	syms []trace.Symbol
	raw  []uint16
}

func (p *parlotSymbols) Read(out []trace.Symbol) (int, error) {
	if cap(p.raw) < len(out) {
		p.raw = make([]uint16, len(out))
	}
	raw := p.raw[:len(out)]
	n, err := p.rd.Read(raw)
	syms := p.syms
	for i, v := range raw[:n] {
		out[i] = syms[v] // in range: the reader refuses IDs the table lacks
	}
	return n, err
}

func (p *parlotSymbols) Close() error { return p.f.Close() }

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
	for {
		n, err := sr.Read(buf)
		if n > 0 {
			if ferr := fn(buf[:n]); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
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
	return parallel(len(ids), r.opts.Workers, func(i int) error {
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

// parallel runs fn(0…n-1) on up to workers goroutines. Indexes are handed
// out in increasing order; once one fails, no higher index starts, and the
// lowest failing index's error is returned (every lower index has started
// and is waited for), so the result does not depend on timing.
func parallel(n, workers int, fn func(i int) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	var (
		next   atomic.Int64
		failed atomic.Int64 // lowest failing index + 1, 0 while none
		mu     sync.Mutex
		errs   = map[int]error{}
		wg     sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if f := failed.Load(); f != 0 && int64(i) >= f-1 {
					return
				}
				if err := fn(i); err != nil {
					mu.Lock()
					errs[i] = err
					if f := failed.Load(); f == 0 || int64(i) < f-1 {
						failed.Store(int64(i) + 1)
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if f := failed.Load(); f != 0 {
		return errs[int(f-1)]
	}
	return nil
}
