package uftrace

import (
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Command recovers the traced program and its arguments from the uftrace
// command line saved in the recording.
func (d *Data) Command() []string {
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
func (d *Data) AllImages() bool {
	cl := " " + d.Info["cmdline"] + " "
	return strings.Contains(cl, " --nest-libcall ") || strings.Contains(cl, " -l ")
}

// ProcessInfo is what a recording says of one of its processes.
type ProcessInfo struct {
	Host       string
	Start, End time.Time // zero when the recording does not say
	// Ended is set when the recording says how the process ended: uftrace
	// saves the wait status of the traced program, not of the processes
	// it forked. Then either Signal is the signal that killed it, or it
	// exited with ExitStatus.
	Ended      bool
	Signal     syscall.Signal
	ExitStatus int
}

// Process returns what the recording says of process pid: host, start and
// end, and, for the traced program itself, how it ended.
func (d *Data) Process(pid int) ProcessInfo {
	p := ProcessInfo{Host: d.Info["osinfo:hostname"]}
	if t, err := time.ParseInLocation(time.ANSIC, strings.TrimSpace(d.Info["record_date"]), time.Local); err == nil {
		p.Start = t
		if sec, err := strconv.ParseFloat(strings.Fields(d.Info["elapsed_time"] + " x")[0], 64); err == nil {
			p.End = t.Add(time.Duration(sec * float64(time.Second)))
		}
	}
	ps := d.Processes()
	if st, err := strconv.Atoi(strings.TrimSpace(d.Info["exit_status"])); err == nil && st >= 0 && len(ps) > 0 && pid == ps[0] {
		p.Ended = true
		if sig := st & 0x7f; sig != 0 {
			p.Signal = syscall.Signal(sig)
		} else {
			p.ExitStatus = st >> 8
		}
	}
	return p
}

// SessionAt returns the session process pid was running at time t (the
// last one for ^uint64(0)): its own latest session started by then, else
// its parent's (a fork keeps the parent's program until it calls exec).
func (d *Data) SessionAt(pid int, t uint64) *Session { return d.session(pid, t) }
