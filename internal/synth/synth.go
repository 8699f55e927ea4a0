// Package synth writes synthetic run directories: ParLOT traces, their
// function tables and run.json, as capture would have recorded them, of a
// hybrid MPI+OpenMP program at any scale, with bugs planted where asked.
// It is what the scale tests and benchmarks rank (seeds/002 evaluated
// DiffTrace on 32–40 traces; real machines have 10^4–10^6 threads), and
// what cmd/genrun offers to anyone who wants to measure or extend them.
//
// The program imitated is an iterative stencil solver on a square grid of
// processes. Thread 0 of every process (the master) repeats time steps of
// Rows kernel calls and a halo exchange with its 2–4 grid neighbours
// (MPI_Irecv and MPI_Isend per neighbour, MPI_Waitall) closed by an
// MPI_Allreduce; rank 0 logs its progress every 50 steps. The other threads
// are workers that evaluate candidates (CPU_Exec, a number of times that
// differs from worker to worker and from update to update) and copy each
// improvement into shared memory inside an OpenMP critical section. A
// seed fixes those counts, so that a normal and a faulty run of one seed
// differ only by the planted bugs.
package synth

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/difftrace/difftrace/parlot"
	"github.com/difftrace/difftrace/rundir"
	"github.com/difftrace/difftrace/trace"
)

// Spec describes a synthetic run.
type Spec struct {
	Procs   int    // processes; a square number keeps the grid square
	Threads int    // threads per process: a master and Threads-1 workers
	Events  int    // values per trace (entries and exits), at least
	Rows    int    // kernel calls per time step (16 if 0)
	Seed    uint64 // fixes the workers' counts
	// Faulty plants Bugs; without it the run is normal.
	Faulty bool
	Bugs   []Bug
}

// Kind is a kind of planted bug.
type Kind string

// The bugs synth plants.
const (
	// ExtraKernel: from the middle of its trace on, a master runs one more
	// kernel per time step (a loop count that changed, and fewer steps).
	ExtraKernel Kind = "extra-kernel"
	// Race: from the middle of its trace on, a worker updates the shared
	// result without its critical section (calls missing).
	Race Kind = "race"
	// SkipPhase: a master leaves out its halo exchange in the step a third
	// of the way through.
	SkipPhase Kind = "skip-phase"
	// Hang: halfway through, a master stops for good inside MPI_Waitall;
	// its neighbours then stop in the next step's MPI_Waitall and every
	// other master in that step's MPI_Allreduce, and the run is marked as
	// killed by its timeout, as capture --timeout records a hung run.
	Hang Kind = "hang"
)

// Kinds lists the kinds of bug, in the order Plant picks them.
var Kinds = []Kind{Race, SkipPhase, ExtraKernel, Hang}

// Bug is one planted bug: its kind and the trace it is planted in (Thread
// is 0 for the kinds that act on a master).
type Bug struct {
	Kind   Kind `json:"kind"`
	Proc   int  `json:"process"`
	Thread int  `json:"thread"`
}

// Trace returns the ID of the trace the bug is planted in.
func (b Bug) Trace() trace.ID { return trace.ID{Proc: b.Proc, Thread: b.Thread} }

// Planted is what DIR/planted.json lists: the traces the bugs were planted
// in and their processes (each once, ascending), and the bugs themselves.
type Planted struct {
	Traces    []string `json:"traces"`
	Processes []int    `json:"processes"`
	Bugs      []Bug    `json:"bugs"`
}

// PlantedName is the file Write leaves in a faulty run's directory.
const PlantedName = "planted.json"

// Plant chooses where to plant one bug of each kind given, from the seed:
// distinct processes, and for a race a worker thread (the kind is left out
// when the run has no workers).
func Plant(spec Spec, kinds ...Kind) []Bug {
	r := rng(spec.Seed*0x9e3779b97f4a7c15 + 0x5eed)
	used := map[int]bool{}
	var bugs []Bug
	for _, k := range kinds {
		if len(used) >= spec.Procs {
			break
		}
		if k == Race && spec.Threads < 2 {
			continue
		}
		p := int(r.next() % uint64(spec.Procs))
		for used[p] {
			p = (p + 1) % spec.Procs
		}
		used[p] = true
		b := Bug{Kind: k, Proc: p}
		if k == Race {
			b.Thread = 1 + int(r.next()%uint64(spec.Threads-1))
		}
		bugs = append(bugs, b)
	}
	return bugs
}

