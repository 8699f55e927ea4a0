package report

import (
	"fmt"
	"slices"

	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/trace"
)

// MaxHeatmapSide is the largest matrix a page shows cell for cell; a run
// with more traces is shown by blocks of traces (SummarySide per side).
const (
	MaxHeatmapSide = 512
	SummarySide    = 256
	// samplesPerAxis is how many traces of a block stand for it along
	// each axis when a block is summarised.
	samplesPerAxis = 4
)

// Heatmaps are the similarity matrices of one view, normal, faulty and
// their difference, on one colour scale from 0 to 1 (seeds/002 Fig. 3.4).
type Heatmaps struct {
	Traces int `json:"traces"` // objects (traces) compared
	Side   int `json:"side"`   // cells per side drawn
	// Block is how many traces a cell stands for along each axis: 1 when
	// every pair of traces has its cell.
	Block int `json:"block"`
	// Samples counts the pairs of traces a summarised cell is computed
	// from (0: every pair, exactly).
	Samples int      `json:"samples"`
	Labels  []string `json:"labels"` // one per row (and column): "3.0", or "0.0–15.3" for a block
	// Panels are JSM_normal, JSM_faulty and JSM_D, each Side×Side values
	// row by row.
	Panels [3]Panel `json:"panels"`
	// Marks are the rows (and columns) of the row's suspects.
	Marks []Mark `json:"marks"`
	Note  string `json:"note,omitempty"`
}

// Panel is one matrix of a heatmap figure.
type Panel struct {
	Title  string    `json:"title"`
	Values []float64 `json:"values"`
}

// Mark names a row of a heatmap worth pointing at.
type Mark struct {
	Index int    `json:"index"`
	Label string `json:"label"`
}

// NewHeatmaps returns the heatmaps of JSM_normal (normal), JSM_faulty
// (faulty) and JSM_D = |JSM_faulty − JSM_normal| of the objects ids (both
// matrices' rows), marking the suspects. Up to MaxHeatmapSide objects every
// cell is one pair of objects. With more, the objects are cut in order
// into SummarySide blocks and each cell is a pair of blocks, computed from
// samplesPerAxis² pairs spread evenly through it (a block holding a suspect
// samples the suspect first): their mean for JSM_normal and JSM_faulty,
// their largest value for JSM_D, so that one changed trace still lights its
// block up. Note says so.
func NewHeatmaps(ids []trace.ID, normal, faulty *fca.JSM, suspects []trace.ID) *Heatmaps {
	n := len(ids)
	h := &Heatmaps{Traces: n, Side: n, Block: 1}
	h.Panels = [3]Panel{{Title: "JSM_normal"}, {Title: "JSM_faulty"}, {Title: "JSM_D = |JSM_faulty − JSM_normal|"}}
	index := make(map[trace.ID]int, n)
	for i, id := range ids {
		index[id] = i
	}
	var sus []int // suspects' object indexes, ascending
	for _, s := range suspects {
		if i, ok := index[s]; ok && !slices.Contains(sus, i) {
			sus = append(sus, i)
		}
	}
	slices.Sort(sus)
	if n <= MaxHeatmapSide {
		h.Labels = make([]string, n)
		for i, id := range ids {
			h.Labels[i] = id.String()
		}
		for p := range h.Panels {
			h.Panels[p].Values = make([]float64, n*n)
		}
		for a := range n {
			for b := range n {
				x, y := normal.At(a, b), faulty.At(a, b)
				h.Panels[0].Values[a*n+b] = x
				h.Panels[1].Values[a*n+b] = y
				h.Panels[2].Values[a*n+b] = abs(y - x)
			}
		}
		for _, i := range sus {
			h.Marks = append(h.Marks, Mark{Index: i, Label: ids[i].String()})
		}
		return h
	}

	// Blocks: block i holds objects start[i] … start[i+1]-1.
	side := SummarySide
	h.Side = side
	start := make([]int, side+1)
	for i := range start {
		start[i] = i * n / side
	}
	h.Block = (n + side - 1) / side
	h.Labels = make([]string, side)
	samples := make([][]int, side)
	for i := range side {
		lo, hi := start[i], start[i+1]
		h.Labels[i] = ids[lo].String() + "–" + ids[hi-1].String()
		size := hi - lo
		s := min(samplesPerAxis, size)
		var picks []int
		for _, x := range sus {
			if x >= lo && x < hi && len(picks) < s {
				picks = append(picks, x)
				if len(h.Marks) == 0 || h.Marks[len(h.Marks)-1].Index != i {
					h.Marks = append(h.Marks, Mark{Index: i, Label: ids[x].String()})
				} else {
					h.Marks[len(h.Marks)-1].Label += ", " + ids[x].String()
				}
			}
		}
		for j := 0; len(picks) < s && j < s; j++ {
			x := lo + (2*j+1)*size/(2*s)
			if !slices.Contains(picks, x) {
				picks = append(picks, x)
			}
		}
		samples[i] = picks
	}
	for p := range h.Panels {
		h.Panels[p].Values = make([]float64, side*side)
	}
	h.Samples = samplesPerAxis * samplesPerAxis
	for a := range side {
		for b := range side {
			var sx, sy, dmax float64
			cnt := 0
			for _, x := range samples[a] {
				for _, y := range samples[b] {
					u, v := normal.At(x, y), faulty.At(x, y)
					sx += u
					sy += v
					dmax = max(dmax, abs(v-u))
					cnt++
				}
			}
			h.Panels[0].Values[a*side+b] = sx / float64(cnt)
			h.Panels[1].Values[a*side+b] = sy / float64(cnt)
			h.Panels[2].Values[a*side+b] = dmax
		}
	}
	h.Note = fmt.Sprintf("%s traces are too many to show one cell per pair: the traces are cut, in order, into %d blocks of about %s, and each cell stands for a pair of blocks, "+
		"computed from %d pairs of traces spread through it: their mean in JSM_normal and JSM_faulty, their largest value in JSM_D (so that one changed trace still shows). "+
		"A block that holds a suspect samples it first; the suspects are marked.",
		thousands(n), side, thousands(h.Block), h.Samples)
	return h
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// thousands writes n with commas: 16,384.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
