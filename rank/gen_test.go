package rank

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/difftrace/difftrace/parlot"

	"github.com/difftrace/difftrace/decode"
)

// genSpec describes a synthetic hybrid MPI+OpenMP run, for tests and
// benchmarks at scales the committed runs do not reach. The program it
// imitates is an iterative stencil solver on a square grid of processes:
// thread 0 of every process (the master) repeats time steps of Rows kernel
// calls and a halo exchange with its 2–4 grid neighbours (MPI_Irecv and
// MPI_Isend per neighbour, MPI_Waitall) closed by an MPI_Allreduce; rank 0
// logs its progress every 50 steps. The other threads are workers that
// evaluate candidates (CPU_Exec, a varying number of times) and copy each
// improvement into shared memory inside an OpenMP critical section.
//
// A faulty run plants two bugs: from the middle of the run on, the master
// of process BugRows runs one more kernel per step (a changed loop count),
// and worker BugCrit updates without the critical section (a missing
// call). Everything else is identical in both runs.
type genSpec struct {
	Procs   int // processes; a square number keeps the grid square
	Threads int // threads per process: a master and Threads-1 workers
	Events  int // values per trace (entries and exits), at least
	Rows    int // kernel calls per time step
	Faulty  bool
	BugRows int    // process whose master runs Rows+1 kernels per step
	BugCrit [2]int // process and thread of the worker without critical sections
}

// genNames are the functions of the synthetic program, in the order of
// process 0's function table; process p lists them rotated by p, so that
// raw function IDs differ between processes, as they do in real runs.
var genNames = []string{
	"main", "MPI_Init", "MPI_Comm_rank", "MPI_Comm_size", "malloc", "GOMP_parallel",
	"main._omp_fn.0", "omp_get_thread_num", "step", "kernel", "MPI_Irecv", "MPI_Isend",
	"MPI_Waitall", "MPI_Allreduce", "log_progress", "CPU_Exec", "GOMP_critical_start",
	"memcpy", "GOMP_critical_end", "free", "MPI_Finalize",
}

// writeGenRun writes the run of spec into dir in this project's layout
// (trace.<rank>.info, trace.<rank>.<thread>, run.json), each trace through
// the ParLOT writer. It returns the number of events written.
func writeGenRun(dir string, spec genSpec) (uint64, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	side := 1
	for side*side < spec.Procs {
		side++
	}
	m := decode.Manifest{
		Schema: decode.ManifestSchema, Tool: "difftrace", ToolVersion: "gen", Format: "parlot-17",
		Backend: "convert", Images: "main", Prefix: "trace", Command: []string{"/bench/stencil"},
		Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	m.End = m.Start.Add(time.Minute)
	if spec.Faulty {
		m.Command = append(m.Command, "--bug")
	}
	ranks := make([]decode.Rank, spec.Procs)
	errs := make([]error, spec.Procs)
	var total uint64
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	done := make(chan uint64, spec.Procs)
	for p := range spec.Procs {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			r, n, err := writeGenProc(dir, spec, p, side)
			ranks[p], errs[p] = r, err
			done <- n
		}()
	}
	for range spec.Procs {
		total += <-done
	}
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	for i := range ranks {
		ranks[i].Start, ranks[i].End = m.Start, m.End
	}
	m.Ranks = ranks
	b, err := json.MarshalIndent(&m, "", "  ")
	if err != nil {
		return 0, err
	}
	return total, os.WriteFile(filepath.Join(dir, decode.ManifestName), b, 0o644)
}

// writeGenProc writes process p's function table and traces.
func writeGenProc(dir string, spec genSpec, p, side int) (decode.Rank, uint64, error) {
	rank := decode.Rank{Rank: p, Host: "gen", PID: 1000 + p, Exited: true}
	// The function table, rotated by p: ID of genNames[i] is id[i].
	n := len(genNames)
	id := make([]uint16, n)
	var info strings.Builder
	info.WriteString("+\n/bench/stencil\n")
	for k := range n {
		i := (k + p) % n
		info.WriteString(genNames[i] + "\n")
		id[i] = uint16(k + 1)
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("trace.%d.info", p)), []byte(info.String()), 0o644); err != nil {
		return rank, 0, err
	}
	var total uint64
	for th := range spec.Threads {
		vals := genThread(spec, p, th, side, id)
		path := filepath.Join(dir, fmt.Sprintf("trace.%d.%d", p, th))
		f, err := os.Create(path)
		if err != nil {
			return rank, 0, err
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
			return rank, 0, fmt.Errorf("%s: %v", path, err)
		}
		rank.Threads = append(rank.Threads, decode.Thread{Thread: th, TID: 10000 + p*100 + th, Events: uint64(len(vals)), Bytes: size})
		total += uint64(len(vals))
	}
	return rank, total, nil
}

