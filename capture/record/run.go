package record

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/difftrace/difftrace/capture"
	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/rundir"
	"golang.org/x/sys/unix"
)

// Options configure one rank's recorder.
type Options struct {
	Dir         string        // the run directory (-o)
	Backend     string        // "uftrace" (default) or "pin"
	AllImages   bool          // trace inside libraries too
	Only        string        // record only the calls this filter spec keeps ("": all)
	Verbose     bool          // say more on stderr (every function uftrace could not patch)
	Timeout     time.Duration // kill the program after this long (0: never)
	Force       bool          // replace another run in Dir
	KeepUftrace bool          // keep the raw uftrace recording as Dir/uftrace.<rank>
	NoPeers     bool          // do not preload the peers library into an MPI program
	Prefix      string        // trace file prefix (default rundir.DefaultPrefix, "trace")
	Command     []string      // the program and its arguments
	ToolVersion string        // recorded in run.json

	// Args are the recorder's own command-line arguments, to re-execute
	// itself as the worker (see Main).
	Args []string

	Stdin          io.Reader
	Stdout, Stderr io.Writer

	// Getenv reads the launcher's environment (default os.Getenv).
	Getenv func(string) string
}

const (
	// workerEnv marks the re-executed recorder (see Main).
	workerEnv = "DIFFTRACE_CAPTURE_WORKER"
	// launchEnv passes the launch identifier to the worker.
	launchEnv = "DIFFTRACE_CAPTURE_LAUNCH"
	// startEnv passes the supervisor's start (Unix nanoseconds) to the
	// worker, which times its start-up from it (--verbose).
	startEnv = "DIFFTRACE_CAPTURE_START"
	// killGrace is how long a killed program gets to die of SIGTERM
	// before SIGKILL.
	killGrace = 3 * time.Second
	// recorderWait bounds the wait for uftrace to write out its data
	// after the program ended.
	recorderWait = 2 * time.Minute
	// snapshotTimeout bounds a stack snapshot.
	snapshotTimeout = 20 * time.Second
	// ExitTimeout is capture's exit status when its --timeout killed the
	// program, as timeout(1) does.
	ExitTimeout = 124
)

func (o *Options) defaults() {
	if o.Backend == "" {
		o.Backend = "uftrace"
	}
	if o.Prefix == "" {
		o.Prefix = rundir.DefaultPrefix
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
}

// Main runs the recorder of one rank and returns the exit status to leave
// with: the program's own (128+n if a signal n killed it, ExitTimeout if
// --timeout did), or 128+n when signal n (SIGINT, SIGTERM, SIGHUP) made
// capture end it.
//
// The process a launcher starts re-executes itself as a worker in a new
// process group and only relays signals to it. Launchers end a job with
// SIGTERM and, a second later, SIGKILL (Open MPI's
// odls_base_sigkill_timeout); the worker, out of the launcher's reach,
// still gets to snapshot the program's stacks, kill it and write its
// traces. If the launcher kills the first process, the worker receives
// SIGTERM (its parent-death signal) and finishes the same way.
//
// A process group, not a session: with the kernel's automatic grouping of
// sessions for the scheduler (sched_autogroup, on by default), a rank in a
// session of its own is scheduled as a group of its own, and ranks that
// wait by yielding the processor (Open MPI's, when a node is
// oversubscribed) then yield to nobody. Eight ranks of the stencil on two
// cores took 15-35 % longer, under uftrace alone, when each was started
// in a new session. Only a worker that reads a terminal gets a session:
// in a background process group of the terminal it would be stopped.
func Main(opt Options) (int, error) {
	opt.defaults()
	if opt.Getenv(workerEnv) == "" && len(opt.Args) > 0 {
		return supervise(opt)
	}
	return Run(opt)
}

func supervise(opt Options) (int, error) {
	began := time.Now()
	// The worker checks the program and the backend (reading the
	// program's symbols once per rank, not twice); what needs nothing
	// read is checked here.
	if err := opt.checkArgs(); err != nil {
		return 1, err
	}
	exe, err := os.Executable()
	if err != nil {
		return 1, fmt.Errorf("cannot find the difftrace executable to start the recorder: %w", err)
	}
	host, _ := os.Hostname()
	launch := opt.Getenv(launchEnv)
	if launch == "" {
		launch = LaunchID(opt.Getenv, host, os.Getpid(), time.Now())
	}
	cmd := exec.Command(exe, opt.Args...)
	cmd.Env = append(os.Environ(), workerEnv+"=1", launchEnv+"="+launch, startEnv+"="+strconv.FormatInt(began.UnixNano(), 10))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = opt.Stdin, opt.Stdout, opt.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if isTerminal(opt.Stdin) {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGTERM}
	}
	// The parent-death signal follows the thread that started the child.
	runtime.LockOSThread()
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 1, fmt.Errorf("starting the recorder: %w", err)
	}
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	err = cmd.Wait()
	if opt.Verbose {
		user, sys := ownCPU()
		fmt.Fprintf(opt.Stderr, "difftrace capture: the process that started the recorder used %s of CPU (user %s, system %s)\n", ms(user+sys), ms(user), ms(sys))
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
		if ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ws.ExitStatus(), nil
	}
	return 1, err
}

