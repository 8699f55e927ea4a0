package record

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/difftrace/difftrace/rundir"
	"github.com/difftrace/difftrace/symname"
	"github.com/difftrace/difftrace/trace"
	"github.com/difftrace/difftrace/uftrace"
)

// uftraceBackend records with uftrace (Debian package uftrace): the
// unmodified binary is patched at load time, library calls are caught at
// the procedure linkage tables, and the recording is converted into ParLOT
// files when the program has ended.
type uftraceBackend struct {
	path string
	// stream receives the recording while the program runs (nil when
	// the raw recording is to be kept, or no port could be opened).
	stream *streamer
	start  time.Time // when the recorder was started
	// sel is what capture --only records; nil: every call of the
	// program (and of its libraries with --all-images).
	sel *selection
}

func (u *uftraceBackend) program(name string) (string, error) { return programPath(name) }

func (u *uftraceBackend) snapshots() bool { return true }

// prepare opens the port uftrace is to send the recording to, unless the
// raw recording is to be kept. Streamed, the work directory holds only what
// uftrace writes beside the records (symbol tables, memory maps, its task
// list and log): small.
func (u *uftraceBackend) prepare(opt Options, rank int) bool {
	if opt.KeepUftrace {
		return false
	}
	s, err := newStreamer(opt.Dir, "."+rundir.Stem(opt.Prefix, rank))
	if err != nil {
		fmt.Fprintf(opt.Stderr, "difftrace capture: rank %d: %v; uftrace writes its raw recording to %s instead\n", rank, err, os.TempDir())
		return false
	}
	u.stream = s
	return true
}

func (u *uftraceBackend) command(opt Options, prog string, rank int, work string) *exec.Cmd {
	dataDir, logFile := filepath.Join(work, "uftrace.data"), filepath.Join(work, "uftrace.log")
	args := uftraceArgs(opt, u.sel, dataDir, logFile, prog)
	if u.stream != nil {
		args = append([]string{"record", "--host", "127.0.0.1", "--port", strconv.Itoa(u.stream.port())}, args[1:]...)
	}
	cmd := exec.Command(u.path, args...)
	cmd.Env = bindNow(os.Environ())
	u.start = time.Now()
	if !opt.NoPeers && !opt.AllImages && isMPIProgram(prog) {
		// With --all-images uftrace would record the library's own PMPI
		// calls as the program's.
		env, note, err := peersEnv(cmd.Env, work, prog)
		if note != "" {
			fmt.Fprintf(opt.Stderr, "difftrace capture: rank %d: %s\n", rank, note)
		}
		if err != nil {
			fmt.Fprintf(opt.Stderr, "difftrace capture: rank %d: %v; if the run hangs, whom each rank waits for will not be known\n", rank, err)
		} else {
			cmd.Env = env
		}
	}
	return cmd
}

// removeShmem removes the buffers uftrace's recorder left in shared
// memory (/dev/shm/uftrace-SESSION-TID-N): it unlinks them when it ends
// normally, and leaves them when it is killed. They are found by the
// recording's session ids (those of its sid-SESSION.map files) and, in case
// the recorder died before it wrote those, by the program's thread ids, if
// made since start.
func removeShmem(sids []string, tids []int, start time.Time) {
	var names []string
	for _, sid := range sids {
		got, _ := filepath.Glob(filepath.Join(shmemRoot, "uftrace-"+sid+"-*"))
		names = append(names, got...)
	}
	for _, tid := range tids {
		got, _ := filepath.Glob(filepath.Join(shmemRoot, "uftrace-*-"+strconv.Itoa(tid)+"-*"))
		for _, g := range got {
			if st, err := os.Stat(g); err == nil && !st.ModTime().Before(start.Add(-time.Second)) {
				names = append(names, g)
			}
		}
	}
	for _, n := range names {
		os.Remove(n)
	}
}

// sessionsIn returns the session ids of the recording in dir, a uftrace
// data directory: those of its sid-SESSION.map files.
func sessionsIn(dir string) []string {
	var sids []string
	maps, _ := filepath.Glob(filepath.Join(dir, "sid-*.map"))
	for _, m := range maps {
		sids = append(sids, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(m), "sid-"), ".map"))
	}
	return sids
}

// shmemRoot is where shm_open keeps its objects (a variable for tests).
var shmemRoot = "/dev/shm"

