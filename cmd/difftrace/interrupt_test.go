package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// children returns the pids of the processes whose parent is pid.
func children(pid int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so read after ")".
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

// temps lists the temporary files of outputs in dir.
func temps(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, ".*.tmp*"))
	return m
}

// Every command that writes files, interrupted while it works (by SIGINT,
// SIGTERM or SIGHUP, in turn), exits with 128 + the signal's number and
// leaves no temporary file and no child process; the files it had not
// finished are not there, and the next run of the same command writes them
// whole.
func TestInterruptedCommandsLeaveNothing(t *testing.T) {
	big := absRun(t, "ilcs-dlbug") // 15 million events
	normal, faulty := absRun(t, "ilcs-normal"), absRun(t, "ilcs-dlbug")
	sn, sf := absRun(t, "stencil-normal"), absRun(t, "stencil-skipbug")
	sigs := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}
	for i, c := range []struct {
		name  string
		args  []string
		child bool // interrupt while the drawing helper runs
	}{
		{"decode", []string{"decode", big, "-o", "out.txt"}, false},
		{"filter", []string{"filter", big, "--filter", "all", "-o", "out.txt"}, false},
		{"stats", []string{"stats", big, "--edges", "-o", "out.txt"}, false},
		{"nlr", []string{"nlr", normal, faulty, "--filter", "all", "--k", "40", "-o", "out.txt"}, false},
		{"rank", []string{"rank", normal, faulty, "--k", "10,40", "-o", "out.txt"}, false},
		{"diffnlr", []string{"diffnlr", "3", "--normal", sn, "--faulty", sf, "--filter", "all", "--full", "-o", "out.svg"}, true},
	} {
		sig := sigs[i%len(sigs)]
		t.Run(c.name+"/"+sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(difftraceBin, c.args...)
			cmd.Dir = dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			// Wait until it writes (a temporary file), or for the drawing
			// helper, then interrupt.
			var kids []int
			deadline := time.Now().Add(60 * time.Second)
			var err error
			finished := false
			for time.Now().Before(deadline) && !finished {
				select {
				case err = <-exited:
					finished = true
					continue
				default:
				}
				if c.child {
					kids = children(cmd.Process.Pid)
					if len(kids) > 0 {
						break
					}
				} else if len(temps(dir)) > 0 {
					break
				}
				time.Sleep(time.Millisecond)
			}
			if finished {
				t.Fatalf("it finished (%v) before it wrote anything there was time to interrupt; stderr: %s", err, stderr.String())
			}
			if c.child && len(kids) == 0 {
				t.Fatalf("the drawing helper never started; stderr: %s", stderr.String())
			}
			cmd.Process.Signal(sig)
			err = <-exited
			if got := shellStatus(err); got != 128+int(sig) {
				t.Errorf("exit %v, want status %d; stderr: %s", err, 128+int(sig), stderr.String())
			}
			if ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus); sig == syscall.SIGINT && !ws.Signaled() {
				t.Errorf("exited %v after SIGINT, not killed by it: bash would go on with a loop of such commands", err)
			}
			if left := temps(dir); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
			if _, err := os.Stat(filepath.Join(dir, c.args[len(c.args)-1])); err == nil {
				t.Errorf("the unfinished output %s is there", c.args[len(c.args)-1])
			}
			for _, k := range kids {
				if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(k))); err == nil {
					t.Errorf("child process %d is still there", k)
				}
			}
			if !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("stderr does not say it was interrupted: %q", stderr.String())
			}
		})
	}
}

// shellStatus is the status a shell reports for a command that ended with
// err: its exit status, or 128 + the signal that killed it.
func shellStatus(err error) int {
	ee, ok := err.(*exec.ExitError)
	if !ok {
		if err == nil {
			return 0
		}
		return -1
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
}
