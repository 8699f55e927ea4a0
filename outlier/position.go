package outlier

import (
	"fmt"

	"github.com/difftrace/difftrace/trace"
)

// Position is where a trace sits in its program, the places a program's
// roles usually take: the first and the last process (rank 0 reads the
// input and writes the output, gathers results or hands out work; the
// first and the last rank of a line of ranks have one neighbour fewer),
// and the main thread of a process that has others (an OpenMP master, the
// thread that starts the workers). Traces of one position are peers: an
// SPMD program has them do the same thing, so the trace of a position that
// does something none of its peers does is a suspect, and a trace that
// has no peer, or a class of traces of one position, is a role.
type Position struct {
	// Process is "first", "last" or "inner" (of the run's processes);
	// with one process, "only".
	Process string
	// Main is set for thread 0 of a process that has other threads;
	// Threaded for every thread of such a process.
	Main, Threaded bool
}

func (p Position) String() string {
	s := p.Process + " process"
	switch {
	case p.Main:
		s += ", main thread"
	case p.Threaded:
		s += ", worker thread"
	}
	return s
}

// positions returns the position of every trace of ids (ascending).
func positions(ids []trace.ID) []Position {
	threads := map[int]int{}
	first, last := -1, -1
	for _, id := range ids {
		threads[id.Proc]++
		if first < 0 || id.Proc < first {
			first = id.Proc
		}
		last = max(last, id.Proc)
	}
	out := make([]Position, len(ids))
	for i, id := range ids {
		p := &out[i]
		switch {
		case first == last:
			p.Process = "only"
		case id.Proc == first:
			p.Process = "first"
		case id.Proc == last:
			p.Process = "last"
		default:
			p.Process = "inner"
		}
		p.Threaded = threads[id.Proc] > 1
		p.Main = id.Thread == 0 && p.Threaded
	}
	return out
}

// positionName words the positions of a class's traces for a role:
// "rank 0", "the first and the last rank", "main threads".
func positionName(ids []trace.ID, pos []Position) string {
	if len(ids) == 0 {
		return ""
	}
	procs := map[string]bool{}
	mains, workers := 0, 0
	for _, p := range pos {
		procs[p.Process] = true
		if p.Main {
			mains++
		} else {
			workers++
		}
	}
	threaded := mains > 0 || ids[0].Thread > 0
	var where string
	switch {
	case len(procs) == 1 && procs["first"] && len(ids) == 1 && !threaded:
		where = fmt.Sprintf("rank %d, the first", ids[0].Proc)
	case len(procs) == 1 && procs["last"] && len(ids) == 1 && !threaded:
		where = fmt.Sprintf("rank %d, the last", ids[0].Proc)
	case len(procs) == 2 && procs["first"] && procs["last"]:
		where = "the first and the last rank"
	case len(procs) == 1 && procs["first"]:
		where = "the first rank"
	case len(procs) == 1 && procs["last"]:
		where = "the last rank"
	}
	switch {
	case mains == 1 && workers == 0 && where == "":
		return "the main thread"
	case mains > 0 && workers == 0 && where == "":
		return "main threads"
	case mains > 0 && workers == 0:
		return where + ", main thread"
	case mains == 0 && threaded && where == "":
		return "worker threads"
	case mains == 0 && threaded:
		return where + ", worker threads"
	}
	return where
}
