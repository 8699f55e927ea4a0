package record

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/difftrace/difftrace/elfsym"
	"github.com/difftrace/difftrace/internal/atomicfile"
	"github.com/difftrace/difftrace/parlot"
	"github.com/difftrace/difftrace/rundir"
	"github.com/difftrace/difftrace/trace"
	"github.com/difftrace/difftrace/uftrace"
)

// ConvertOptions says where the ParLOT files of one process go.
type ConvertOptions struct {
	Dir    string // the run directory
	Prefix string // file prefix: <Prefix>.<Rank>.info and <Prefix>.<Rank>.<thread>
	Rank   int
	PID    int // the process of the recording to convert; 0 means the first
	// Snapshot, if the process was killed, holds its stacks just before:
	// calls a thread was still blocked in are appended to its trace.
	Snapshot *Snapshot
	// MainImage is the program's path; a frame of it in a snapshot is a
	// patched function, any other frame a library function reached through
	// a procedure linkage table.
	MainImage string
	// AllImages says the recording also caught calls between libraries,
	// so a snapshot frame may have been called from any image.
	AllImages bool
	// Keep, if set, says which calls the recording selected: a stack
	// snapshot adds only those.
	Keep func(trace.Name) bool
}

// ConvertResult describes the files written for one process.
type ConvertResult struct {
	PID     int
	Threads []rundir.Thread
	Notes   []string // what a reader of the manifest should know
	Bytes   int64    // total size of the trace files and the .info
	Values  uint64   // total values (entries + exits) written
	// In is the call the process was in when its trace ended: the
	// innermost open call of the thread that recorded last among those
	// that end inside calls ("" when every thread returned from all).
	In trace.Name
}

// threadPlan is what pass 1 learns about a thread.
type threadPlan struct {
	task  uftrace.Task
	stats uftrace.ThreadStats
	extra []trace.Name // calls appended from the stack snapshot
}

