package capture

import (
	"debug/elf"
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
	"sync/atomic"
	"syscall"
	"time"

	"github.com/difftrace/difftrace/decode"
)

// Options configure one rank's recorder.
type Options struct {
	Dir         string        // the run directory (-o)
	Backend     string        // "uftrace" (default) or "pin"
	AllImages   bool          // trace inside libraries too
	Timeout     time.Duration // kill the program after this long (0: never)
	Force       bool          // replace another run in Dir
	KeepUftrace bool          // keep the raw uftrace recording as Dir/uftrace.<rank>
	Prefix      string        // trace file prefix (default "trace")
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
		o.Prefix = "trace"
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
// --timeout did).
//
// The process a launcher starts re-executes itself as a worker in a new
// session and only relays signals to it. Launchers end a job with SIGTERM
// and, a second later, SIGKILL (Open MPI's odls_base_sigkill_timeout); the
// worker, out of the launcher's reach, still gets to snapshot the program's
// stacks, kill it and write its traces. If the launcher kills the first
// process, the worker receives SIGTERM (its parent-death signal) and
// finishes the same way.
func Main(opt Options) (int, error) {
	opt.defaults()
	if opt.Getenv(workerEnv) == "" && len(opt.Args) > 0 {
		return supervise(opt)
	}
	return Run(opt)
}

func supervise(opt Options) (int, error) {
	if err := opt.check(); err != nil {
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
	cmd.Env = append(os.Environ(), workerEnv+"=1", launchEnv+"="+launch)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = opt.Stdin, opt.Stdout, opt.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGTERM}
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
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
		if ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ws.ExitStatus(), nil
	}
	return 1, err
}

// check validates the options before anything runs.
func (o *Options) check() error {
	if o.Dir == "" {
		return errors.New("no output directory: give the run directory with -o DIR")
	}
	if len(o.Command) == 0 {
		return errors.New("no program to record: give it after --, e.g. difftrace capture -o run -- ./app")
	}
	switch o.Backend {
	case "uftrace":
		if _, err := exec.LookPath("uftrace"); err != nil {
			return errors.New("uftrace is not installed or not in PATH: install it (Debian/Ubuntu: apt-get install uftrace) or record with --backend pin")
		}
	case "pin":
		return errors.New("--backend pin: this difftrace has no Pin backend yet; record with --backend uftrace")
	default:
		return fmt.Errorf("--backend %q: want uftrace or pin", o.Backend)
	}
	if o.Timeout < 0 {
		return fmt.Errorf("--timeout %s: want a positive duration such as 60s", o.Timeout)
	}
	_, err := programPath(o.Command[0])
	return err
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
		return "", fmt.Errorf("%s is not an ELF executable (%v): capture records compiled programs; give the program itself, not a script that starts it", p, err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	funcs := 0
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Section != elf.SHN_UNDEF {
			funcs++
		}
	}
	if err != nil || funcs == 0 {
		return "", fmt.Errorf("%s has no symbol table (it was stripped): uftrace can only patch functions it can name; rebuild it without -s and do not strip it", p)
	}
	return p, nil
}

// uftraceArgs is the uftrace command line. -P . patches every function of
// the program at load time (no recompilation); library calls are caught at
// the program's procedure linkage table, and with --nest-libcall at every
// library's. --keep-pid makes the traced program capture's own child, so its
// exit status and pid are first-hand; --no-event drops scheduler events.
func uftraceArgs(opt Options, dataDir, logFile, prog string) []string {
	args := []string{"record", "--keep-pid", "--no-event", "-d", dataDir, "--logfile=" + logFile, "-P", "."}
	if opt.AllImages {
		args = append(args, "--nest-libcall")
	}
	args = append(args, "--", prog)
	return append(args, opt.Command[1:]...)
}