// rng is a small deterministic generator (splitmix64).
type rng uint64

func (r *rng) next() uint64 {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// names are the functions of the synthetic program, in the order of
// process 0's function table; process p lists them rotated by p, so that
// raw function IDs differ between processes, as they do in real runs.
var names = []string{
	"main", "MPI_Init", "MPI_Comm_rank", "MPI_Comm_size", "malloc", "GOMP_parallel",
	"main._omp_fn.0", "omp_get_thread_num", "step", "kernel", "MPI_Irecv", "MPI_Isend",
	"MPI_Waitall", "MPI_Allreduce", "log_progress", "CPU_Exec", "GOMP_critical_start",
	"memcpy", "GOMP_critical_end", "free", "MPI_Finalize",
}

// check says what is wrong with spec, if anything.
func (s Spec) check() error {
	switch {
	case s.Procs < 1:
		return fmt.Errorf("synth: %d processes; give at least 1", s.Procs)
	case s.Threads < 1:
		return fmt.Errorf("synth: %d threads per process; give at least 1 (the master)", s.Threads)
	case s.Events < 100:
		return fmt.Errorf("synth: %d events per trace; give at least 100", s.Events)
	case s.Rows < 0:
		return fmt.Errorf("synth: %d kernels per step; give 1 or more (0 for the default, 16)", s.Rows)
	}
	for _, b := range s.Bugs {
		if b.Proc < 0 || b.Proc >= s.Procs || b.Thread < 0 || b.Thread >= s.Threads {
			return fmt.Errorf("synth: bug %s in trace %d.%d, which a run of %d × %d threads does not have", b.Kind, b.Proc, b.Thread, s.Procs, s.Threads)
		}
		if (b.Kind == Race) != (b.Thread > 0) {
			return fmt.Errorf("synth: bug %s in trace %d.%d: a race is planted in a worker (thread ≥ 1), every other kind in a master (thread 0)", b.Kind, b.Proc, b.Thread)
		}
	}
	return nil
}

// Write writes the run of spec into dir (created if need be) in this
// project's layout — trace.<rank>.info, trace.<rank>.<thread>, run.json —
// each trace through the ParLOT writer, processes in parallel. A faulty run
// also gets planted.json. It returns the number of events written.
func Write(dir string, spec Spec) (uint64, error) {
	if spec.Rows == 0 {
		spec.Rows = 16
	}
	if err := spec.check(); err != nil {
		return 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	g := newGrid(spec)
	m := rundir.Manifest{
		Schema: rundir.ManifestSchema, Tool: "difftrace", ToolVersion: "synth", Format: "parlot-17",
		Backend: "convert", Images: "main", Prefix: rundir.DefaultPrefix, Command: []string{program},
		Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	m.End = m.Start.Add(time.Minute)
	if spec.Faulty {
		m.Command = append(m.Command, "--bug")
	}
	ranks := make([]rundir.Rank, spec.Procs)
	errs := make([]error, spec.Procs)
	counts := make([]uint64, spec.Procs)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for p := range spec.Procs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			ranks[p], counts[p], errs[p] = writeProc(dir, spec, g, p)
		}()
	}
	wg.Wait()
	var total uint64
	for p, err := range errs {
		if err != nil {
			return 0, err
		}
		total += counts[p]
	}
	for i := range ranks {
		ranks[i].Start, ranks[i].End = m.Start, m.End
		if g.hungStep >= 0 {
			ranks[i].Exited = false
			ranks[i].KilledByTimeout = true
		}
	}
	m.Ranks = ranks
	if err := rundir.WriteManifest(dir, &m); err != nil {
		return 0, err
	}
	if spec.Faulty {
		if err := writeJSON(filepath.Join(dir, PlantedName), plantedOf(spec.Bugs)); err != nil {
			return 0, err
		}
	}
	return total, nil
}

func plantedOf(bugs []Bug) Planted {
	pl := Planted{Traces: []string{}, Processes: []int{}, Bugs: append([]Bug{}, bugs...)}
	seenT, seenP := map[trace.ID]bool{}, map[int]bool{}
	var ids []trace.ID
	for _, b := range bugs {
		if !seenT[b.Trace()] {
			seenT[b.Trace()] = true
			ids = append(ids, b.Trace())
		}
		if !seenP[b.Proc] {
			seenP[b.Proc] = true
			pl.Processes = append(pl.Processes, b.Proc)
		}
	}
	slices.SortFunc(ids, trace.ID.Compare)
	for _, id := range ids {
		pl.Traces = append(pl.Traces, id.String())
	}
	slices.Sort(pl.Processes)
	return pl
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// program is the imitated program's path.
const program = "/synth/stencil"

// grid is the process grid and where a hang, if any, stops each master.
type grid struct {
	side     int
	hungStep int // the step the hung master stops in, or -1
	hung     int // the hung master's process
}

func newGrid(spec Spec) grid {
	g := grid{side: 1, hungStep: -1}
	for g.side*g.side < spec.Procs {
		g.side++
	}
	if spec.Faulty {
		for _, b := range spec.Bugs {
			if b.Kind == Hang {
				g.hung = b.Proc
				g.hungStep = stepsFor(spec, neighbours(g, b.Proc)) / 2
				break
			}
		}
	}
	return g
}

// neighbours returns how many grid neighbours process p has.
func neighbours(g grid, p int) int {
	x, y := p%g.side, p/g.side
	n := 0
	for _, in := range []bool{x > 0, x < g.side-1, y > 0, y < g.side-1} {
		if in {
			n++
		}
	}
	return n
}

// isNeighbour reports whether processes p and q are grid neighbours.
func isNeighbour(g grid, p, q int) bool {
	px, py, qx, qy := p%g.side, p/g.side, q%g.side, q/g.side
	dx, dy := px-qx, py-qy
	return dx*dx+dy*dy == 1
}

// stepsFor returns about how many time steps a master with nb neighbours
// takes to write spec.Events values.
func stepsFor(spec Spec, nb int) int {
	per := 2*spec.Rows + 4*nb + 6
	return max(1, (spec.Events-16+per-1)/per)
}

// writeProc writes process p's function table and traces.
func writeProc(dir string, spec Spec, g grid, p int) (rundir.Rank, uint64, error) {
	rank := rundir.Rank{Rank: p, Host: "synth", PID: 1000 + p, Exited: true}
	n := len(names)
	id := make(map[string]uint16, n)
	sec := parlot.ImageSection{Image: program}
	for k := range n {
		name := names[(k+p)%n]
		sec.Names = append(sec.Names, trace.Name{Image: program, Func: name})
		id[name] = uint16(k + 1)
	}
	var info bytes.Buffer
	if err := parlot.WriteFuncTable(&info, []parlot.ImageSection{sec}); err != nil {
		return rank, 0, err
	}
	if err := os.WriteFile(filepath.Join(dir, rundir.InfoName(rundir.DefaultPrefix, p)), info.Bytes(), 0o644); err != nil {
		return rank, 0, err
	}
	var total uint64
	for th := range spec.Threads {
		var vals []uint16
		if th == 0 {
			vals = master(spec, g, p, id)
		} else {
			vals = worker(spec, p, th, id)
		}
		path := filepath.Join(dir, rundir.TraceName(rundir.DefaultPrefix, p, th))
		size, err := writeTrace(path, vals)
		if err != nil {
			return rank, 0, err
		}
		rank.Threads = append(rank.Threads, rundir.Thread{Thread: th, TID: 10000 + p*100 + th, Events: uint64(len(vals)), Bytes: size})
		total += uint64(len(vals))
	}
	return rank, total, nil
}

func writeTrace(path string, vals []uint16) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	w := parlot.NewWriter(bw)
	err = w.Write(vals)
	if err == nil {
		err = w.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	var size int64
	if st, serr := f.Stat(); serr == nil {
		size = st.Size()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return size, nil
}

// bugAt returns the bug of kind k planted in trace p.th of a faulty run.
func bugAt(spec Spec, k Kind, p, th int) bool {
	if !spec.Faulty {
		return false
	}
	for _, b := range spec.Bugs {
		if b.Kind == k && b.Proc == p && b.Thread == th {
			return true
		}
	}
	return false
}

// worker returns the values of worker thread th of process p: CPU_Exec a
// number of times the seed fixes, then an update of its champion in a
// critical section, until spec.Events.
func worker(spec Spec, p, th int, id map[string]uint16) []uint16 {
	v := make([]uint16, 0, spec.Events+64)
	call := func(f string) { v = append(v, id[f], 0) }
	v = append(v, id["main._omp_fn.0"])
	call("omp_get_thread_num")
	// A linear congruential sequence per worker: counts from 5 to 40 that
	// repeat with a long period, as a search's do.
	x := uint32(p*7919+th*104729+1) + uint32(spec.Seed-1)*2654435761
	race := bugAt(spec, Race, p, th)
	for len(v) < spec.Events {
		x = x*1103515245 + 12345
		for range 5 + int(x>>16)%36 {
			call("CPU_Exec")
		}
		if race && len(v) > spec.Events/2 {
			call("memcpy")
		} else {
			call("GOMP_critical_start")
			call("memcpy")
			call("GOMP_critical_end")
		}
	}
	return append(v, 0)
}

// master returns the values of process p's master thread: set up, time
// steps, finish — or, in a hung run, the calls up to where it stopped,
// inside them.
func master(spec Spec, g grid, p int, id map[string]uint16) []uint16 {
	v := make([]uint16, 0, spec.Events+256)
	call := func(f string) { v = append(v, id[f], 0) }
	v = append(v, id["main"])
	call("MPI_Init")
	call("MPI_Comm_rank")
	call("MPI_Comm_size")
	call("malloc")
	v = append(v, id["GOMP_parallel"], id["main._omp_fn.0"])
	call("omp_get_thread_num")
	nb := neighbours(g, p)
	steps := stepsFor(spec, nb)
	// In a hung run every master stops: the hung one in MPI_Waitall of
	// hungStep, its neighbours in that of the next step, the others in
	// the next step's MPI_Allreduce.
	stop, stopIn := -1, ""
	if g.hungStep >= 0 {
		switch {
		case p == g.hung:
			stop, stopIn = g.hungStep, "MPI_Waitall"
		case isNeighbour(g, p, g.hung):
			stop, stopIn = g.hungStep+1, "MPI_Waitall"
		default:
			stop, stopIn = g.hungStep+1, "MPI_Allreduce"
		}
	}
	extra := bugAt(spec, ExtraKernel, p, 0)
	skip := bugAt(spec, SkipPhase, p, 0)
	const tail = 7 // the closing values below
	// Time steps until the trace has its events: a master whose steps
	// grow longer (ExtraKernel) gets through fewer of them, as a slower
	// rank does by a deadline.
	for s := 0; len(v)+tail < spec.Events; s++ {
		rows := spec.Rows
		if extra && len(v) > spec.Events/2 {
			rows++
		}
		v = append(v, id["step"])
		for range rows {
			call("kernel")
		}
		if !(skip && s == steps/3) {
			for range nb {
				call("MPI_Irecv")
				call("MPI_Isend")
			}
			if s == stop && stopIn == "MPI_Waitall" {
				return append(v, id["MPI_Waitall"])
			}
			call("MPI_Waitall")
		}
		if s == stop {
			return append(v, id["MPI_Allreduce"])
		}
		call("MPI_Allreduce")
		v = append(v, 0)
		if p == 0 && s%50 == 49 {
			call("log_progress")
		}
	}
	v = append(v, 0, 0) // main._omp_fn.0, GOMP_parallel
	call("free")
	call("MPI_Finalize")
	return append(v, 0)
}
