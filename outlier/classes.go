package outlier

import (
	"slices"
	"sync"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/diffnlr"

	"github.com/difftrace/difftrace/cluster"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/trace"
)

// view is one combination of filter, K and attribute mode over the one
// run: its behaviour classes (traces with the same attribute set) and
// their similarities.
type view struct {
	ids    []trace.ID
	pos    []Position
	atPos  map[Position][]int // the objects at each position, increasing
	ctx    *fca.Context
	jsm    *fca.JSM
	n      *compare.NLR
	counts *countCache
	// kinds says, once rows has run, what each trace alone in its class
	// is: a role of its position, a role by its extra work, a deviant
	// (a suspect) or one of many (a position without common behaviour).
	kinds map[int]loneKind
	// nearest holds nearestPeer's answers.
	nearest map[int]int
}

// loneKind is what a trace alone in its class is.
type loneKind int

const (
	positional loneKind = iota // no peer at its position, or a class of its position
	extra                      // does all its peers do and more, from the first iteration
	deviant                    // differs from peers that otherwise behave alike
	scattered                  // one of many traces of its position alone in their class
)

// countCache holds each trace's call counts under one NLR.
type countCache struct {
	mu sync.Mutex
	m  map[int]map[trace.Symbol]uint64
}

// of returns trace i's call counts under n.
func (cc *countCache) of(n *compare.NLR, i int) map[trace.Symbol]uint64 {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if c, ok := cc.m[i]; ok {
		return c
	}
	c := callCounts(n.Table, n.Seq(0, i))
	cc.m[i] = c
	return c
}

// extraWork reports whether trace o makes every call its peer q makes, as
// often, and more, and parts from it in the first iteration of every loop
// around the place, the outermost running as often in both: the extra work a role does in every iteration (a rank
// whose part of the domain holds a source), not a lapse, which starts
// later, skips or repeats something.
func (v *view) extraWork(o, q int) bool {
	co, cq := v.counts.of(v.n, o), v.counts.of(v.n, q)
	more := false
	for s, k := range cq {
		if co[s] < k {
			return false
		}
	}
	for s, k := range co {
		more = more || k > cq[s]
	}
	if !more {
		return false
	}
	f, ok := diffnlr.FirstDifference(v.n.Table, v.n.Seq(0, q), v.n.Seq(0, o))
	if !ok || len(f.Loops) == 0 || len(f.FaultyLoops) == 0 || f.Loops[0].Count != f.FaultyLoops[0].Count {
		// No loop around the place, or one that ran a different number
		// of times: not the same work in every iteration.
		return false
	}
	for _, p := range f.Loops {
		if p.Iteration != 1 {
			return false
		}
	}
	return true
}

// sim is the Jaccard similarity of objects a and b.
func (v *view) sim(a, b int) float64 { return v.jsm.At(a, b) }

// classSize is the number of traces in object o's class.
func (v *view) classSize(o int) int { return len(v.ctx.Members(v.ctx.Class(o))) }

// peers returns the objects at o's position, o excluded.
func (v *view) peers(o int) []int {
	at := v.atPos[v.pos[o]]
	out := make([]int, 0, max(len(at)-1, 0))
	for _, q := range at {
		if q != o {
			out = append(out, q)
		}
	}
	return out
}

// byPosition returns the objects at each position, increasing.
func byPosition(pos []Position) map[Position][]int {
	out := map[Position][]int{}
	for o, p := range pos {
		out[p] = append(out[p], o)
	}
	return out
}

// lone is a trace alone in its class, and what its peers say of it.
type lone struct {
	o int
	// peers at its position; grouped counts those of them that share
	// their class with another peer; alone counts the peers alone in
	// their class, itself included.
	peers, grouped, alone int
}

// deviant says whether the lone trace differs from peers that otherwise
// behave alike: it has peers, most of them fall into classes of two or
// more, and few of them are alone as it is (at most a quarter of the
// position, or one). A lone trace without peers is a role (rank 0, the
// main thread of the only process); a position whose traces are mostly
// alone has no common behaviour to deviate from (a task farm whose
// workers take different numbers of tasks).
func (l lone) deviant() bool {
	n := l.peers + 1
	return l.peers >= 2 && l.grouped >= 2 && 2*l.grouped >= l.peers && l.alone <= max(1, n/4)
}

// lones returns the traces alone in their class, with their peers'
// standing. What a lone trace's peers are is counted once per position:
// how many of its traces are alone in their class, and how many share
// their class with another trace of the position.
func (v *view) lones() []lone {
	type standing struct{ alone, grouped int }
	at := map[Position]standing{}
	for p, objs := range v.atPos {
		here := map[int]int{} // class → its traces at p
		for _, q := range objs {
			here[v.ctx.Class(q)]++
		}
		var st standing
		for _, q := range objs {
			switch {
			case v.classSize(q) == 1:
				st.alone++
			case here[v.ctx.Class(q)] >= 2:
				st.grouped++
			}
		}
		at[p] = st
	}
	var out []lone
	for o := range v.ids {
		if v.classSize(o) != 1 {
			continue
		}
		st := at[v.pos[o]]
		out = append(out, lone{o: o, peers: len(v.atPos[v.pos[o]]) - 1, grouped: st.grouped, alone: st.alone})
	}
	return out
}

// nearestPeer returns the peer most similar to o that is not alone in its
// class (ties: the nearest process, then the lower ID): the class-mate o
// is compared against.
func (v *view) nearestPeer(o int) (int, bool) {
	if q, ok := v.nearest[o]; ok {
		return q, q >= 0
	}
	best, ok := -1, false
	defer func() {
		if v.nearest == nil {
			v.nearest = map[int]int{}
		}
		v.nearest[o] = best
	}()
	for _, q := range v.peers(o) {
		if v.classSize(q) < 2 {
			continue
		}
		if !ok || closer(v, o, q, best) {
			best, ok = q, true
		}
	}
	return best, ok
}

// closer reports whether q is a better class-mate for o than p.
func closer(v *view, o, q, p int) bool {
	sq, sp := v.sim(o, q), v.sim(o, p)
	if sq != sp {
		return sq > sp
	}
	dq, dp := abs(v.ids[q].Proc-v.ids[o].Proc), abs(v.ids[p].Proc-v.ids[o].Proc)
	if dq != dp {
		return dq < dp
	}
	return v.ids[q].Compare(v.ids[p]) < 0
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// leaves returns the view's classes as the leaves of its dendrograms: with
// more than compare.MaxClasses classes, as many representatives, the
// classes of the traces in devs first (each its own leaf, up to the
// bound), the others chosen farthest first, each standing for the classes
// nearest to it, as rank clusters a large run (fca.JSM.Leaves).
func (v *view) leaves(devs []lone) *fca.Leaves {
	first := make([]int, len(devs))
	for i, l := range devs {
		first[i] = v.ctx.Class(l.o)
	}
	return v.jsm.Leaves(compare.MaxClasses, first)
}

// joinHeight returns the height at which class p joins another cluster in
// dg: how far it stands apart from its nearest cluster under dg's
// linkage.
func joinHeight(dg *cluster.Dendrogram, p int) float64 {
	for _, m := range dg.Merges {
		if m.A == p || m.B == p {
			return m.Height
		}
	}
	return 0
}

// classesOf returns the view's classes, largest first (ties: by first
// member).
func (v *view) classesOf() [][]int {
	var out [][]int
	for p := range v.ctx.NumClasses() {
		out = append(out, slices.Clone(v.ctx.Members(p)))
	}
	slices.SortStableFunc(out, func(a, b []int) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return a[0] - b[0]
	})
	return out
}