// ConvertUftrace writes the ParLOT files of one process of a uftrace
// recording: a trace per thread (thread 0 the main thread, then creation
// order) with an entry's function ID at each entry and 0 at each exit, and
// the .info table naming the IDs, one section per image, the program's
// first. Function IDs are given per process in order of first appearance,
// grouped by image. Files are written under temporary names and renamed
// into place.
func ConvertUftrace(data *uftrace.Data, opt ConvertOptions) (*ConvertResult, error) {
	pid := opt.PID
	if pid == 0 {
		pid = data.Processes()[0]
	}
	res := &ConvertResult{PID: pid}
	var plans []*threadPlan
	for _, t := range data.Threads(pid) {
		plans = append(plans, &threadPlan{task: t})
	}

	// Pass 1: every name, in order of first appearance.
	var order []trace.Name
	seen := map[trace.Name]bool{}
	note := func(n trace.Name) { order = appendNew(order, seen, n) }
	for _, p := range plans {
		st, err := data.ReadCalls(p.task, func(c uftrace.Call) error {
			if !c.Exit {
				note(c.Name)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		p.stats = st
	}
	order = finishPlans(data, pid, opt, plans, res, order)

	// Pass 2: the traces, then the table. Addresses stand for the same
	// function throughout, unless the process called exec.
	execs := 0
	for _, s := range data.Sessions {
		if s.PID == pid {
			execs++
		}
	}
	err := writeProcess(data, pid, opt, plans, order, res, func(p *threadPlan, ids map[trace.Name]uint16, pw *parlot.Writer) error {
		buf := make([]uint16, 0, 4096)
		byAddr := map[uint64]uint16{}
		_, err := data.ReadCalls(p.task, func(c uftrace.Call) error {
			v := uint16(0)
			if !c.Exit {
				var ok bool
				if v, ok = byAddr[c.Addr]; !ok || execs > 1 {
					v = ids[c.Name]
					byAddr[c.Addr] = v
				}
			}
			buf = append(buf, v)
			if len(buf) == cap(buf) {
				err := pw.Write(buf)
				buf = buf[:0]
				return err
			}
			return nil
		})
		if err != nil {
			return err
		}
		return pw.Write(buf)
	}, nil)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// appendNew appends n to order unless seen holds it, and marks it seen.
func appendNew(order []trace.Name, seen map[trace.Name]bool, n trace.Name) []trace.Name {
	if seen[n] {
		return order
	}
	seen[n] = true
	return append(order, n)
}

// finishPlans completes what pass 1 learnt of a process's threads: the
// calls a stack snapshot adds at their ends (appended to order, the names
// in order of first appearance), and notes on records uftrace lost or cut
// short.
func finishPlans(data *uftrace.Data, pid int, opt ConvertOptions, plans []*threadPlan, res *ConvertResult, order []trace.Name) []trace.Name {
	if opt.Snapshot != nil {
		addSnapshotFrames(data, pid, opt, plans, res)
		seen := map[trace.Name]bool{}
		for _, n := range order {
			seen[n] = true
		}
		for _, p := range plans {
			for _, n := range p.extra {
				order = appendNew(order, seen, n)
			}
		}
	}
	for _, p := range plans {
		if p.stats.Lost > 0 {
			res.Notes = append(res.Notes, fmt.Sprintf("thread %d: uftrace lost %d records (its buffers were full; record with a larger buffer)", p.task.Thread, p.stats.Lost))
		}
		if p.stats.Truncated {
			res.Notes = append(res.Notes, fmt.Sprintf("thread %d: uftrace's records end inside a record (the recorder was cut short)", p.task.Thread))
		}
	}
	return order
}

// writeProcess numbers the names of a process (order: in order of first
// appearance), writes each thread's trace — fill writes its values, then
// the calls the snapshot adds are appended — and the .info table, and
// describes them in res.
//
// Function IDs: the program's image first (a ParLOT table's first section
// is the program, docs/parlot-format.md; written even if the program made
// no recorded call, so that no reader takes a library for the program),
// then the other images in order of first appearance, functions likewise.
//
// verbatim, if not nil, may name for a thread a file that already holds its
// trace with these IDs, compressed (and how many values it holds): the file
// is then copied as it is, unless calls are to be appended.
func writeProcess(data *uftrace.Data, pid int, opt ConvertOptions, plans []*threadPlan, order []trace.Name, res *ConvertResult,
	fill func(p *threadPlan, ids map[trace.Name]uint16, pw *parlot.Writer) error,
	verbatim func(p *threadPlan, ids map[trace.Name]uint16) (path string, values uint64, ok bool)) error {
	prog := data.Program(pid, ^uint64(0))
	if prog == "" {
		prog = opt.MainImage
	}
	if len(order) > parlot.MaxFuncID {
		return fmt.Errorf("process %d calls %d distinct functions; a ParLOT trace holds at most %d (record the main image only)", pid, len(order), parlot.MaxFuncID)
	}
	ids := map[trace.Name]uint16{}
	next := uint16(1)
	secs := parlot.ImageSections(order, prog)
	for _, sec := range secs {
		for _, n := range sec.Names {
			ids[n] = next
			next++
		}
	}
	var info bytes.Buffer
	if err := parlot.WriteFuncTable(&info, secs); err != nil {
		return fmt.Errorf("process %d: %w", pid, err)
	}

	var written []string
	cleanup := func() {
		for _, p := range written {
			os.Remove(p)
		}
	}
	var inAt uint64
	for _, p := range plans {
		open := append(slices.Clip(p.stats.Open), p.extra...)
		last := p.stats.LastTime
		if len(p.extra) > 0 && opt.Snapshot != nil {
			last = max(last, opt.Snapshot.Time)
		}
		if len(open) > 0 && (res.In == (trace.Name{}) || last > inAt) {
			res.In, inAt = open[len(open)-1], last
		}
	}
	for _, p := range plans {
		path := filepath.Join(opt.Dir, rundir.TraceName(opt.Prefix, opt.Rank, p.task.Thread))
		var values uint64
		var src string
		if verbatim != nil && len(p.extra) == 0 {
			src, values, _ = verbatim(p, ids)
		}
		n, err := writeFileAtomic(path, func(w io.Writer) error {
			if src != "" {
				f, err := os.Open(src)
				if err != nil {
					return err
				}
				defer f.Close()
				_, err = io.Copy(w, f)
				return err
			}
			pw := parlot.NewWriter(w)
			if err := fill(p, ids, pw); err != nil {
				return err
			}
			extra := make([]uint16, len(p.extra))
			for i, x := range p.extra {
				extra[i] = ids[x]
			}
			if err := pw.Write(extra); err != nil {
				return err
			}
			values = pw.Values()
			return pw.Close()
		})
		if err != nil {
			cleanup()
			return err
		}
		written = append(written, path)
		res.Bytes += n
		res.Values += values
		res.Threads = append(res.Threads, rundir.Thread{Thread: p.task.Thread, TID: p.task.TID, Events: values, Bytes: n})
	}
	n, err := writeFileAtomic(filepath.Join(opt.Dir, rundir.InfoName(opt.Prefix, opt.Rank)), func(w io.Writer) error {
		_, err := w.Write(info.Bytes())
		return err
	})
	if err != nil {
		cleanup()
		return err
	}
	res.Bytes += n
	return nil
}

// addSnapshotFrames decides, for each thread of the snapshot that was
// inside a traced call, whether that call's entry is missing from the
// recording, and plans to append it.
func addSnapshotFrames(data *uftrace.Data, pid int, opt ConvertOptions, plans []*threadPlan, res *ConvertResult) {
	sn := opt.Snapshot
	byTID := map[int]*threadPlan{}
	for _, p := range plans {
		byTID[p.task.TID] = p
	}
	plt := data.PLTNames(pid)
	tids := make([]int, 0, len(sn.Threads))
	for tid := range sn.Threads {
		tids = append(tids, tid)
	}
	slices.Sort(tids)
	var unnamed []string
	for _, tid := range tids {
		p := byTID[tid]
		f, ok := InnermostTraced(sn.Threads[tid])
		if p == nil || !ok {
			// uftrace announces a thread at its first traced call, before
			// any record: a thread it does not know was never in one.
			continue
		}
		if p.stats.LastTime >= sn.Time {
			continue // the thread moved on while the snapshot was taken
		}
		name, ok := snapshotName(data, pid, opt.MainImage, opt.AllImages, f, plt)
		if !ok {
			if names, err := elfsym.FunctionNames(f.Module, f.Vaddr); err == nil && len(names) > 0 {
				unnamed = append(unnamed, fmt.Sprintf("thread %d was inside %s (%s), reached through a call the recording does not name", p.task.Thread, names[0], filepath.Base(f.Module)))
			}
			continue
		}
		if opt.Keep != nil && !opt.Keep(name) {
			continue // a call the recording did not select
		}
		open := p.stats.Open
		if len(open) > 0 && open[len(open)-1] == name {
			continue // its entry is already recorded
		}
		// The calls between the last one recorded and the one it was
		// blocked in, when the snapshot shows them; else that one alone.
		chain := callChain(data, pid, opt.MainImage, sn.Threads[tid])
		if opt.Keep != nil {
			chain = slices.DeleteFunc(chain, func(n trace.Name) bool { return !opt.Keep(n) })
		}
		if len(chain) == 0 || chain[len(chain)-1] != name {
			chain = append(chain, name)
		}
		from := -1
		if len(open) > 0 {
			from = slices.Index(chain, open[len(open)-1])
			for i := len(chain) - 1; i > from; i-- {
				if chain[i] == open[len(open)-1] {
					from = i
					break
				}
			}
			if from < 0 {
				chain, from = []trace.Name{name}, -1
			}
		}
		p.extra = append(p.extra, chain[from+1:]...)
	}
	for _, p := range plans {
		if len(p.extra) == 0 {
			continue
		}
		var fs []string
		for _, x := range p.extra {
			fs = append(fs, x.Func)
		}
		what := fs[len(fs)-1] + ", the call it was blocked in,"
		if len(fs) > 1 {
			what = strings.Join(fs, " > ") + ", the calls it was blocked in,"
		}
		res.Notes = append(res.Notes, fmt.Sprintf("thread %d: %s added from a stack snapshot taken before the kill", p.task.Thread, what))
	}
	res.Notes = append(res.Notes, unnamed...)
}

// callChain names, outermost first, the functions of the program a
// thread's snapshot shows it inside: each frame of the program that
// returns to just after a direct call gives the function it is in and the
// one it called. Frames reached through indirect calls (virtual functions,
// pointers) or that the unwinder could not follow are left out, so the
// chain may skip calls but never misorders them.
func callChain(data *uftrace.Data, pid int, mainImage string, frames []Frame) []trace.Name {
	if mainImage == "" {
		if imgs := data.ImagePaths(pid); len(imgs) > 0 {
			mainImage = imgs[0]
		}
	}
	var chain []trace.Name
	add := func(n trace.Name) {
		if strings.HasPrefix(n.Func, "0x") || n.Image == "?" {
			return
		}
		if len(chain) == 0 || chain[len(chain)-1] != n {
			chain = append(chain, n)
		}
	}
	for i := len(frames) - 1; i >= 0; i-- {
		f := frames[i]
		if !f.Call || f.Module != mainImage {
			continue
		}
		target, ok := directCallee(f.Module, f.Vaddr+1)
		if !ok {
			continue
		}
		add(data.Resolve(pid, ^uint64(0), f.PC-1))
		add(data.Resolve(pid, ^uint64(0), f.PC+target-(f.Vaddr+1)))
	}
	return chain
}

// snapshotName names a snapshot frame as the recording would have: a
// function of the main image by its symbol, a library function by the name
// the calling image's procedure linkage table gives it (MPI_Recv, not its
// alias PMPI_Recv), attributed to that calling image.
func snapshotName(data *uftrace.Data, pid int, mainImage string, allImages bool, f Frame, plt map[string][]string) (trace.Name, bool) {
	pc := f.PC
	if f.Call {
		pc--
	}
	images := data.ImagePaths(pid)
	if mainImage == "" && len(images) > 0 {
		mainImage = images[0]
	}
	if f.Module == mainImage {
		n := data.Resolve(pid, ^uint64(0), pc)
		return n, !strings.HasPrefix(n.Func, "0x")
	}
	names, err := elfsym.FunctionNames(f.Module, f.Vaddr)
	if err != nil {
		return trace.Name{}, false
	}
	// The calling image: the main image if it imports one of the names,
	// else (when calls between libraries were recorded) the first mapped
	// image that does.
	callers := []string{mainImage}
	if allImages {
		callers = append(callers, images...)
	}
	for _, img := range callers {
		for _, n := range names {
			if slices.Contains(plt[img], n) {
				return trace.Name{Image: img, Func: n}, true
			}
		}
	}
	// The frame's function may have been reached by a tail call from the
	// function the program called (PMPI_Finalize jumps to
	// ompi_mpi_finalize): name the imported function that jumps there.
	for _, img := range callers {
		if n := tailCaller(f.Module, plt[img], names); n != "" {
			return trace.Name{Image: img, Func: n}, true
		}
	}
	return trace.Name{}, false
}

// writeFileAtomic writes a file under a temporary name in the same
// directory, syncs it and renames it into place, so a reader never sees a
// partial file. It returns the file's size. A full disk is reported as such.
func writeFileAtomic(path string, fill func(io.Writer) error) (int64, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return 0, fileError(path, err)
	}
	// As uftrace writes its own files: a sync per file would hold up the
	// end of every rank (BENCHMARKS.md, "capture: streaming").
	f.NoSync()
	cw := &countWriter{w: f}
	bw := bufio.NewWriterSize(cw, 64<<10)
	err = fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		f.Abort()
		return 0, fileError(path, err)
	}
	if err := f.Commit(); err != nil {
		return 0, fileError(path, err)
	}
	return cw.n, nil
}

// fileError names the file an output error happened on and, for a full
// disk, says what to do.
func fileError(path string, err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return &noSpaceError{path, err}
	}
	var pe *os.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return err
	}
	if strings.Contains(err.Error(), path) {
		return err
	}
	return fmt.Errorf("writing %s: %w", path, err)
}

// noSpaceError is a file of the run that could not be written for want of
// space; errors.Is sees the cause (syscall.ENOSPC or EDQUOT).
type noSpaceError struct {
	path string
	err  error
}

func (e *noSpaceError) Error() string {
	return "writing " + e.path + ": no space left on the device (free some space or write the run to another directory)"
}

func (e *noSpaceError) Unwrap() error { return e.err }

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
