package compare

import (
	"fmt"
	"strings"

	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// Level is what an object of the analysis is: one thread, or one process
// with its threads merged (the "Top Threads" and "Top Processes" columns of
// seeds/002 Tables 3.6–3.8).
type Level int

const (
	Threads   Level = iota // each trace P.T is an object
	Processes              // each process P is an object
)

func (l Level) String() string {
	if l == Processes {
		return "process"
	}
	return "thread"
}

// ParseLevel reads "thread" or "process".
func ParseLevel(s string) (Level, error) {
	switch strings.ToLower(s) {
	case "thread", "threads":
		return Threads, nil
	case "process", "processes":
		return Processes, nil
	}
	return 0, fmt.Errorf("level %q: want thread or process", s)
}

// Objects returns the objects of level l: the union of the runs' traces, or
// of their processes.
func (c *Comparison) Objects(l Level) []trace.ID {
	if l == Processes {
		return c.Processes()
	}
	return append([]trace.ID(nil), c.IDs...)
}

// objectsOf returns the objects of level l (Objects) and, for each trace of
// the comparison (IDs), the index of the object it belongs to: itself at
// thread level, its process at process level.
func (c *Comparison) objectsOf(l Level) (objs []trace.ID, of []int) {
	objs = c.Objects(l)
	of = make([]int, len(c.IDs))
	o := 0
	for i, id := range c.IDs {
		for objs[o] != id && objs[o] != id.Process() {
			o++
		}
		of[i] = o
	}
	return objs, of
}

// Context returns the formal context of run r at level l under mode m, over
// the objects of the whole comparison (Objects), so the contexts of both runs
// have the same rows: a trace or process missing from run r has no
// attributes there.
//
// A thread's attributes come from its NLR (fca.NewContext). A process's
// attribute set is the union of its threads' attribute sets: a process does
// what any of its threads does. Concatenating the threads' NLRs instead would
// invent pairs across thread boundaries (double attributes) and add up
// frequencies of threads that run independently (actual, log10); the union
// keeps each thread's attributes exactly as the thread level sees them, so a
// thread that changed changes its process. The process context has the
// thread level's mode and attribute names.
//
// The attributes are those of the NLRs with polling quieted, and carry no
// frequency where it is noise (see Polling and NLR.loose).
func (n *NLR) Context(r int, m fca.Mode, l Level) (*fca.Context, error) {
	return n.context(r, m, l, n.loose(m))
}

func (n *NLR) context(r int, m fca.Mode, l Level, loose *fca.Loose) (*fca.Context, error) {
	v := n.analysis()
	// Each trace's NLR is done with once its attributes are taken: those
	// not in the store's cache are expanded into one buffer, which spares
	// the collector a slice per trace of a large run.
	var buf nlr.Sequence
	seq := func(i int) (s nlr.Sequence) {
		s, buf = v.atInto(r, i, buf)
		return s
	}
	tc, err := fca.NewLooseContextFunc(m, n.c.IDs, seq, func(i int) int { return v.name(r, i) }, v.names, loose)
	if err != nil || l == Threads {
		return tc, err
	}
	return n.processContext(tc)
}

// processContext returns the process-level context whose thread-level
// context is tc (see Context): the union of each process's threads'
// attributes, in tc's mode.
func (n *NLR) processContext(tc *fca.Context) (*fca.Context, error) {
	procs, of := n.c.objectsOf(Processes)
	return tc.Union(procs, of)
}