// bindNow returns the environment uftrace and the traced program run in:
// env with LD_BIND_NOW=1, so the dynamic linker resolves every procedure
// linkage table slot when the program loads.
//
// uftrace catches library calls by hooking PLT slots. A slot not yet
// resolved (lazy binding, the default) goes through the dynamic linker on
// its first call, and while it resolves the slot for one thread, others
// that call the same function at that moment can reach it unrecorded. In
// an OpenMP program whose threads all reach the first GOMP_atomic_start of
// a reduction together, several threads' calls were missing though their
// GOMP_atomic_end calls were there: 10 of 20 recordings of examples/ilcs
// (8 ranks × 5 threads) lost 3 to 6 calls; with LD_BIND_NOW none of 30
// lost any. Slots resolved at load time leave nothing to race for, and
// uftrace hooks them all the same (it supports programs linked with
// -z now), at no cost per call. uftrace's own --no-pltbind (LD_BIND_NOT)
// also keeps every call, but makes each hooked call slower (twice the
// recording time of a call-heavy loop here).
//
// A user who already set LD_BIND_NOW keeps their value: set it empty to
// record a program that only starts with lazy binding (one that names a
// library function no library defines, and never calls it).
func bindNow(env []string) []string {
	for _, kv := range env {
		if strings.HasPrefix(kv, "LD_BIND_NOW=") {
			return env
		}
	}
	return append(env[:len(env):len(env)], "LD_BIND_NOW=1")
}

func (u *uftraceBackend) finish(opt Options, rank, pid int, prog string, snap *Snapshot, work string) (*finished, error) {
	dataDir, logFile := filepath.Join(work, "uftrace.data"), filepath.Join(work, "uftrace.log")
	waitRecorder(recorderWait)
	copt := ConvertOptions{
		Dir: opt.Dir, Prefix: opt.Prefix, Rank: rank, PID: pid, Snapshot: snap, MainImage: prog, AllImages: opt.AllImages,
		Keep: u.sel.keeps,
	}
	var res *ConvertResult
	tids := append([]int{pid}, snap.threadIDs()...)
	if u.stream != nil {
		u.stream.wait(recorderWait)
		for tid := range u.stream.threads {
			tids = append(tids, tid)
		}
		removeShmem(u.stream.sessions(), tids, u.start)
		var err error
		if res, err = u.stream.convert(copt); err != nil {
			log, _ := os.ReadFile(logFile)
			return nil, fmt.Errorf("rank %d: %w%s", rank, err, logMessages(log))
		}
	} else {
		removeShmem(sessionsIn(dataDir), tids, u.start)
		data, err := uftrace.Open(dataDir)
		if err != nil {
			log, _ := os.ReadFile(logFile)
			return nil, fmt.Errorf("uftrace recorded nothing usable (%w)%s; its files are kept in %s", err, logMessages(log), work)
		}
		if res, err = ConvertUftrace(data, copt); err != nil {
			return nil, fmt.Errorf("converting rank %d's recording (kept in %s): %w", rank, dataDir, err)
		}
	}
	if log, err := os.ReadFile(logFile); err == nil {
		var only []string
		if u.sel != nil {
			only = u.sel.own
		}
		fns := unpatchedFuncs(log, prog, only)
		if note := patchNote(fns); note != "" {
			res.Notes = append(res.Notes, note)
			if rank == 0 {
				fmt.Fprintf(opt.Stderr, "difftrace capture: rank 0: %s\n", note)
				if _, err := writeFileAtomic(filepath.Join(opt.Dir, UnpatchedName), func(w io.Writer) error { return writeUnpatched(w, fns) }); err != nil {
					fmt.Fprintf(opt.Stderr, "difftrace capture: rank 0: %v\n", err)
				}
				if opt.Verbose {
					for _, f := range fns {
						fmt.Fprintf(opt.Stderr, "difftrace capture: rank 0: not patched: %s: %s\n", f.name, f.why)
					}
				}
			}
		}
	}
	if opt.KeepUftrace {
		dst := filepath.Join(opt.Dir, "uftrace."+strconv.Itoa(rank))
		os.RemoveAll(dst)
		if err := os.Rename(dataDir, dst); err != nil {
			// Another file system: copy the recording instead.
			if err := os.CopyFS(dst, os.DirFS(dataDir)); err != nil {
				res.Notes = append(res.Notes, "the uftrace recording could not be kept: "+err.Error())
			}
		}
	}
	f := &finished{threads: res.Threads, notes: res.Notes}
	if res.In != (trace.Name{}) {
		f.in = symname.Written(res.In.Image, res.In.Func).Brief()
	}
	return f, nil
}

