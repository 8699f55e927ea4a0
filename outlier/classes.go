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
	ctx    *fca.Context
	jsm    *fca.JSM
	n      *compare.NLR
	counts *countCache
	// kinds says, once rows has run, what each trace alone in its class
	// is: a role of its position, a role by its extra work, a deviant
	// (a suspect) or one of many (a position without common behaviour).
	kinds map[int]loneKind
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
	var out []int
	for q := range v.ids {
		if q != o && v.pos[q] == v.pos[o] {
			out = append(out, q)
		}
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
// standing.
func (v *view) lones() []lone {
	var out []lone
	for o := range v.ids {
		if v.classSize(o) != 1 {
			continue
		}
		l := lone{o: o, alone: 1}
		for _, q := range v.peers(o) {
			l.peers++
			if v.classSize(q) == 1 {
				l.alone++
				continue
			}
			for _, m := range v.ctx.Members(v.ctx.Class(q)) {
				if m != q && v.pos[m] == v.pos[o] {
					l.grouped++
					break
				}
			}
		}
		out = append(out, l)
	}
	return out
}

// nearestPeer returns the peer most similar to o that is not alone in its
// class (ties: the nearest process, then the lower ID): the class-mate o
// is compared against.
func (v *view) nearestPeer(o int) (int, bool) {
	best, ok := -1, false
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

// dendrogram clusters the view's classes (distance 1 − JSM) with link,
// each class weighted by its size.
func (v *view) dendrogram(link cluster.Method) (*cluster.Dendrogram, error) {
	k := v.ctx.NumClasses()
	w := make([]int, k)
	for p := range w {
		w[p] = len(v.ctx.Members(p))
	}
	d := make([]float64, 0, k*(k-1)/2)
	for p := range k {
		for q := p + 1; q < k; q++ {
			d = append(d, 1-v.jsm.ClassAt(p, q))
		}
	}
	return cluster.LinkageWeighted(d, w, link)
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