// genThread returns the event values of thread th of process p.
func genThread(spec genSpec, p, th, side int, id []uint16) []uint16 {
	fn := func(name string) uint16 {
		for i, n := range genNames {
			if n == name {
				return id[i]
			}
		}
		panic(name)
	}
	var (
		mainF, initF, rankF, sizeF = fn("main"), fn("MPI_Init"), fn("MPI_Comm_rank"), fn("MPI_Comm_size")
		mallocF, parF, ompFn, tnum = fn("malloc"), fn("GOMP_parallel"), fn("main._omp_fn.0"), fn("omp_get_thread_num")
		stepF, kernelF, irecvF     = fn("step"), fn("kernel"), fn("MPI_Irecv")
		isendF, waitF, allredF     = fn("MPI_Isend"), fn("MPI_Waitall"), fn("MPI_Allreduce")
		logF, cpuF, critS, memcpyF = fn("log_progress"), fn("CPU_Exec"), fn("GOMP_critical_start"), fn("memcpy")
		critE, freeF, finF         = fn("GOMP_critical_end"), fn("free"), fn("MPI_Finalize")
	)
	v := make([]uint16, 0, spec.Events+256)
	call := func(f uint16) { v = append(v, f, 0) }
	if th > 0 {
		// A worker: CPU_Exec a varying number of times (the same sequence
		// in both runs), then an update of its champion.
		v = append(v, ompFn)
		call(tnum)
		s := uint32(p*7919 + th*104729 + 1)
		noCrit := spec.Faulty && p == spec.BugCrit[0] && th == spec.BugCrit[1]
		for u := 0; len(v) < spec.Events; u++ {
			s = s*1103515245 + 12345
			for range 5 + int(s>>16)%36 {
				call(cpuF)
			}
			if noCrit && len(v) > spec.Events/2 {
				call(memcpyF)
			} else {
				call(critS)
				call(memcpyF)
				call(critE)
			}
		}
		return append(v, 0)
	}
	// The master: set up, time steps, finish.
	v = append(v, mainF)
	call(initF)
	call(rankF)
	call(sizeF)
	call(mallocF)
	v = append(v, parF, ompFn)
	call(tnum)
	x, y := p%side, p/side
	nb := 0
	for _, in := range []bool{x > 0, x < side-1, y > 0, y < side-1} {
		if in {
			nb++
		}
	}
	const tail = 7 // the closing values below
	for s := 0; len(v)+tail < spec.Events; s++ {
		rows := spec.Rows
		if spec.Faulty && p == spec.BugRows && len(v) > spec.Events/2 {
			rows++
		}
		v = append(v, stepF)
		for range rows {
			call(kernelF)
		}
		for range nb {
			call(irecvF)
			call(isendF)
		}
		call(waitF)
		call(allredF)
		v = append(v, 0)
		if p == 0 && s%50 == 49 {
			call(logF)
		}
	}
	v = append(v, 0, 0) // main._omp_fn.0, GOMP_parallel
	call(freeF)
	call(finF)
	return append(v, 0)
}

// TestGeneratedRuns checks the generator on a small spec: the runs decode
// with every trace at least spec.Events long, and the ranking finds the two
// planted bugs, as BenchmarkRankGenerated requires at full size.
func TestGeneratedRuns(t *testing.T) {
	dir := t.TempDir()
	spec := genSpec{Procs: 16, Threads: 4, Events: 5000, Rows: 16, BugRows: 6, BugCrit: [2]int{9, 3}}
	normal, faulty := filepath.Join(dir, "normal"), filepath.Join(dir, "faulty")
	n, err := writeGenRun(normal, spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.Faulty = true
	if _, err := writeGenRun(faulty, spec); err != nil {
		t.Fatal(err)
	}
	if n < 64*5000 || n > 64*5100 {
		t.Errorf("%d events in the normal run, want about 64 × 5,000", n)
	}
	c, err := Open([]string{normal, faulty}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.IDs) != 64 || len(c.Runs[Faulty].Notes) != 0 {
		t.Fatalf("%d traces, notes %v", len(c.IDs), c.Runs[Faulty].Notes)
	}
	for _, p := range c.Runs[Normal].Procs {
		for _, th := range p.Rank.Threads {
			if th.Events < 5000 {
				t.Errorf("trace %d.%d: %d events", p.Rank.Rank, th.Thread, th.Events)
			}
		}
	}
	rk, err := c.Sweep(defaultGrid(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	checkPlanted(t, rk, spec)
}
