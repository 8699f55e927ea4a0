package outlier

import (
	"fmt"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/internal/plural"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// Progress is how far each trace got in the main loop of its position
// (the loop whose iterations make the most calls among the traces of one
// position), and who lags behind its peers: a rank whose time loop ran
// once fewer, a worker that stopped early.
type Progress struct {
	Filter string       `json:"filter"`
	K      int          `json:"k"`
	Groups []LoopGroup  `json:"groups"`
	Lags   []Lag        `json:"lags"`
	Loops  []string     `json:"loops"` // the loops named, defined
	Traces []TraceReach `json:"traces"`
}

// LoopGroup is the traces of one position and their main loops.
type LoopGroup struct {
	Position string     `json:"position"`
	Loop     string     `json:"loop"` // "L0", "L0, L1"; "" when none of them loops
	Traces   []trace.ID `json:"traces"`
	// Usual is the number of iterations most of them reached.
	Usual uint64 `json:"usual"`
}

// TraceReach is how far one trace got: the iterations of its top-level
// loops, its main loop named.
type TraceReach struct {
	Trace      trace.ID `json:"trace"`
	Loop       string   `json:"loop"`
	Iterations uint64   `json:"iterations"`
	Calls      uint64   `json:"calls"`
}

// Lag is a trace whose top-level loops ran fewer iterations than most of
// its peers' did.
type Lag struct {
	Trace      trace.ID `json:"trace"`
	Loop       string   `json:"loop"`
	Iterations uint64   `json:"iterations"`
	Usual      uint64   `json:"usual"`
	Peers      int      `json:"peers"`
}

// Text words a lag: "5 reached 11 loop iterations (in L0), most of its 6
// peers 12".
func (l Lag) Text() string {
	in := ""
	if l.Loop != "" {
		in = " (in " + l.Loop + ")"
	}
	return fmt.Sprintf("%s reached %d loop %s%s, most of its %d peers %d", l.Trace, l.Iterations, plural.Word(l.Iterations, "iteration", "iterations"), in, l.Peers, l.Usual)
}

// progressOf measures progress under the first filter and K of the grid
// (the narrowest: communication, where the grid has it): the iterations
// each trace's loops at its top level ran, the main loop (the one that
// makes most of its calls) named. Traces of one position are peers, and
// one that reached fewer iterations than most of them lags (a rank whose
// time loop ran once fewer, a worker that stopped early). The iterations
// of every top-level loop count, so a rank whose loop changed its body
// for a while (L1^7, L0^9) reached as far as one that did not (L1^16).
func progressOf(c *compare.Comparison, nlrs []*compare.NLR) (*Progress, error) {
	n := nlrs[0]
	pr := &Progress{Filter: n.Filter.Name(), K: n.K}
	pos := positions(c.IDs)
	groups := map[Position][]int{}
	var order []Position
	iters := make([]uint64, len(c.IDs))
	mains := make([]int32, len(c.IDs))
	used := map[int32]bool{}
	for i := range c.IDs {
		seq := n.Seq(0, i)
		main, best := int32(-1), uint64(0)
		for _, e := range seq {
			if !e.IsLoop() {
				continue
			}
			iters[i] += uint64(e.Count)
			if t := uint64(e.Count) * n.Table.BodyCalls(e.Loop); t > best {
				main, best = e.Loop, t
			}
		}
		if main >= 0 {
			// Count the iterations by the calls of the loop's first
			// call: an iteration that changed (a call skipped in it)
			// leaves the loop as two, but is still an iteration.
			if head, per := loopHead(n.Table, main); per > 0 {
				counts := callCounts(n.Table, seq)
				iters[i] = max(iters[i], counts[head]/per)
			}
		}
		mains[i] = main
		if groups[pos[i]] == nil {
			order = append(order, pos[i])
		}
		groups[pos[i]] = append(groups[pos[i]], i)
		tr := TraceReach{Trace: c.IDs[i], Calls: n.Table.Calls(seq), Iterations: iters[i]}
		if main >= 0 {
			used[main] = true
			tr.Loop = fmt.Sprintf("L%d", main)
		}
		pr.Traces = append(pr.Traces, tr)
	}
	for _, p := range order {
		members := groups[p]
		g := LoopGroup{Position: p.String()}
		loops := map[int32]int{}
		count := map[uint64]int{}
		for _, i := range members {
			g.Traces = append(g.Traces, c.IDs[i])
			loops[mains[i]]++
			count[iters[i]]++
		}
		var ls []string
		for l := range loops {
			if l >= 0 {
				ls = append(ls, fmt.Sprintf("L%d", l))
			}
		}
		slices.Sort(ls)
		g.Loop = strings.Join(ls, ", ")
		for it, x := range count {
			if x > count[g.Usual] || x == count[g.Usual] && it > g.Usual {
				g.Usual = it
			}
		}
		pr.Groups = append(pr.Groups, g)
		// Lags count only where most peers agree.
		if g.Loop == "" || len(members) < 3 || 2*count[g.Usual] <= len(members) {
			continue
		}
		for _, i := range members {
			if iters[i] < g.Usual {
				l := ""
				if mains[i] >= 0 {
					l = fmt.Sprintf("L%d", mains[i])
				}
				pr.Lags = append(pr.Lags, Lag{Trace: c.IDs[i], Loop: l, Iterations: iters[i], Usual: g.Usual, Peers: len(members) - 1})
			}
		}
	}
	slices.SortStableFunc(pr.Lags, func(a, b Lag) int {
		fa, fb := float64(a.Iterations)/float64(a.Usual), float64(b.Iterations)/float64(b.Usual)
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return a.Trace.Compare(b.Trace)
	})
	var ids []int32
	for id := range used {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		pr.Loops = append(pr.Loops, defineShort(n.Table, id, n.Names()))
	}
	return pr, nil
}

// loopHead returns the first call of loop id's body and how many times one
// iteration makes it.
func loopHead(t *nlr.Table, id int32) (trace.Symbol, uint64) {
	body := t.Body(id)
	for len(body) > 0 && body[0].IsLoop() {
		body = t.Body(body[0].Loop)
	}
	if len(body) == 0 {
		return 0, 0
	}
	head := body[0].Sym
	return head, callCounts(t, t.Body(id))[head]
}

// defineShort defines a loop by its first calls: "L0 = [MPI_Irecv,
// MPI_Isend, L2^4, …]".
func defineShort(t *nlr.Table, id int32, name func(trace.Symbol) string) string {
	const most = 6
	var parts []string
	for i, e := range t.Body(id) {
		if i == most {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, e.Format(name))
	}
	return fmt.Sprintf("L%d = [%s]", id, strings.Join(parts, ", "))
}
