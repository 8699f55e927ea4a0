package rank

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
// thread that changed changes its process. (The process context reports
// the mode sing.noFreq: its attributes are the thread level's, named as
// there.)
func (n *NLR) Context(r int, m fca.Mode, l Level) (*fca.Context, error) {
	tc, err := fca.NewContext(m, n.c.IDs, n.Seqs[r], n.Names())
	if err != nil || l == Threads {
		return tc, err
	}
	return n.processContext(tc)
}

// processContext returns the process-level context whose thread-level
// context is tc (see Context).
func (n *NLR) processContext(tc *fca.Context) (*fca.Context, error) {
	c := n.c
	// Process level: a context of sing.noFreq over made-up symbols, one per
	// thread-level attribute (symbol a+1 stands for attribute a), whose
	// sequence for process P lists the union of its threads' attributes.
	// Under sing.noFreq each entry is exactly one attribute, so the process
	// context has those sets and the thread level's attribute names.
	procs, of := c.objectsOf(Processes)
	pseqs := make([]nlr.Sequence, len(procs))
	var seen []bool
	for i, p := range of {
		if i == 0 || p != of[i-1] {
			seen = make([]bool, tc.NumAttrs())
		}
		for _, a := range tc.Attrs(i) {
			if !seen[a] {
				seen[a] = true
				pseqs[p] = append(pseqs[p], nlr.Element{Loop: nlr.NoLoop, Sym: trace.Symbol(a + 1)})
			}
		}
	}
	attrName := func(s trace.Symbol) string { return tc.AttrName(int(s) - 1) }
	return fca.NewContext(fca.Mode{Freq: fca.NoFreq}, procs, pseqs, attrName)
}
