package decode

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/difftrace/difftrace/parlot"

	"github.com/difftrace/difftrace/internal/parallel"
	"github.com/difftrace/difftrace/trace"
	"github.com/difftrace/difftrace/uftrace"
)

// uftrace recordings opened as runs, without converting them first.
//
// Two layouts are recognised:
//
//   - one uftrace data directory (what `uftrace record -d DIR prog` writes:
//     info, task.txt, <tid>.dat, sid-<sid>.map, <image>.sym). It holds one
//     program: its processes become P = 0, 1, … in order of appearance (the
//     traced program first, then the processes it forked), and each
//     process's threads T = 0 (the main thread), 1, … in creation order.
//   - a directory of uftrace data directories, one per MPI rank (under
//     mpirun every rank's `uftrace record` needs a directory of its own,
//     e.g. `-d uftrace.$OMPI_COMM_WORLD_RANK`, which is also the name
//     capture --keep-uftrace gives them). The number that ends each
//     subdirectory's name is its rank (P); if the names do not end in
//     distinct numbers, ranks follow the names' sorted order. Each
//     subdirectory gives one process, the traced program; processes it
//     forked are left out (open that subdirectory alone to read them).
//
// The result reads like a converted run: an entry is its function's symbol,
// an exit is trace.Return, lost-record markers and events are skipped, and
// names are interned per process in the order `difftrace convert` numbers
// them (the program's image first, then images by first call, functions by
// first call within an image), so a comparison gives the same answers on
// the recordings as on their conversion. Images are interned by identity
// (names.go): the session's executable, as uftrace names it, is the
// program (trace.Program), any other image is its file name — which is
// also how uftrace itself tells images apart (it saves <file name>.sym). Unlike ParLOT files, the names a recording uses are only
// known by reading its records, so Open reads every thread once (in
// parallel) before the traces are streamed.

// FormatUftrace is a uftrace data directory, or a directory of them (one
// per rank).
const FormatUftrace Format = "uftrace"

// looksUftrace tells whether a directory listing is a uftrace data
// directory (complete or not: OpenUftrace then says what is missing).
func looksUftrace(dir string, names []string) bool {
	hasInfo := false
	for _, n := range names {
		switch {
		case n == "task.txt":
			return true
		case strings.HasPrefix(n, "sid-") && strings.HasSuffix(n, ".map"):
			return true
		case n == "info":
			hasInfo = true
		}
	}
	if !hasInfo {
		return false
	}
	f, err := os.Open(filepath.Join(dir, "info"))
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [len(uftrace.Magic)]byte
	_, err = io.ReadFull(f, magic[:])
	return err == nil && string(magic[:]) == uftrace.Magic
}

// uftraceSubdirs returns the subdirectories of d that are uftrace data
// directories, sorted by name.
func uftraceSubdirs(d *dirListing) []string {
	var subs []string
	for _, n := range d.all {
		p := d.path(n)
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			continue
		}
		names := make([]string, len(ents))
		for i, e := range ents {
			names[i] = e.Name()
		}
		if looksUftrace(p, names) {
			subs = append(subs, n)
		}
	}
	return subs
}

func detectUftrace(d *dirListing) bool {
	return looksUftrace(d.dir, d.all) || len(uftraceSubdirs(d)) > 0
}

// uftraceProc is one process of the run and the recording it comes from.
type uftraceProc struct {
	proc *Process
	rec  *uftraceRec
	pid  int
}

// uftraceRec is one opened recording and the symbols of its functions.
type uftraceRec struct {
	data *UftraceData
	// oneSID is set when the recording holds one session, so that every
	// address means the same function throughout.
	oneSID string
	// syms maps an entry's (session, address) to its symbol; read-only once
	// Open returns, so traces stream in parallel.
	syms map[uftraceAddrKey]trace.Symbol
}

// key returns the (session, address) key of a record of process pid.
func (u *uftraceRec) key(pid int, rec UftraceRecord) uftraceAddrKey {
	if u.oneSID != "" {
		return uftraceAddrKey{u.oneSID, rec.Addr}
	}
	return uftraceAddrKey{u.data.session(pid, rec.Time).SID, rec.Addr}
}