// programPath finds the program as the shell would and checks that
// uftrace can patch it: an ELF executable with a symbol table.
func programPath(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("program %s: %w", name, errors.Unwrap(err))
	}
	if p, err = filepath.Abs(p); err != nil {
		return "", err
	}
	f, err := elf.Open(p)
	if err != nil {
		return "", fmt.Errorf("%s is not an ELF executable (%w): capture records compiled programs; give the program itself, not a script that starts it", p, err)
	}
	defer f.Close()
	// The section is enough: every rank checks, and a large program's
	// symbols take long to read.
	if s := f.SectionByType(elf.SHT_SYMTAB); s == nil || s.Size <= s.Entsize {
		return "", fmt.Errorf("%s has no symbol table (it was stripped): uftrace can only patch functions it can name; rebuild it without -s and do not strip it", p)
	}
	return p, nil
}

// uftraceArgs is the uftrace command line. -P . patches every function of
// the program at load time (no recompilation); library calls are caught at
// the program's procedure linkage table, and with --nest-libcall at every
// library's. --keep-pid makes the traced program capture's own child, so its
// exit status and pid are first-hand; --no-event drops scheduler events.
// The dynamic patcher's debug messages go to the log, where patchNote finds
// the functions it could not patch.
//
// uftrace writes a call's entry only once something after it is recorded
// (a callee's entry or its own exit), so a program that leaves from inside
// calls would lose them: the triggers make it write every pending entry of
// the thread when the program calls one of the functions that end it
// (MPI_Abort, exit and their kin), so the trace ends inside the call it
// left from. Its handler of SIGSEGV and SIGABRT does the same for crashes.
//
// A selective recording (sel, capture --only) patches none of the program's
// functions, or only those it selects, and records only the calls it
// selects (see selection).
func uftraceArgs(opt Options, sel *selection, dataDir, logFile, prog string) []string {
	args := []string{"record", "--buffer", uftraceBuffer, "--keep-pid", "--no-event", "-d", dataDir, "--logfile=" + logFile,
		"--debug-domain", "dynamic:3"}
	if sel != nil {
		args = append(args, sel.args(prog)...)
	} else {
		args = append(args, "-P", ".")
	}
	for _, f := range endingCalls {
		args = append(args, "-T", f+"@finish")
	}
	if opt.AllImages {
		args = append(args, "--nest-libcall")
	}
	args = append(args, "--", prog)
	return append(args, opt.Command[1:]...)
}

// uftraceBuffer is the size of the buffers uftrace records each thread's
// calls into, in memory shared with its recorder, which writes or sends
// them once full. uftrace's default, 128 KiB, fills every millisecond or so
// in a call-heavy code, and each time the thread takes a new buffer and the
// recorder maps and unmaps the full one: 8 ranks of the -O0 stencil on 2
// cores took about 30 % longer under uftrace alone with 128 KiB than with
// 512 KiB or 1 MiB (BENCHMARKS.md). Two buffers of 512 KiB per thread that
// calls anything are what it costs in /dev/shm.
const uftraceBuffer = "512K"

// endingCalls are the library functions after which a program does not
// return to its code.
var endingCalls = []string{"MPI_Abort", "mpi_abort_", "exit", "_exit", "_Exit", "quick_exit", "abort"}

// waitRecorder waits until uftrace's recorder — the program's child, which
// the program's death left to capture, its subreaper — has written its
// data and exited, and reaps any other orphan the program left.
func waitRecorder(limit time.Duration) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if err != nil {
			return // no children left
		}
		if got <= 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// logMessages returns uftrace's error lines from its log (not the patcher's
// debug messages), for an error message.
func logMessages(log []byte) string {
	var keep []string
	for _, l := range strings.Split(string(log), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.Contains(l, "child terminated") && !strings.HasPrefix(l, "dynamic:") {
			keep = append(keep, l)
		}
	}
	if len(keep) == 0 {
		return ""
	}
	if len(keep) > 5 {
		keep = keep[len(keep)-5:]
	}
	return "; uftrace said: " + strings.Join(keep, " / ")
}
