// Package interrupt ends a difftrace command cleanly when it is interrupted
// by SIGINT, SIGTERM or SIGHUP: the child processes it started are killed,
// the temporary files it was writing are removed (atomicfile.RemoveTemps),
// and it exits with 128 + the signal's number, as a shell reports a process
// killed by that signal (for SIGINT, it is killed by it: see Exit). It is the one place that does this for every
// command (capture, which forwards signals to the traced program, has its
// own handling).
package interrupt

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/difftrace/difftrace/internal/atomicfile"
)

var state struct {
	sync.Mutex
	children map[*os.Process]bool
	closed   bool
}

// ErrInterrupted is returned by Start once the command is being ended: the
// same error atomicfile.Create returns then, so one errors.Is test serves
// both.
var ErrInterrupted = atomicfile.ErrInterrupted

// Start starts cmd and keeps its process to be killed should the command
// be interrupted; done forgets it (call it once cmd.Wait has returned).
// Starting and keeping happen under one lock, so no child escapes a signal
// that arrives in between.
func Start(cmd *exec.Cmd) (done func(), err error) {
	state.Lock()
	defer state.Unlock()
	if state.closed {
		return func() {}, ErrInterrupted
	}
	if err := cmd.Start(); err != nil {
		return func() {}, err
	}
	p := cmd.Process
	if state.children == nil {
		state.children = map[*os.Process]bool{}
	}
	state.children[p] = true
	return func() {
		state.Lock()
		delete(state.children, p)
		state.Unlock()
	}, nil
}

// Install handles SIGINT, SIGTERM and SIGHUP for the rest of the process:
// on the first of them, Cleanup runs, a line on stderr says what happened,
// and the process exits with 128 + the signal's number.
func Install(stderr io.Writer) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		sig := <-sigs
		n, err := Cleanup()
		msg := fmt.Sprintf("difftrace: interrupted (%v)", sig)
		if n > 0 {
			msg += fmt.Sprintf("; removed %d unfinished output file(s)", n)
		}
		if err != nil {
			msg += fmt.Sprintf("; %v", err)
		}
		fmt.Fprintln(stderr, msg)
		s, ok := sig.(syscall.Signal)
		if !ok {
			s = syscall.SIGINT
		}
		Exit(s)
	}()
}

// Exit ends the process as the signal sig would have: SIGINT is raised
// again with its default action, so that the shell sees a command killed
// by Ctrl-C and stops a loop it runs (bash goes on with a loop whose
// command merely exited 130, taking Ctrl-C to have been handled); any
// other signal, and SIGINT should it not end the process, gives exit
// status 128 + its number.
func Exit(sig syscall.Signal) {
	if sig == syscall.SIGINT {
		signal.Reset(sig)
		syscall.Kill(os.Getpid(), sig)
		time.Sleep(100 * time.Millisecond) // the signal is on its way
	}
	os.Exit(128 + int(sig))
}

// Interrupted reports whether the command is being ended by a signal: its
// handler will exit with the signal's status, and a command that fails
// meanwhile (a child it started was killed) must leave the exit to it
// rather than exit with its own error.
func Interrupted() bool {
	state.Lock()
	defer state.Unlock()
	return state.closed
}

// Cleanup kills the children Start started and removes the temporary
// files of this process; later Starts and atomicfile.Creates fail. It
// returns how many temporary files it removed.
func Cleanup() (int, error) {
	state.Lock()
	state.closed = true
	for p := range state.children {
		p.Kill()
		p.Wait() // reap it: no zombie, no orphan
	}
	state.children = nil
	state.Unlock()
	return atomicfile.RemoveTemps()
}
