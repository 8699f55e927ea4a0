package hang

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/draw"
	"github.com/difftrace/difftrace/trace"
)

// Node is a node of the call-prefix tree of where traces ended (as STAT
// draws it): the traces whose end stack passes through Frame below its
// parent's. A chain of frames that every trace of a node passes through is
// one node (Frames), so the tree shows only where traces part.
type Node struct {
	Frames []string   `json:"frames"` // outermost first; empty for the root
	Traces []trace.ID `json:"-"`
	// List names Traces compactly: "[0-1,3-5]" for the main threads of
	// ranks, "[0-7].0, 2.[1-3]" otherwise.
	List  string `json:"traces"`
	Count int    `json:"count"`
	// Ended counts the traces whose stack ends at this node's last frame.
	Ended    int     `json:"ended"`
	Children []*Node `json:"children"`
}

// buildTree groups the end stacks (one per trace, outermost first) into a
// prefix tree and merges chains.
func buildTree(ids []trace.ID, stacks [][]string) *Node {
	type raw struct {
		frame    string
		traces   []trace.ID
		ended    int
		children []*raw
	}
	root := &raw{}
	for i, st := range stacks {
		n := root
		n.traces = append(n.traces, ids[i])
		for _, f := range st {
			var c *raw
			for _, k := range n.children {
				if k.frame == f {
					c = k
					break
				}
			}
			if c == nil {
				c = &raw{frame: f}
				n.children = append(n.children, c)
			}
			c.traces = append(c.traces, ids[i])
			n = c
		}
		n.ended++
	}
	var conv func(r *raw, frames []string) *Node
	conv = func(r *raw, frames []string) *Node {
		// Merge r with its only child while nothing ends at r and the
		// child holds every trace of r.
		for r.ended == 0 && len(r.children) == 1 && len(r.children[0].traces) == len(r.traces) && r.frame != "" {
			r = r.children[0]
			frames = append(frames, r.frame)
		}
		n := &Node{Frames: frames, Traces: r.traces, List: List(r.traces), Count: len(r.traces), Ended: r.ended, Children: []*Node{}}
		kids := slices.Clone(r.children)
		// Larger classes first, then by their first trace.
		slices.SortStableFunc(kids, func(a, b *raw) int { return len(b.traces) - len(a.traces) })
		for _, k := range kids {
			n.Children = append(n.Children, conv(k, []string{k.frame}))
		}
		return n
	}
	return conv(root, nil)
}

// Leaves returns the classes: the nodes at which traces end, larger first.
func (n *Node) Leaves() []*Node {
	var out []*Node
	var walk func(n *Node)
	walk = func(n *Node) {
		if n.Ended > 0 {
			out = append(out, n)
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(n)
	slices.SortStableFunc(out, func(a, b *Node) int { return b.Ended - a.Ended })
	return out
}

// Dot is the classes' tree as Graphviz source, for draw.Render.
func (rep *Report) Dot() []byte {
	if rep.Classes == nil {
		return []byte("digraph hang {\n\tn0 [shape=box, label=" + draw.Quote(rep.Ended) + "];\n}\n")
	}
	return rep.Classes.dot()
}

// Draw draws the classes' tree in format f: the Graphviz source for DOT,
// else as draw.Render lays it out.
func (rep *Report) Draw(f draw.Format) ([]byte, error) {
	if f == draw.DOT {
		return rep.Dot(), nil
	}
	return draw.Render(context.Background(), rep.Dot(), f)
}

// dot writes the tree as a Graphviz graph, one box per node with its
// frames and its traces, edges labelled with how many traces they carry.
func (n *Node) dot() []byte {
	var b strings.Builder
	b.WriteString("digraph hang {\n\tgraph [rankdir=TB, fontname=\"Helvetica\"];\n\tnode [shape=box, style=\"rounded,filled\", fillcolor=\"#eef3fb\", color=\"#4a6fa5\", fontname=\"Helvetica\", fontsize=11];\n\tedge [color=\"#4a6fa5\", fontname=\"Helvetica\", fontsize=10];\n")
	id := 0
	var walk func(n *Node) int
	walk = func(n *Node) int {
		me := id
		id++
		label := strings.Join(n.Frames, "\n")
		if label == "" {
			label = "all traces"
		}
		fill := ""
		if n.Ended > 0 {
			fill = `, fillcolor="#fde2e1", color="#b3261e"`
		}
		fmt.Fprintf(&b, "\tn%d [label=%s%s];\n", me, draw.Quote(label+"\n"+n.List), fill)
		for _, c := range n.Children {
			k := walk(c)
			fmt.Fprintf(&b, "\tn%d -> n%d [label=%q];\n", me, k, strconv.Itoa(c.Count))
		}
		return me
	}
	walk(n)
	b.WriteString("}\n")
	return []byte(b.String())
}

// List names traces compactly: when all are main threads (thread 0),
// their processes as ranges, "[0-1,3-5]"; otherwise each process's
// threads, "0.[0-4], 3.[1,3]", consecutive processes with the same threads
// together, "[0-1023].[0-3]".
func List(ids []trace.ID) string {
	ids = slices.Clone(ids)
	slices.SortFunc(ids, func(a, b trace.ID) int {
		if a.Proc != b.Proc {
			return a.Proc - b.Proc
		}
		return a.Thread - b.Thread
	})
	mains := true
	for _, id := range ids {
		if id.Thread != 0 {
			mains = false
		}
	}
	if mains {
		procs := make([]int, len(ids))
		for i, id := range ids {
			procs[i] = id.Proc
		}
		return "[" + ranges(procs) + "]"
	}
	// Each process's threads, then runs of consecutive processes with the
	// same threads as one: "[0-1023].[0-3]".
	var procs []int
	var sets []string
	for i := 0; i < len(ids); {
		j := i
		var ths []int
		for j < len(ids) && ids[j].Proc == ids[i].Proc {
			ths = append(ths, ids[j].Thread)
			j++
		}
		set := strconv.Itoa(ths[0])
		if len(ths) > 1 {
			set = "[" + ranges(ths) + "]"
		}
		procs, sets = append(procs, ids[i].Proc), append(sets, set)
		i = j
	}
	var parts []string
	for i := 0; i < len(procs); {
		j := i
		for j+1 < len(procs) && procs[j+1] == procs[j]+1 && sets[j+1] == sets[i] {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprintf("%d.%s", procs[i], sets[i]))
		} else {
			parts = append(parts, fmt.Sprintf("[%d-%d].%s", procs[i], procs[j], sets[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// ranges writes ascending distinct integers as "0-1,3-5,9".
func ranges(xs []int) string {
	var parts []string
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(xs[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", xs[i], xs[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
