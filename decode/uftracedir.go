package decode

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

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

func detectUftrace(d *dirListing) bool {
	return uftrace.IsDataDir(d.dir, d.all) || len(uftrace.DataSubdirs(d.dir, d.all)) > 0
}

// uftraceProc is one process of the run and the recording it comes from.
type uftraceProc struct {
	proc *Process
	rec  *uftraceRec
	pid  int
}

// uftraceRec is one opened recording and the symbols of its functions.
type uftraceRec struct {
	data *uftrace.Data
	// oneSID is set when the recording holds one session, so that every
	// address means the same function throughout.
	oneSID string
	// syms maps an entry's (session, address) to its symbol; read-only once
	// Open returns, so traces stream in parallel.
	syms map[addrKey]trace.Symbol
}

// key returns the (session, address) key of a record of process pid.
func (u *uftraceRec) key(pid int, rec uftrace.Record) addrKey {
	if u.oneSID != "" {
		return addrKey{u.oneSID, rec.Addr}
	}
	return addrKey{u.data.SessionAt(pid, rec.Time).SID, rec.Addr}
}

func openUftraceRun(r *Run, d *dirListing) error {
	var procs []*uftraceProc
	open := func(dir string) (*uftraceRec, error) {
		data, err := uftrace.Open(dir)
		if err != nil {
			return nil, err
		}
		u := &uftraceRec{data: data, syms: map[addrKey]trace.Symbol{}}
		if len(data.Sessions) == 1 {
			u.oneSID = data.Sessions[0].SID
		}
		return u, nil
	}
	if uftrace.IsDataDir(d.dir, d.all) {
		u, err := open(d.dir)
		if err != nil {
			return err
		}
		for i, pid := range u.data.Processes() {
			procs = append(procs, &uftraceProc{proc: &Process{Index: i, PID: pid}, rec: u, pid: pid})
		}
	} else {
		subs := uftrace.DataSubdirs(d.dir, d.all)
		ranks, numbered := uftrace.RankNumbers(subs)
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
		task uftrace.Task
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
			tasks = []uftrace.Task{{PID: up.pid, TID: up.pid}}
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
		keyName := map[addrKey]trace.Name{}
		for _, j := range jobs {
			if j.up != up {
				continue
			}
			for _, k := range j.scan.keys {
				n := canonical(data.Resolve(up.pid, k.time, k.addr), data.Program(up.pid, k.time))
				keyName[k.addrKey] = n
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

// addrKey is an entry address in a session: one function throughout.
type addrKey struct {
	sid  string
	addr uint64
}

// uftraceKeyAt is an entry address and the time it was first seen.
type uftraceKeyAt struct {
	addrKey
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
func scanUftraceThread(u *uftraceRec, t uftrace.Task) (uftraceScan, error) {
	var s uftraceScan
	rd, err := u.data.OpenRecords(t.TID)
	if err != nil {
		return s, err
	}
	defer rd.Close()
	seen := map[addrKey]bool{}
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
		case uftrace.Lost:
			s.lost += rec.Addr
			continue
		case uftrace.Event:
			continue
		case uftrace.Entry:
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
	task uftrace.Task
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
	rd  *uftrace.Records
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
		case uftrace.Lost, uftrace.Event:
			continue
		case uftrace.Entry:
			s, ok := u.src.rec.syms[u.src.rec.key(u.src.task.PID, rec)]
			if !ok {
				return i, &uftrace.Error{File: u.src.path, Offset: at, Reason: "a function entry not seen when the run was opened: the recording changed while it was read (read it again once uftrace has finished)"}
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
		rk := uftraceRankEntry(up.rec.data, up.proc.Index, up.pid)
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

// uftraceRankEntry describes process pid of a recording as a manifest
// entry for the given rank: host, start and end, and, for the traced
// program itself, how it ended (uftrace saves its wait status). Threads
// are left empty.
func uftraceRankEntry(d *uftrace.Data, rank, pid int) Rank {
	p := d.Process(pid)
	r := Rank{Rank: rank, Host: p.Host, PID: pid, Threads: []Thread{}, Start: p.Start, End: p.End}
	if p.Ended {
		r.SetEnd(p.Signal, p.ExitStatus)
	}
	return r
}