func openUftraceRun(r *Run, d *dirListing) error {
	var procs []*uftraceProc
	open := func(dir string) (*uftraceRec, error) {
		data, err := OpenUftrace(dir)
		if err != nil {
			return nil, err
		}
		u := &uftraceRec{data: data, syms: map[uftraceAddrKey]trace.Symbol{}}
		if len(data.Sessions) == 1 {
			u.oneSID = data.Sessions[0].SID
		}
		return u, nil
	}
	if looksUftrace(d.dir, d.all) {
		u, err := open(d.dir)
		if err != nil {
			return err
		}
		for i, pid := range u.data.Processes() {
			procs = append(procs, &uftraceProc{proc: &Process{Index: i, PID: pid}, rec: u, pid: pid})
		}
	} else {
		subs := uftraceSubdirs(d)
		ranks, numbered := rankNumbers(subs)
		if !numbered {
			r.Notes = append(r.Notes, "the uftrace directories' names do not end in distinct rank numbers (uftrace.<rank>): ranks follow their names' sorted order")
		}
		for i, sub := range subs {
			u, err := open(d.path(sub))
			if err != nil {
				return err
			}
			ps := u.data.Processes()
			if len(ps) > 1 {
				r.Notes = append(r.Notes, fmt.Sprintf("%s also holds %d processes the program forked, left out (open %s by itself to read them)", sub, len(ps)-1, d.path(sub)))
			}
			procs = append(procs, &uftraceProc{proc: &Process{Index: ranks[i], PID: ps[0]}, rec: u, pid: ps[0]})
		}
	}
	// Traces: a process's threads in creation order. A process uftrace saw
	// no thread of still gets its main thread, which reads as empty.
	type job struct {
		up   *uftraceProc
		task UftraceTask
		tf   *TraceFile
		scan uftraceScan
	}
	var jobs []*job
	for _, up := range procs {
		p, data := up.proc, up.rec.data
		p.Host = data.Info["osinfo:hostname"]
		p.Program = data.Program(up.pid, ^uint64(0))
		tasks := data.Threads(up.pid)
		if len(tasks) == 0 {
			tasks = []UftraceTask{{PID: up.pid, TID: up.pid}}
		}
		for _, task := range tasks {
			path := filepath.Join(data.Dir, strconv.Itoa(task.TID)+".dat")
			var size int64
			if _, err := os.Lstat(path); err == nil {
				if size, err = regularFile(path); err != nil {
					return err
				}
			}
			tf := &TraceFile{ID: trace.ID{Proc: p.Index, Thread: task.Thread}, Path: path, Bytes: size}
			p.Threads = append(p.Threads, tf)
			jobs = append(jobs, &job{up: up, task: task, tf: tf})
		}
	}
	// Pass 1, in parallel: each thread's distinct entry addresses, in order
	// of first appearance.
	err := parallel.For(len(jobs), r.opts.Workers, func(i int) error {
		j := jobs[i]
		s, err := scanUftraceThread(j.up.rec, j.task)
		j.scan = s
		return err
	})
	if err != nil {
		return err
	}
	// Names, in a fixed order: process, thread, first appearance; within a
	// process grouped by image, as difftrace convert numbers them.
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].up.proc.Index < jobs[b].up.proc.Index })
	sort.SliceStable(procs, func(a, b int) bool { return procs[a].proc.Index < procs[b].proc.Index })
	for _, up := range procs {
		data := up.rec.data
		var order []trace.Name
		seen := map[trace.Name]bool{}
		keyName := map[uftraceAddrKey]trace.Name{}
		for _, j := range jobs {
			if j.up != up {
				continue
			}
			for _, k := range j.scan.keys {
				n := canonical(data.Resolve(up.pid, k.time, k.addr), data.Program(up.pid, k.time))
				keyName[k.uftraceAddrKey] = n
				if !seen[n] {
					seen[n] = true
					order = append(order, n)
				}
			}
			sc := j.scan
			if sc.lost > 0 {
				r.Notes = append(r.Notes, fmt.Sprintf("trace %s: uftrace lost %d records (its buffers were full; record with a larger --buffer)", j.tf.ID, sc.lost))
			}
			if sc.truncated {
				r.Notes = append(r.Notes, fmt.Sprintf("trace %s: %s ends inside a record at byte %d (the recorder was cut short); the records before it are read", j.tf.ID, j.tf.Path, sc.truncAt))
			}
		}
		for _, sec := range parlot.ImageSections(order, trace.Program) {
			for _, n := range sec.Names {
				r.Symbols.Intern(n)
			}
		}
		for k, n := range keyName {
			up.rec.syms[k] = r.Symbols.Intern(n) // already interned: no new symbol
			r.functions = append(r.functions, up.rec.syms[k])
		}
		up.proc.Funcs = len(order)
	}
	for _, j := range jobs {
		j.tf.src = &uftraceSource{rec: j.up.rec, task: j.task, path: j.tf.Path}
	}
	threads := map[*uftraceProc][]Thread{}
	for _, j := range jobs {
		threads[j.up] = append(threads[j.up], Thread{Thread: j.task.Thread, TID: j.task.TID, Events: j.scan.events, Bytes: j.tf.Bytes})
	}
	r.Manifest = uftraceManifest(procs, threads)
	for _, up := range procs {
		r.Procs = append(r.Procs, up.proc)
	}
	return nil
}