// isTerminal says r is a terminal.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// check validates the options before anything runs, and returns the
// recorder and the path of the program it is to run.
func (o *Options) check() (backend, string, error) {
	if err := o.checkArgs(); err != nil {
		return nil, "", err
	}
	b, err := o.backend()
	if err != nil {
		return nil, "", err
	}
	prog, err := b.program(o.Command[0])
	if err != nil {
		return nil, "", err
	}
	if u, ok := b.(*uftraceBackend); ok && o.Only != "" {
		if u.sel, err = selectCalls(prog, o.Only); err != nil {
			return nil, "", err
		}
	}
	return b, prog, nil
}

// checkArgs checks the options that need nothing read.
func (o *Options) checkArgs() error {
	switch {
	case o.Dir == "":
		return param.Errorf("output directory", "", "none given: give the directory to write the run to")
	case len(o.Command) == 0:
		return errors.New("no program to record: give the command that runs it")
	case o.Timeout < 0:
		return param.Errorf("timeout", o.Timeout.String(), "want a positive duration such as 60s")
	case o.Only != "" && o.AllImages:
		return param.Errorf("only", o.Only, "records only the calls the program makes, and all images records the calls inside libraries too: give one or the other")
	case o.Only != "" && o.Backend == "pin":
		return param.Errorf("only", o.Only, "needs the uftrace backend (the Pin tool records every call)")
	}
	return nil
}

// backend returns the recorder the options ask for, if it is installed.
func (o *Options) backend() (backend, error) {
	switch o.Backend {
	case "uftrace":
		path, err := exec.LookPath("uftrace")
		if err != nil {
			return nil, param.Errorf("backend", "uftrace", "uftrace is not installed or not in PATH: install it (Debian/Ubuntu: apt-get install uftrace) or record with the pin backend")
		}
		return &uftraceBackend{path: path}, nil
	case "pin":
		pin, err := capture.FindPin(o.Getenv)
		if err != nil {
			return nil, &param.Error{Name: "backend", Value: "pin", Err: err}
		}
		return &pinBackend{pin: pin}, nil
	}
	return nil, param.Errorf("backend", strconv.Quote(o.Backend), "want uftrace or pin")
}

// workPrefix starts the name of a recorder's work directory in the
// temporary directory: difftrace-BACKEND-RANK-PID-RANDOM.
const workPrefix = "difftrace-"

