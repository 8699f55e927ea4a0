package decode

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/difftrace/difftrace/internal/readerr"
	"github.com/difftrace/difftrace/parlot"

	"github.com/difftrace/difftrace/internal/memlimit"
	"github.com/difftrace/difftrace/internal/parallel"
	"github.com/difftrace/difftrace/rundir"
	"github.com/difftrace/difftrace/trace"
)

// The ParLOT layouts of a run directory: this project's (run.json,
// trace.<rank>.info, trace.<rank>.<thread>) and the original tool's
// (Hdbg.<version>.<host>.<pid>.info, ….<pid>.<thread>).

// infoStems returns the stems of the directory's .info files whose prefix
// satisfies keep, sorted.
func infoStems(d *dirListing, keep func(prefix string) bool) []string {
	var stems []string
	for _, n := range d.all {
		stem, ok := strings.CutSuffix(n, rundir.InfoSuffix)
		if !ok {
			continue
		}
		if prefix, _, ok := rundir.SplitStem(stem); ok && keep(prefix) {
			stems = append(stems, stem)
		}
	}
	return stems
}

func detectRunDir(d *dirListing) bool {
	if d.has(ManifestName) {
		return true
	}
	return len(infoStems(d, func(p string) bool { return p == DefaultPrefix })) > 0
}

func openRunDir(r *Run, d *dirListing) error {
	prefix := DefaultPrefix
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
	var others map[string]bool // a part's: the run's processes in other parts
	if o := r.opts; o.Parts > 1 {
		r.part, r.parts = o.Part, o.Parts
		lo, hi := share(len(stems), o.Part, o.Parts)
		others = make(map[string]bool, len(stems)-(hi-lo))
		for _, s := range append(stems[:lo:lo], stems[hi:]...) {
			others[s] = true
		}
		if o.Part == 0 && r.Manifest != nil {
			// Which ranks left no traces at all is said once, by part 0.
			ranks := make(map[int]bool, len(stems))
			for _, s := range stems {
				_, rank, _ := rundir.SplitStem(s)
				ranks[rank] = true
			}
			for _, rk := range r.Manifest.Ranks {
				if !ranks[rk.Rank] {
					r.Notes = append(r.Notes, leftNoTraces(rk.Rank))
				}
			}
		}
		stems = stems[lo:hi]
	}
	procs := make([]*Process, len(stems))
	for i, stem := range stems {
		_, rank, _ := rundir.SplitStem(stem)
		p := &Process{Index: rank, Info: d.path(stem + rundir.InfoSuffix)}
		if m := r.Manifest; m != nil {
			// capture lists a rank in run.json before it writes a file of
			// it (since it records the run's size; older ones listed it
			// at its end, and a recorder killed outright never did): a
			// table of a rank the manifest lacks was copied in.
			rk, ok := m.Rank(rank)
			switch {
			case m.Size > 0 && rank >= m.Size:
				return fmt.Errorf("%s: rank %d, but %s says the run had %d processes: the file is from another run; remove it (or remove %s to read the traces without it)", p.Info, rank, ManifestName, m.Size, ManifestName)
			case !ok && m.Size > 0:
				return fmt.Errorf("%s: rank %d is not in %s (which lists %s): the file is from another run; remove it (or remove %s to read the traces without it)", p.Info, rank, ManifestName, m.RankList(), ManifestName)
			case !ok:
				r.Notes = append(r.Notes, fmt.Sprintf("rank %d has traces but is not in %s, which lists %s (its recorder was killed, or the files were copied in from another run)", rank, ManifestName, m.RankList()))
			default:
				p.Rank, p.PID, p.Host = rk, rk.PID, rk.Host
			}
		}
		procs[i] = p
	}
	return r.addParLOTProcs(d, stems, procs, func(p string) bool { return p == prefix }, others)
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
		prefix, pid, _ := rundir.SplitStem(s)
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
		p := &Process{Index: i, PID: k.pid, Info: d.path(s + rundir.InfoSuffix)}
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
	return r.addParLOTProcs(d, stems, procs, func(p string) bool { return prefixes[p] }, nil)
}