// Run records the program as one rank of a run: it claims the run
// directory, runs the program under the backend, kills it on --timeout or a
// terminating signal (after a stack snapshot), converts the recording into
// ParLOT files and records the rank in run.json.
func Run(opt Options) (int, error) {
	opt.defaults()
	if err := opt.check(); err != nil {
		return 1, err
	}
	prog, _ := programPath(opt.Command[0])
	rank, _, err := RankFromEnv(opt.Getenv)
	if err != nil {
		return 1, err
	}
	host, _ := os.Hostname()
	start := time.Now()
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
	tmpl := decode.Manifest{
		Schema: decode.ManifestSchema, Tool: "difftrace", ToolVersion: opt.ToolVersion,
		Format: "parlot-17", Backend: opt.Backend, Images: images, Prefix: opt.Prefix,
		Command: append([]string{prog}, opt.Command[1:]...), Launch: launch,
	}
	r := decode.Rank{Rank: rank, Host: host, Start: start, Threads: []decode.Thread{}}
	if err := claimRunDir(opt.Dir, tmpl, r, opt.Force); err != nil {
		return 1, err
	}

	work, err := os.MkdirTemp("", fmt.Sprintf("difftrace-uftrace-%d-", rank))
	if err != nil {
		return 1, fmt.Errorf("creating the recorder's work directory: %w", err)
	}
	keepWork := false
	defer func() {
		if !keepWork {
			os.RemoveAll(work)
		}
	}()
	dataDir, logFile := filepath.Join(work, "uftrace.data"), filepath.Join(work, "uftrace.log")

	// Become the subreaper of the program's descendants: uftrace's recorder
	// is the program's child, and must be waited for once the program ends.
	const prSetChildSubreaper = 36
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)

	uft, _ := exec.LookPath("uftrace")
	cmd := exec.Command(uft, uftraceArgs(opt, dataDir, logFile, prog)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = opt.Stdin, opt.Stdout, opt.Stderr
	// Should the recorder itself be killed, the program dies with it
	// instead of hanging on.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	runtime.LockOSThread()
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 1, fmt.Errorf("starting uftrace: %w", err)
	}
	pid := cmd.Process.Pid
	r.PID = pid
	if err := updateRank(opt.Dir, tmpl, r); err != nil {
		logf("%v", err)
	}
	var recorder atomic.Int64
	go func() {
		for i := 0; i < 200 && recorder.Load() == 0; i++ {
			if c := childOf(pid); c > 0 {
				recorder.Store(int64(c))
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()

	var timer <-chan time.Time
	if opt.Timeout > 0 {
		timer = time.After(opt.Timeout)
	}
	var why string
	select {
	case <-done:
	case <-timer:
		why = "timeout"
		r.KilledByTimeout = true
	case s := <-sigs:
		why = s.String()
	}
	var snap *Snapshot
	var notes []string
	if why != "" {
		if c := childOf(pid); c > 0 && recorder.Load() == 0 {
			recorder.Store(int64(c))
		}
		if why == "timeout" {
			logf("--timeout %s expired: taking a stack snapshot, then killing the program", opt.Timeout)
		}
		snap, err = TakeSnapshot(pid, snapshotTimeout)
		if err != nil {
			notes = append(notes, err.Error())
			logf("%v", err)
		}
		syscall.Kill(pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(killGrace):
			syscall.Kill(pid, syscall.SIGKILL)
			<-done
		}
	}
	// From here on, further signals only interrupt nothing: the traces
	// are written whatever happens.
	go func() {
		for range sigs {
		}
	}()
	r.End = time.Now()
	code := 0
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
		switch {
		case ws.Signaled():
			r.Signal = signalName(ws.Signal())
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
	case why != "":
		notes = append([]string{fmt.Sprintf("killed by capture on %s from the launcher", why)}, notes...)
	case r.Signal != "":
		notes = append([]string{"killed by " + r.Signal + " from outside capture (calls it was blocked in are not in its traces)"}, notes...)
	}
	waitRecorder(int(recorder.Load()), recorderWait)

	data, err := decode.OpenUftrace(dataDir)
	if err != nil {
		keepWork = true
		log, _ := os.ReadFile(logFile)
		return 1, fmt.Errorf("uftrace recorded nothing usable (%v)%s; its files are kept in %s", err, logMessages(log), work)
	}
	res, err := ConvertUftrace(data, ConvertOptions{
		Dir: opt.Dir, Prefix: opt.Prefix, Rank: rank, PID: pid, Snapshot: snap, MainImage: prog, AllImages: opt.AllImages,
	})
	if err != nil {
		keepWork = true
		return 1, fmt.Errorf("converting rank %d's recording (kept in %s): %w", rank, dataDir, err)
	}
	r.Threads = res.Threads
	r.Note = strings.Join(append(notes, res.Notes...), "; ")
	if opt.KeepUftrace {
		dst := filepath.Join(opt.Dir, "uftrace."+strconv.Itoa(rank))
		os.RemoveAll(dst)
		if err := os.Rename(dataDir, dst); err != nil {
			if err := copyDir(dataDir, dst); err != nil {
				logf("keeping the uftrace recording: %v", err)
			}
		}
	}
	if err := updateRank(opt.Dir, tmpl, r); err != nil {
		return 1, err
	}
	return code, nil
}

// childOf returns a child process of pid (uftrace's recorder, which is the
// traced program's only child at first), or 0.
func childOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			c, _ := strconv.Atoi(f[0])
			return c
		}
		return 0
	}
	// Kernels without the children file: scan for a process whose parent
	// is pid.
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		c, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(st)
		if i := strings.LastIndexByte(s, ')'); i >= 0 {
			if f := strings.Fields(s[i+1:]); len(f) > 1 && f[1] == strconv.Itoa(pid) {
				return c
			}
		}
	}
	return 0
}

// waitRecorder waits until uftrace's recorder has written its data and
// exited, then reaps any other orphan the program left to capture.
func waitRecorder(pid int, limit time.Duration) {
	if pid > 0 {
		deadline := time.Now().Add(limit)
		for time.Now().Before(deadline) {
			var ws syscall.WaitStatus
			got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			if got == pid || err != nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if got <= 0 || err != nil {
			return
		}
	}
}

// logMessages returns uftrace's error lines from its log, for an error
// message.
func logMessages(log []byte) string {
	var keep []string
	for _, l := range strings.Split(string(log), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.Contains(l, "child terminated") {
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

// signalName returns the conventional name of a signal, e.g. "SIGTERM".
func signalName(s syscall.Signal) string {
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

// copyDir copies a directory tree of regular files (to keep a recording
// when it cannot be renamed across file systems).
func copyDir(src, dst string) error {
	return filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		t := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(t, 0o755)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(t)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}