// workRoot returns the directory to make a recorder's work directory in:
// TMPDIR if set; else, for a work directory that stays small, the node's
// memory (/dev/shm, if it is a tmpfs with room); else the system's
// temporary directory.
//
// What uftrace writes there beside a streamed recording is small (a few
// MB per rank: the symbol tables of the ~100 libraries an Open MPI program
// maps), but it is about 130 files per rank, created and then removed. On a
// disk file system that costs more than it seems: ext4 looks through its
// recently freed inodes for each file it creates (one step of an 8-rank
// program, where start and end are all there is, took 1.29 s with the
// work directories in /tmp and 1.09 s in /dev/shm; BENCHMARKS.md).
func workRoot(small bool) string {
	if os.Getenv("TMPDIR") != "" || !small {
		return os.TempDir()
	}
	var st unix.Statfs_t
	if err := unix.Statfs(shmemRoot, &st); err != nil || st.Type != unix.TMPFS_MAGIC || uint64(st.Bavail)*uint64(st.Bsize) < minShmemFree {
		return os.TempDir()
	}
	return shmemRoot
}

// minShmemFree is the room /dev/shm must have left for workRoot to put a
// work directory there: far more than one needs, so that a nearly full
// /dev/shm (which the program's own MPI library uses) is left alone.
const minShmemFree = 256 << 20

// removeStaleWork removes the work directories in tmp that recorders
// killed outright (SIGKILL, a node's out-of-memory killer) left behind:
// those of this user whose recorder process no longer exists.
func removeStaleWork(tmp string) {
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), workPrefix) {
			continue
		}
		f := strings.Split(strings.TrimPrefix(e.Name(), workPrefix), "-")
		if len(f) != 4 {
			continue
		}
		pid, err := strconv.Atoi(f[2])
		if err != nil || pid <= 0 {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		if st, ok := info.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			os.RemoveAll(filepath.Join(tmp, e.Name()))
		}
	}
}

// A backend runs the program under one recorder.
type backend interface {
	// program finds the program and checks the recorder can trace it.
	program(name string) (string, error)
	// command is the command line that runs the program under the
	// recorder; the program must be the command's own process (its pid
	// is the program's).
	command(opt Options, prog string, rank int, work string) *exec.Cmd
	// prepare readies the backend to record rank, and says whether its
	// work directory will hold only small files (then kept in memory,
	// see workRoot).
	prepare(opt Options, rank int) (small bool)
	// snapshots says whether a program killed while running needs a
	// stack snapshot to keep the calls it was blocked in.
	snapshots() bool
	// finish, once the program has ended, makes sure its traces are in
	// the run directory and describes them.
	finish(opt Options, rank, pid int, prog string, snap *Snapshot, work string) (*finished, error)
}

// finished describes the traces of a rank once written.
type finished struct {
	threads []rundir.Thread
	notes   []string
	in      string // the call the program was in when it ended, if any
}