// UftraceRankDirs returns the uftrace data directories that dir holds, one
// per MPI rank, with their ranks, as Open numbers them: the number that
// ends each name or, if the names do not end in distinct numbers (numbered
// false), the position in sorted name order. It returns no directories if
// dir is itself a uftrace data directory, or holds none.
func UftraceRankDirs(dir string) (dirs []string, ranks []int, numbered bool, err error) {
	d, err := listDir(dir)
	if err != nil {
		return nil, nil, false, err
	}
	if looksUftrace(dir, d.all) {
		return nil, nil, false, nil
	}
	subs := uftraceSubdirs(d)
	ranks, numbered = rankNumbers(subs)
	for _, s := range subs {
		dirs = append(dirs, d.path(s))
	}
	return dirs, ranks, numbered, nil
}

// UftraceDirRanks returns the ranks of uftrace data directories given by
// path, as if a directory held them (see UftraceRankDirs): the numbers
// that end their names, if they are distinct (ok).
func UftraceDirRanks(paths []string) (ranks []int, ok bool) {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(filepath.Clean(p))
	}
	return rankNumbers(names)
}

// rankNumbers returns the rank of each uftrace subdirectory: the number
// that ends its name, when every name ends in one and no two are equal;
// otherwise the position in sorted order, and false.
func rankNumbers(names []string) ([]int, bool) {
	ranks := make([]int, len(names))
	seen := map[int]bool{}
	for i, n := range names {
		j := len(n)
		for j > 0 && n[j-1] >= '0' && n[j-1] <= '9' {
			j--
		}
		v, err := strconv.Atoi(n[j:])
		if j == len(n) || err != nil || seen[v] {
			for i := range ranks {
				ranks[i] = i
			}
			return ranks, false
		}
		seen[v] = true
		ranks[i] = v
	}
	return ranks, true
}

// uftraceKeyAt is an entry address and the time it was first seen.
type uftraceKeyAt struct {
	uftraceAddrKey
	time uint64
}

// uftraceScan is what the first pass learns about a thread.
type uftraceScan struct {
	keys      []uftraceKeyAt // distinct entry keys, in order of first appearance
	events    uint64         // entries and exits
	lost      uint64
	truncated bool
	truncAt   int64
}

// scanUftraceThread reads a thread's records once. It touches no shared
// mutable state, so threads are scanned in parallel.
func scanUftraceThread(u *uftraceRec, t UftraceTask) (uftraceScan, error) {
	var s uftraceScan
	rd, err := u.data.OpenRecords(t.TID)
	if err != nil {
		return s, err
	}
	defer rd.Close()
	seen := map[uftraceAddrKey]bool{}
	for {
		at := rd.Offset()
		rec, err := rd.Next()
		if err == io.EOF {
			s.truncated, s.truncAt = rd.Truncated, at
			break
		}
		if err != nil {
			return s, err
		}
		switch rec.Kind {
		case UftraceLost:
			s.lost += rec.Addr
			continue
		case UftraceEvent:
			continue
		case UftraceEntry:
			k := u.key(t.PID, rec)
			if !seen[k] {
				seen[k] = true
				s.keys = append(s.keys, uftraceKeyAt{k, rec.Time})
			}
		}
		s.events++
	}
	return s, nil
}

// uftraceSource streams one thread's records as symbols.
type uftraceSource struct {
	rec  *uftraceRec
	task UftraceTask
	path string
}

func (s *uftraceSource) open(maxEvents uint64) (symbolReader, error) {
	rd, err := s.rec.data.OpenRecords(s.task.TID)
	if err != nil {
		return nil, err
	}
	return &uftraceSymbols{src: s, rd: rd, max: maxEvents}, nil
}

type uftraceSymbols struct {
	src *uftraceSource
	rd  *UftraceRecords
	max uint64
	n   uint64
}

func (u *uftraceSymbols) Read(out []trace.Symbol) (int, error) {
	i := 0
	for i < len(out) {
		at := u.rd.Offset()
		rec, err := u.rd.Next()
		if err != nil {
			return i, err
		}
		var sym trace.Symbol
		switch rec.Kind {
		case UftraceLost, UftraceEvent:
			continue
		case UftraceEntry:
			s, ok := u.src.rec.syms[u.src.rec.key(u.src.task.PID, rec)]
			if !ok {
				return i, &UftraceError{u.src.path, at, 0, "a function entry not seen when the run was opened: the recording changed while it was read (read it again once uftrace has finished)"}
			}
			sym = s
		}
		if u.n++; u.n > u.max {
			return i, &parlot.LimitError{File: u.src.path, Offset: at, Max: u.max}
		}
		out[i] = sym
		i++
	}
	return i, nil
}

