package mutation

import (
	"slices"
	"sort"

	"github.com/difftrace/difftrace/trace"
)

// Root is the index of a Tree's root: the thread itself, whose children
// are the calls made outside any other call.
const Root = 0

// Node is one call of a trace, or the root.
type Node struct {
	Sym    trace.Symbol // the function called; trace.Return for the root
	Parent int32        // the caller's node; -1 for the root
	// Index is the node's position among its parent's children.
	Index int32
	// Start is the event that calls it; End the event that returns from
	// it, or -1 when the trace ends inside the call. The root has Start -1
	// and End the number of events.
	Start, End int
	Children   []int32
	// Hash stands for the whole call subtree (the function, and its
	// children's hashes in order, and whether it returned): two calls with
	// the same hash made the same calls.
	Hash uint64
	// Calls counts the calls of the subtree, the node's own included (0 for
	// the root's own).
	Calls int
}

// Tree is the call tree of one thread's trace, with its loops.
type Tree struct {
	Events []trace.Symbol
	Nodes  []Node
	// CallAt maps a call event to its node; -1 at return events.
	CallAt []int32
	// Loops holds, per node, the loops among its children (FindLoops),
	// sorted by first child, then outermost first.
	Loops [][]Loop

	// Polling, if set, says which functions are polling calls, whose
	// repeats difftrace counts as one by design (rank.Polling): Mutate
	// draws no change of how many times they repeat.
	Polling func(trace.Symbol) bool

	// For drawing mutations (sites): the calls that
	// returned by function, the functions in order of first call, and the
	// loops (all, and those inside another loop).
	bySym     map[trace.Symbol][]int32
	syms      []trace.Symbol
	loopSites [][]Loop
}

// NewTree builds the call tree of a trace's events and finds its loops.
// A return that closes no call is ignored; calls still open at the end have
// End -1.
func NewTree(events []trace.Symbol) *Tree {
	t := &Tree{Events: events, CallAt: make([]int32, len(events))}
	t.Nodes = append(t.Nodes, Node{Parent: -1, Start: -1, End: len(events)})
	stack := []int32{Root}
	for i, s := range events {
		t.CallAt[i] = -1
		if s == trace.Return {
			if len(stack) > 1 {
				t.Nodes[stack[len(stack)-1]].End = i
				stack = stack[:len(stack)-1]
			}
			continue
		}
		parent := stack[len(stack)-1]
		id := int32(len(t.Nodes))
		t.Nodes = append(t.Nodes, Node{Sym: s, Parent: parent, Index: int32(len(t.Nodes[parent].Children)), Start: i, End: -1})
		t.Nodes[parent].Children = append(t.Nodes[parent].Children, id)
		t.CallAt[i] = id
		stack = append(stack, id)
	}
	// Children come after their parents: hash in reverse.
	for id := len(t.Nodes) - 1; id >= 0; id-- {
		n := &t.Nodes[id]
		h := mix(0x6d757461, uint64(n.Sym))
		if n.End < 0 {
			h = mix(h, 0x6f70656e) // open: not the same as a call that returned
		}
		calls := 1
		if id == Root {
			calls = 0
		}
		for _, c := range n.Children {
			h = mix(h, t.Nodes[c].Hash)
			calls += t.Nodes[c].Calls
		}
		n.Hash, n.Calls = h, calls
	}
	t.Loops = make([][]Loop, len(t.Nodes))
	for id := range t.Nodes {
		if len(t.Nodes[id].Children) > 1 {
			t.Loops[id] = t.findLoops(int32(id))
		}
	}
	t.sites()
	return t
}