// addParLOTProcs finds the trace files of each process, reads the function
// tables (in parallel, each distinct table once) and interns their names in
// process order: the first section's image (the program) as trace.Program,
// the others by file name. inRun tells which prefixes belong to the run, so stray
// trace files without a table are caught; others are the stems of the
// run's processes in other parts, whose files are passed over.
func (r *Run) addParLOTProcs(d *dirListing, stems []string, procs []*Process, inRun func(string) bool, others map[string]bool) error {
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
		stem, thread, ok := rundir.SplitTrace(n)
		if !ok {
			continue
		}
		p, ok := stemProc[stem]
		if !ok {
			if others[stem] {
				continue
			}
			if prefix, _, _ := rundir.SplitStem(stem); inRun(prefix) {
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
	// Function tables: hashed in parallel, identical contents parsed once,
	// each read from its file as it is parsed (a table can be hundreds of
	// MB: its names are all that stays in memory).
	hashes := make([][32]byte, len(procs))
	sizes := make([]int64, len(procs))
	lines := make([]int64, len(procs))
	err := parallel.For(len(procs), r.opts.Workers, func(i int) error {
		path := procs[i].Info
		f, size, err := OpenInput(path)
		if err != nil {
			return err
		}
		defer f.Close()
		h := &lineCounter{h: sha256.New()}
		if _, err := io.Copy(h, f); err != nil {
			return readerr.New(path, err)
		}
		h.h.Sum(hashes[i][:0])
		sizes[i], lines[i] = size, h.lines
		return nil
	})
	if err != nil {
		return err
	}
	if err := checkTableRoom(procs, hashes, sizes, lines); err != nil {
		return err
	}
	type parsed struct {
		table *parlot.FuncTable
		syms  []trace.Symbol
	}
	byHash := map[[32]byte]*parsed{}
	for i, p := range procs {
		pt, ok := byHash[hashes[i]]
		if !ok {
			f, _, err := OpenInput(p.Info)
			if err != nil {
				return err
			}
			t, err := parlot.ParseFuncTable(bufio.NewReaderSize(f, 256<<10), p.Info)
			f.Close()
			if err != nil {
				return err
			}
			syms := make([]trace.Symbol, len(t.Names)+1)
			for id, n := range t.Names {
				syms[id+1] = r.Symbols.Intern(canonical(n, t.Program))
			}
			pt = &parsed{t, syms}
			byHash[hashes[i]] = pt
			r.functions = append(r.functions, syms[1:]...)
		}
		p.Funcs = len(pt.table.Names)
		p.Program = pt.table.Program
		for _, t := range p.Threads {
			t.src = &parlotSource{path: t.Path, info: p.Info, syms: pt.syms}
		}
	}
	r.Procs = append(r.Procs, procs...)
	return nil
}

// lineCounter hashes what is written to it and counts its lines.
type lineCounter struct {
	h     hash.Hash
	lines int64
}

func (c *lineCounter) Write(b []byte) (int, error) {
	c.lines += int64(bytes.Count(b, []byte{'\n'}))
	return c.h.Write(b)
}

// tableCost estimates the memory a function table of size bytes and
// lines lines takes once read and interned: its names, a quarter more for
// the collector's room, and the structures of each name (the table's
// entry, the symbol table's maps and their growth).
func tableCost(size, lines int64) uint64 { return uint64(size + size/4 + lines*400) }

// checkTableRoom refuses, under an address-space limit (ulimit -v), function
// tables that cannot fit, before any is read: the Go runtime cannot recover
// from running out of memory. Identical tables count once.
func checkTableRoom(procs []*Process, hashes [][32]byte, sizes, lines []int64) error {
	var need uint64
	var names, bytes int64
	largest := -1
	seen := map[[32]byte]bool{}
	for i := range procs {
		if seen[hashes[i]] {
			continue
		}
		seen[hashes[i]] = true
		need += tableCost(sizes[i], lines[i])
		names += lines[i]
		bytes += sizes[i]
		if largest < 0 || sizes[i] > sizes[largest] {
			largest = i
		}
	}
	if largest < 0 {
		return nil
	}
	what := fmt.Sprintf("%s: the function table (%d MB, %d lines)", procs[largest].Info, (sizes[largest]+1<<20-1)>>20, lines[largest])
	if len(seen) > 1 {
		what = fmt.Sprintf("%s: the %d distinct function tables (%d MB, %d lines; the largest %s)", filepath.Dir(procs[largest].Info), len(seen), (bytes+1<<20-1)>>20, names, filepath.Base(procs[largest].Info))
	}
	return memlimit.Check(what, need)
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
	rd := parlot.NewReader(f, s.path, maxEvents)
	rd.CheckIDs(len(s.syms)-1, s.info)
	return &parlotSymbols{f: f, rd: rd, syms: s.syms}, nil
}

type parlotSymbols struct {
	f    *os.File
	rd   *parlot.Reader
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