func (u *uftraceSymbols) Close() error { return u.rd.Close() }

// uftraceManifest describes the recordings in the manifest's terms, from
// what uftrace's info files say, so that info and the analysis know the
// command, the host and how each process ended.
func uftraceManifest(procs []*uftraceProc, threads map[*uftraceProc][]Thread) *Manifest {
	first := procs[0].rec.data
	version, _, _ := strings.Cut(strings.TrimSpace(first.Info["uftrace_version"]), " ")
	images := "main"
	if first.AllImages() {
		images = "all"
	}
	m := &Manifest{
		Schema: ManifestSchema, Tool: "uftrace", ToolVersion: version, Format: "uftrace",
		Backend: "uftrace", Images: images, Command: first.Command(),
	}
	for _, up := range procs {
		rk := up.rec.data.RankEntry(up.proc.Index, up.pid)
		rk.Threads = threads[up]
		if up.pid != up.rec.data.Processes()[0] {
			rk.Note = "forked by the traced program; uftrace does not record how a forked process ended"
		}
		m.Ranks = append(m.Ranks, rk)
	}
	for _, rk := range m.Ranks {
		if !rk.Start.IsZero() && (m.Start.IsZero() || rk.Start.Before(m.Start)) {
			m.Start = rk.Start
		}
		if rk.End.After(m.End) {
			m.End = rk.End
		}
	}
	for i, up := range procs {
		up.proc.Rank = &m.Ranks[i]
	}
	return m
}

// Command recovers the traced program and its arguments from the uftrace
// command line saved in the recording.
func (d *UftraceData) Command() []string {
	exe := d.Info["exename"]
	fs := strings.Fields(d.Info["cmdline"])
	for i, f := range fs {
		if i > 0 && (f == exe || filepath.Base(f) == filepath.Base(exe) && !strings.HasPrefix(f, "-")) {
			return append([]string{exe}, fs[i+1:]...)
		}
	}
	if exe != "" {
		return []string{exe}
	}
	return fs
}

// AllImages tells whether the recording also traced calls inside libraries
// (uftrace record --nest-libcall or -l).
func (d *UftraceData) AllImages() bool {
	cl := " " + d.Info["cmdline"] + " "
	return strings.Contains(cl, " --nest-libcall ") || strings.Contains(cl, " -l ")
}

// RankEntry describes process pid of the recording as a manifest entry for
// the given rank: host, start and end, and, for the traced program itself,
// how it ended (uftrace saves its wait status). Threads are left empty.
func (d *UftraceData) RankEntry(rank, pid int) Rank {
	r := Rank{Rank: rank, Host: d.Info["osinfo:hostname"], PID: pid, Threads: []Thread{}}
	if t, err := time.ParseInLocation(time.ANSIC, strings.TrimSpace(d.Info["record_date"]), time.Local); err == nil {
		r.Start = t
		if sec, err := strconv.ParseFloat(strings.Fields(d.Info["elapsed_time"] + " x")[0], 64); err == nil {
			r.End = t.Add(time.Duration(sec * float64(time.Second)))
		}
	}
	ps := d.Processes()
	if st, err := strconv.Atoi(strings.TrimSpace(d.Info["exit_status"])); err == nil && st >= 0 && len(ps) > 0 && pid == ps[0] {
		if sig := st & 0x7f; sig != 0 {
			r.Signal = SignalName(syscall.Signal(sig))
		} else {
			r.Exited = true
			r.ExitStatus = st >> 8
		}
	}
	return r
}

// SignalName names a signal as the manifest records it ("SIGTERM").
func SignalName(s syscall.Signal) string {
	names := map[syscall.Signal]string{
		syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
		syscall.SIGILL: "SIGILL", syscall.SIGTRAP: "SIGTRAP", syscall.SIGABRT: "SIGABRT",
		syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE", syscall.SIGKILL: "SIGKILL",
		syscall.SIGUSR1: "SIGUSR1", syscall.SIGSEGV: "SIGSEGV", syscall.SIGUSR2: "SIGUSR2",
		syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM", syscall.SIGTERM: "SIGTERM",
		syscall.SIGXCPU: "SIGXCPU", syscall.SIGXFSZ: "SIGXFSZ", syscall.SIGSYS: "SIGSYS",
	}
	if n, ok := names[s]; ok {
		return n
	}
	return "signal " + strconv.Itoa(int(s))
}