// sites finds what drawing mutations needs: the calls that returned by
// function, and the loops, all and those inside another loop. (Made once,
// so that a Tree can be read by several goroutines.)
func (t *Tree) sites() {
	t.bySym = map[trace.Symbol][]int32{}
	for id := 1; id < len(t.Nodes); id++ {
		n := &t.Nodes[id]
		if n.End < 0 {
			continue
		}
		if _, ok := t.bySym[n.Sym]; !ok {
			t.syms = append(t.syms, n.Sym)
		}
		t.bySym[n.Sym] = append(t.bySym[n.Sym], int32(id))
	}
	t.loopSites = [][]Loop{{}, {}}
	for n, ls := range t.Loops {
		for _, l := range ls {
			if t.Nodes[t.Child(int32(n), l.End()-1)].End < 0 {
				continue
			}
			t.loopSites[0] = append(t.loopSites[0], l)
			if len(t.atRun(int32(n), l.First, &l)) > 0 {
				t.loopSites[1] = append(t.loopSites[1], l)
			}
		}
	}
}

// mix folds x into the hash h (a 64-bit finaliser of splitmix64).
func mix(h, x uint64) uint64 {
	h ^= x + 0x9e3779b97f4a7c15 + h<<6 + h>>2
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// Child returns the i-th child of node n.
func (t *Tree) Child(n int32, i int) int32 { return t.Nodes[n].Children[i] }

// Span returns the events of node n: from its call to its return, or to the
// end of the trace when it did not return.
func (t *Tree) Span(n int32) (from, to int) {
	nd := &t.Nodes[n]
	if n == Root {
		return 0, len(t.Events)
	}
	if nd.End < 0 {
		return nd.Start, len(t.Events)
	}
	return nd.Start, nd.End + 1
}

// childrenSpan returns the events of children [a, b) of node n (b > a).
func (t *Tree) childrenSpan(n int32, a, b int) (from, to int) {
	from, _ = t.Span(t.Child(n, a))
	_, to = t.Span(t.Child(n, b-1))
	return from, to
}

// Stack returns the functions of node n's callers, outermost first (the
// call stack when n is called, without n).
func (t *Tree) Stack(n int32) []trace.Symbol {
	var out []trace.Symbol
	for p := t.Nodes[n].Parent; p > Root; p = t.Nodes[p].Parent {
		out = append(out, t.Nodes[p].Sym)
	}
	slices.Reverse(out)
	return out
}

// path returns the nodes from the root's child down to n.
func (t *Tree) path(n int32) []int32 {
	var out []int32
	for ; n > Root; n = t.Nodes[n].Parent {
		out = append(out, n)
	}
	slices.Reverse(out)
	return out
}

// Loop is a tandem repeat among the children of a node: Count copies of a
// block of Period children, from child First on.
type Loop struct {
	Node   int32
	First  int
	Period int
	Count  int
}

// End returns the child after the loop's last.
func (l Loop) End() int { return l.First + l.Period*l.Count }

// Contains reports whether child c is in the loop.
func (l Loop) Contains(c int) bool { return c >= l.First && c < l.End() }

// Iter is one loop around a point: the loop, and which of its iterations
// (from 1) the point is in.
type Iter struct {
	Loop
	Iteration int
}

// At returns the loops around child c of node n at n's level, outermost
// first, without the loop skip (if any).
func (t *Tree) at(n int32, c int, skip *Loop) []Iter {
	var out []Iter
	for _, l := range t.Loops[n] {
		if l.First > c {
			break
		}
		if l.Contains(c) && (skip == nil || l != *skip) {
			out = append(out, Iter{Loop: l, Iteration: (c-l.First)/l.Period + 1})
		}
	}
	// Outermost first: the longest span first (loops at one level nest).
	sort.SliceStable(out, func(i, j int) bool { return out[i].Period*out[i].Count > out[j].Period*out[j].Count })
	return out
}

// Around returns the loops around the place before child c of node n (c
// may be the number of children: after the last), at every level,
// outermost first.
func (t *Tree) Around(n int32, c int) []Iter {
	var out []Iter
	for _, p := range t.path(n) {
		out = append(out, t.at(t.Nodes[p].Parent, int(t.Nodes[p].Index), nil)...)
	}
	return append(out, t.at(n, c, nil)...)
}

// AroundCall returns the loops around call x, outermost first.
func (t *Tree) AroundCall(x int32) []Iter {
	return t.Around(t.Nodes[x].Parent, int(t.Nodes[x].Index))
}
