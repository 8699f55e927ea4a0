package hang

import (
	"slices"

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
		n := &Node{Frames: frames, Traces: r.traces, List: trace.List(r.traces), Count: len(r.traces), Ended: r.ended, Children: []*Node{}}
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