// Run records the program as one rank of a run: it claims the run
// directory, runs the program under the backend, kills it on --timeout or a
// terminating signal (after a stack snapshot), has the recording turned
// into ParLOT files and records the rank in run.json.
func Run(opt Options) (int, error) {
	opt.defaults()
	// The recorder shares the node's cores with the program's ranks: one
	// thread of Go code at a time is all it needs (it waits, and compresses
	// what arrives), and more would only spin on cores the ranks want.
	runtime.GOMAXPROCS(1)
	be, prog, err := opt.check()
	if err != nil {
		return 1, err
	}
	rank, _, err := RankFromEnv(opt.Getenv)
	if err != nil {
		return 1, err
	}
	// The launcher's number of processes, recorded so that a reader can
	// tell a rank that cannot be; 0 where the launcher does not say.
	_, size, _ := LaunchFromEnv(opt.Getenv)
	host, _ := os.Hostname()
	start := time.Now()
	began := start // the supervisor's start, if there is one
	if ns, err := strconv.ParseInt(opt.Getenv(startEnv), 10, 64); err == nil && ns > 0 && ns <= start.UnixNano() {
		began = time.Unix(0, ns)
	}
	launch := opt.Getenv(launchEnv)
	if launch == "" {
		launch = LaunchID(opt.Getenv, host, os.Getpid(), start)
	}
	logf := func(format string, a ...any) {
		fmt.Fprintf(opt.Stderr, "difftrace capture: rank %d: "+format+"\n", append([]any{rank}, a...)...)
	}
	images := "main"
	if opt.AllImages {
		images = "all"
	}
	tmpl := rundir.Manifest{
		Schema: rundir.ManifestSchema, Tool: "difftrace", ToolVersion: opt.ToolVersion,
		Format: "parlot-17", Backend: opt.Backend, Images: images, Prefix: opt.Prefix,
		Command: append([]string{prog}, opt.Command[1:]...), Launch: launch, Size: size,
	}
	if u, ok := be.(*uftraceBackend); ok {
		tmpl.Recorded = u.sel.recorded()
	}
	r := rundir.Rank{Rank: rank, Host: host, Start: start, Threads: []rundir.Thread{}}
	// Refuse before creating anything: a refused capture leaves the
	// directory as it was.
	if err := checkRunDir(opt.Dir, tmpl, opt.Force); err != nil {
		return 1, err
	}
	release, err := holdActive(opt.Dir)
	if err != nil {
		return 1, err
	}
	defer release()
	if err := claimRunDir(opt.Dir, tmpl, r, opt.Force); err != nil {
		return 1, err
	}
	removeStaleWork(os.TempDir())
	removeStaleWork(shmemRoot)
	pattern := fmt.Sprintf("%s%s-%d-%d-", workPrefix, opt.Backend, rank, os.Getpid())
	work, err := os.MkdirTemp(workRoot(be.prepare(opt, rank)), pattern)
	if err != nil {
		// /dev/shm may refuse (full, or mounted read-only): the disk.
		work, err = os.MkdirTemp("", pattern)
	}
	if err != nil {
		return 1, fmt.Errorf("creating the recorder's work directory: %w", err)
	}
	keepWork := false
	defer func() {
		if !keepWork {
			os.RemoveAll(work)
		}
	}()

	// Become the subreaper of the program's descendants: a recorder may be
	// the program's child (uftrace's is), and must be waited for once the
	// program ends.
	const prSetChildSubreaper = 36
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)

	cmd := be.command(opt, prog, rank, work)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = opt.Stdin, opt.Stdout, opt.Stderr
	// Should the recorder itself be killed, the program dies with it
	// instead of hanging on. The program gets a process group of its own,
	// below the recorder's: when the launcher kills the first process,
	// the recorder's group is orphaned, and the kernel hangs up (SIGHUP,
	// then SIGCONT) an orphaned group that holds a stopped process — the
	// program, stopped for its stack snapshot, and uftrace's recorder with
	// it. A group whose parent lives in another group is not orphaned.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	runtime.LockOSThread()
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	started := time.Now()
	if err := cmd.Start(); err != nil {
		return 1, fmt.Errorf("starting %s: %w", opt.Backend, err)
	}
	pid := cmd.Process.Pid
	r.PID = pid
	if err := updateRank(opt.Dir, tmpl, r); err != nil {
		logf("%v", err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()

	// The ranks of a launch share one deadline: the run's start (that of
	// the first rank to claim the directory) plus --timeout. They end
	// their programs at nearly the same moment, and a rank the launcher
	// ends after that moment, because another rank's timeout fired first,
	// timed out all the same.
	var timer <-chan time.Time
	var deadline time.Time
	if opt.Timeout > 0 {
		deadline = start.Add(opt.Timeout)
		if m, err := readManifest(opt.Dir); err == nil && m != nil && !m.Start.IsZero() && m.Start.Before(start) {
			deadline = m.Start.Add(opt.Timeout)
		}
		timer = time.After(time.Until(deadline))
	}
	var why string
	var got syscall.Signal // the signal that made capture end the program
	select {
	case <-done:
	case <-timer:
		why = "timeout"
		r.KilledByTimeout = true
	case s := <-sigs:
		why = s.String()
		if sig, ok := s.(syscall.Signal); ok {
			why = rundir.SignalName(sig)
			got = sig
		}
		if why != "SIGINT" && !deadline.IsZero() && !time.Now().Before(deadline) {
			why = "timeout"
			r.KilledByTimeout = true
		}
	}
	var snap *Snapshot
	var waits map[int]*rundir.Waiting
	var notes []string
	if why != "" {
		if why == "timeout" {
			logf("--timeout %s expired: killing the program", opt.Timeout)
		}
		// Stop the program first: while its stacks are read it must not
		// move on, nor react to other ranks ending theirs (Open MPI aborts
		// a process whose peer died, which would leave its trace ending
		// elsewhere than where it was blocked).
		syscall.Kill(pid, syscall.SIGSTOP)
		if be.snapshots() {
			snap, err = TakeSnapshot(pid, snapshotTimeout)
			if err != nil {
				notes = append(notes, err.Error())
				logf("%v", err)
			}
		}
		if p := filepath.Join(work, "peers"); fileExists(p) {
			if waits, err = readPeers(p); err != nil {
				logf("reading whom the threads waited for: %v", err)
			}
		}
		syscall.Kill(pid, syscall.SIGTERM)
		syscall.Kill(pid, syscall.SIGCONT)
		select {
		case <-done:
		case <-time.After(killGrace):
			syscall.Kill(pid, syscall.SIGKILL)
			<-done
		}
	}
	// From here on, further signals interrupt nothing: the traces are
	// written whatever happens.
	go func() {
		for range sigs {
		}
	}()
	r.End = time.Now()
	code := 0
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
		switch {
		case ws.Signaled():
			r.Signal = rundir.SignalName(ws.Signal())
			code = 128 + int(ws.Signal())
		default:
			r.Exited = true
			r.ExitStatus = ws.ExitStatus()
			code = ws.ExitStatus()
		}
	}
	switch {
	case why == "timeout":
		code = ExitTimeout
		notes = append([]string{fmt.Sprintf("killed by capture's --timeout %s", opt.Timeout)}, notes...)
	case got != 0:
		// capture ended the program with SIGTERM whatever it was sent;
		// its status is that of the signal the user or launcher sent
		// (130 for Ctrl-C, as every other command), not the program's
		// 143, so that a shell loop of captures stops on Ctrl-C.
		code = 128 + int(got)
	case why == "" && r.Signal != "" && r.Signal != "SIGSEGV" && r.Signal != "SIGABRT" && be.snapshots():
		// uftrace writes the pending calls of a thread that crashes with
		// SIGSEGV or SIGABRT; other signals leave them unwritten.
		notes = append([]string{"killed by " + r.Signal + " from outside capture: the call it was in may be missing from its trace"}, notes...)
	}
	fin, err := be.finish(opt, rank, pid, prog, snap, work)
	if err != nil {
		keepWork = true
		return 1, err
	}
	// Gone before run.json says the rank is done.
	os.RemoveAll(work)
	r.Threads = fin.threads
	for i := range r.Threads {
		r.Threads[i].Waiting = waits[r.Threads[i].TID]
	}
	r.Status = rundir.Status(why, r, fin.in)
	r.Note = strings.Join(append(notes, fin.notes...), "; ")
	if (r.Signal == "SIGSEGV" || r.Signal == "SIGABRT") && why == "" && be.snapshots() {
		logf("%s (uftrace's report of the crash, if it printed one, is about the program, not a bug of uftrace)", r.Status)
	}
	if err := updateRank(opt.Dir, tmpl, r); err != nil {
		return 1, err
	}
	release()
	if err := assembleIfLast(opt.Dir); err != nil {
		return 1, err
	}
	if opt.Verbose {
		user, sys := ownCPU()
		logf("%s from capture's start to the recorder's, %s from the program's end to capture's; the recorder used %s of CPU (user %s, system %s)",
			ms(started.Sub(began)), ms(time.Since(r.End)), ms(user+sys), ms(user), ms(sys))
	}
	return code, nil
}

// ownCPU returns the CPU time this process has used (its own, not its
// children's).
func ownCPU() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// ms writes a duration in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
