package hang

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/internal/plural"
	"github.com/difftrace/difftrace/trace"
)

// WaitFor is who waited for whom when capture stopped the run: the MPI
// call each blocked thread was in and the ranks it waited for, as capture's
// MPI wrapper saw them (run.json), and what follows from them.
type WaitFor struct {
	Waits []Wait `json:"waits"`
	// Cycles are ranks that wait for each other, each in the order of
	// its waits (a deadlock).
	Cycles [][]int `json:"cycles"`
}

// Wait is one blocked thread's call and the ranks it waited for.
type Wait struct {
	Trace trace.ID `json:"trace"`
	Call  string   `json:"call"`
	// For are the ranks it waited for: the peers of a point-to-point
	// call or of the requests it waited on; for a collective, the
	// members of its communicator that were not in the same collective.
	For        []int `json:"for"`
	Collective bool  `json:"collective,omitempty"`
	AnySource  bool  `json:"any_source,omitempty"`
}

type rankWait struct {
	id   trace.ID
	w    *decode.Waiting
	rank int
}

// waitFor builds the relation from the manifest, or returns nil if no
// thread's call is known.
func waitFor(m *decode.Manifest) *WaitFor {
	if m == nil {
		return nil
	}
	var all []rankWait
	ranks := []int{}
	for _, r := range m.Ranks {
		ranks = append(ranks, r.Rank)
		for _, t := range r.Threads {
			if t.Waiting != nil {
				all = append(all, rankWait{trace.ID{Proc: r.Rank, Thread: t.Thread}, t.Waiting, r.Rank})
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	// A collective's members that are in the same collective (the same
	// call on the same communicator) have arrived; the others are
	// waited for.
	key := func(w *decode.Waiting) string {
		if w.World {
			return w.Call + " world"
		}
		return w.Call + " " + fmt.Sprint(w.Peers)
	}
	arrived := map[string]map[int]bool{}
	for _, x := range all {
		if x.w.Collective {
			k := key(x.w)
			if arrived[k] == nil {
				arrived[k] = map[int]bool{}
			}
			arrived[k][x.rank] = true
		}
	}
	wf := &WaitFor{Waits: []Wait{}, Cycles: [][]int{}}
	for _, x := range all {
		w := Wait{Trace: x.id, Call: x.w.Call, For: []int{}, Collective: x.w.Collective, AnySource: x.w.AnySource}
		members := x.w.Peers
		if x.w.World {
			members = ranks
		}
		seen := map[int]bool{}
		for _, q := range members {
			if q == x.rank || seen[q] || x.w.Collective && arrived[key(x.w)][q] {
				continue
			}
			seen[q] = true
			w.For = append(w.For, q)
		}
		slices.Sort(w.For)
		wf.Waits = append(wf.Waits, w)
	}
	wf.Cycles = cycles(wf.Waits)
	return wf
}

// cycles finds the strongly connected components of more than one rank in
// the graph of waits (Tarjan's algorithm), each listed from its smallest
// rank along the waits.
func cycles(waits []Wait) [][]int {
	edges := map[int][]int{}
	var nodes []int
	add := func(n int) {
		if _, ok := edges[n]; !ok {
			edges[n] = nil
			nodes = append(nodes, n)
		}
	}
	for _, w := range waits {
		add(w.Trace.Proc)
		for _, q := range w.For {
			add(q)
			edges[w.Trace.Proc] = append(edges[w.Trace.Proc], q)
		}
	}
	slices.Sort(nodes)
	index, low := map[int]int{}, map[int]int{}
	on := map[int]bool{}
	var stack []int
	var out [][]int
	next := 0
	var visit func(v int)
	visit = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		on[v] = true
		for _, u := range edges[v] {
			if _, ok := index[u]; !ok {
				visit(u)
				low[v] = min(low[v], low[u])
			} else if on[u] {
				low[v] = min(low[v], index[u])
			}
		}
		if low[v] == index[v] {
			var comp []int
			for {
				u := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[u] = false
				comp = append(comp, u)
				if u == v {
					break
				}
			}
			if len(comp) > 1 {
				slices.Sort(comp)
				out = append(out, comp)
			}
		}
	}
	for _, v := range nodes {
		if _, ok := index[v]; !ok {
			visit(v)
		}
	}
	slices.SortFunc(out, func(a, b []int) int { return a[0] - b[0] })
	return out
}

// suspects names, from the waits, the ranks that did not do what another
// waits for. Following the point-to-point waits from rank to rank, a chain
// ends either at a rank that is not itself waiting point to point — it
// went on (to a collective, say) without the send or receive its peer
// waits for, or it computes or has ended — or in a cycle of ranks that
// wait for each other (a deadlock of two receives, say). The ranks along
// the chain only wait; the ends are the suspects, ranks that went on
// first.
//
// With the normal run at hand, keptUp says whether a rank made every call
// its normal run makes before it stopped (nil: not known). A rank that
// went on having made every call, its sends among them, left nothing out:
// what its peer waits for was sent as in the normal run, and the two
// calls did not match (a tag, source, size or communicator of one of
// them). The waiting peer is named first then — its receive is the call
// that never completed — and the rank that went on after it, both with
// that reason.
func (wf *WaitFor) suspects(keptUp func(rank int) bool) []Suspect {
	byRank := map[int][]Wait{}
	var p2p []Wait
	for _, w := range wf.Waits {
		byRank[w.Trace.Proc] = append(byRank[w.Trace.Proc], w)
		if !w.Collective {
			p2p = append(p2p, w)
		}
	}
	inP2P := func(r int) bool {
		return slices.ContainsFunc(byRank[r], func(w Wait) bool { return !w.Collective })
	}
	traceOf := func(r int) trace.ID {
		if ws := byRank[r]; len(ws) > 0 {
			return ws[0].Trace
		}
		return trace.ID{Proc: r}
	}
	var out []Suspect
	seen := map[int]bool{}
	// Ranks that went on.
	waiters := map[int][]int{}
	calls := map[int]string{}
	var order []int
	for _, w := range p2p {
		for _, q := range w.For {
			if inP2P(q) {
				continue
			}
			if waiters[q] == nil {
				order = append(order, q)
			}
			waiters[q] = append(waiters[q], w.Trace.Proc)
			calls[q] = w.Call
		}
	}
	for _, q := range order {
		ws := waiters[q]
		slices.Sort(ws)
		ws = slices.Compact(ws)
		own := "is in no MPI call the wrapper knows (it computes, or has ended)"
		if x := byRank[q]; len(x) > 0 {
			own = "went on to " + x[0].Call
			if len(x[0].For) > 0 {
				own += " (waiting there for " + rankList(x[0].For) + ")"
			}
		}
		v := plural.Word(len(ws), "waits", "wait")
		if keptUp != nil && keptUp(q) && len(byRank[q]) > 0 {
			// q did its part: the waits are the calls that never matched.
			for _, w := range ws {
				if seen[w] {
					continue
				}
				seen[w] = true
				out = append(out, Suspect{traceOf(w), fmt.Sprintf("it waits in %s for %s, which made every call its normal run makes before it %s: what it waits for was sent as in the normal run, so its receive and that send did not match (a tag, source, size or communicator of one of them)", calls[q], rankList([]int{q}), own)})
			}
			if !seen[q] {
				seen[q] = true
				out = append(out, Suspect{traceOf(q), fmt.Sprintf("%s %s in %s for it; it made every call its normal run makes before it %s, so its send and the receive %s %s in did not match (a tag, source, size or communicator of one of them)", rankList(ws), v, calls[q], own, rankList(ws), v)})
			}
			continue
		}
		seen[q] = true
		out = append(out, Suspect{traceOf(q), fmt.Sprintf("%s %s in %s for it, but it %s: it left out a send or receive %s %s for", rankList(ws), v, calls[q], own, rankList(ws), v)})
	}
	// Ranks that wait for each other.
	for _, c := range cycles(p2p) {
		for _, r := range c {
			if seen[r] {
				continue
			}
			seen[r] = true
			others := slices.DeleteFunc(slices.Clone(c), func(x int) bool { return x == r })
			out = append(out, Suspect{traceOf(r), fmt.Sprintf("it and %s wait for each other in point-to-point calls (%s): a deadlock", rankList(others), byRank[r][0].Call)})
		}
	}
	return out
}

// Lines says the waits in words, one line each ("ranks 2 and 4 in
// MPI_Waitall for rank 3"), ranks with the same call and the same ranks
// waited for together, then the cycles among them: what the text report
// lists under "who waited for whom", for reports in other forms.
func (wf *WaitFor) Lines() []string { return wf.lines() }

// lines says the waits in words, ranks with the same call and the same
// ranks waited for together.
func (wf *WaitFor) lines() []string {
	type group struct {
		call  string
		for_  []int
		coll  bool
		any   bool
		ranks []int
	}
	var groups []*group
	for _, w := range wf.Waits {
		var g *group
		for _, x := range groups {
			if x.call == w.Call && slices.Equal(x.for_, w.For) && x.any == w.AnySource {
				g = x
			}
		}
		if g == nil {
			g = &group{call: w.Call, for_: w.For, coll: w.Collective, any: w.AnySource}
			groups = append(groups, g)
		}
		g.ranks = append(g.ranks, w.Trace.Proc)
	}
	var out []string
	for _, g := range groups {
		who := rankList(g.ranks)
		var l string
		switch {
		case len(g.for_) == 0 && g.coll:
			l = fmt.Sprintf("%s in %s: every member is in it", who, g.call)
		case len(g.for_) == 0 && g.any:
			l = fmt.Sprintf("%s in %s for any rank", who, g.call)
		case len(g.for_) == 0:
			l = fmt.Sprintf("%s in %s for requests already complete when it was called", who, g.call)
		case g.coll:
			l = fmt.Sprintf("%s in %s for %s, not in it", who, g.call, rankList(g.for_))
		default:
			l = fmt.Sprintf("%s in %s for %s", who, g.call, rankList(g.for_))
		}
		out = append(out, l)
	}
	for _, c := range wf.Cycles {
		parts := make([]string, len(c))
		for i, r := range c {
			parts[i] = strconv.Itoa(r)
		}
		out = append(out, "a cycle of waits: "+strings.Join(parts, ", ")+" wait for each other")
	}
	return out
}

// rankList writes ranks compactly: "3", "1 and 4", "[0-2,5]".
func rankList(r []int) string {
	switch len(r) {
	case 0:
		return "no rank"
	case 1:
		return "rank " + strconv.Itoa(r[0])
	case 2:
		return "ranks " + strconv.Itoa(r[0]) + " and " + strconv.Itoa(r[1])
	}
	ids := make([]trace.ID, len(r))
	for i, x := range r {
		ids[i] = trace.ID{Proc: x}
	}
	return "ranks " + trace.List(ids)
}
