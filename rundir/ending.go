package rundir

import (
	"fmt"
	"syscall"
)

// How a rank ended, in words. Rank.Status holds capture's few words
// (Status makes them); Ended gives the same words for a rank recorded
// before Status existed; Ending says it as the end of a sentence, for a
// rank that did not exit normally.

// Status says in a few words how a rank ended, as Rank.Status records it:
// "exited 0", "exited 3 in MPI_Abort", "signal SIGSEGV in crash_here",
// "killed by the launcher in MPI_Allreduce", "interrupted (SIGINT)",
// "timed out in MPI_Recv". stoppedBy is what made the recorder end the
// program ("timeout", a signal's name, or "" if the program ended by
// itself); in is the call it was in, if known.
func Status(stoppedBy string, r Rank, in string) string {
	where := ""
	if in != "" {
		where = " in " + in
	}
	switch {
	case stoppedBy == "timeout":
		return "timed out" + where
	case stoppedBy == "SIGINT":
		return "interrupted (SIGINT)" + where
	case stoppedBy != "":
		return "killed by the launcher" + where
	case r.Signal != "":
		return "signal " + r.Signal + where
	case r.ExitStatus != 0:
		return fmt.Sprintf("exited %d%s", r.ExitStatus, where)
	}
	return "exited 0"
}

// SetEnd records how the rank's process ended, as its wait status says:
// killed by signal (a signal number), or else exited with status.
func (r *Rank) SetEnd(signal syscall.Signal, status int) {
	if signal != 0 {
		r.Signal = SignalName(signal)
		return
	}
	r.Exited = true
	r.ExitStatus = status
}

// Ended says in Status's words how the rank ended: its Status, or, for a
// manifest written before Status was, "timed out", "signal SIGTERM",
// "exited 3", or "no record of its end" when the recorder never saw it.
func (r *Rank) Ended() string {
	switch {
	case r.Status != "":
		return r.Status
	case r.KilledByTimeout:
		return "timed out"
	case r.Signal != "":
		return "signal " + r.Signal
	case r.Exited:
		return fmt.Sprintf("exited %d", r.ExitStatus)
	}
	return "no record of its end"
}

// Ending says how the rank ended when it did not exit normally: "killed by
// the timeout", "killed by SIGSEGV", "exited with status 3", or "its end
// was not recorded" when the recorder never saw it. It is "" for a rank
// that exited with status 0.
func (r *Rank) Ending() string {
	switch {
	case r.KilledByTimeout:
		return "killed by the timeout"
	case r.Signal != "":
		return "killed by " + r.Signal
	case r.Exited && r.ExitStatus != 0:
		return fmt.Sprintf("exited with status %d", r.ExitStatus)
	case !r.Exited:
		return "its end was not recorded"
	}
	return ""
}
