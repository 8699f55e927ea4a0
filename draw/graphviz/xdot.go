package graphviz

import (
	"encoding/json"
	"fmt"
	"image/color"
	"strconv"
	"strings"
)

// layout is the part of Graphviz's JSON output (-Tjson) that the raster
// renderer reads: the graph's bounding box and picture attributes, and the
// drawing operations (xdot) of the graph, its clusters, nodes and edges, in
// points with y going up.
type layout struct {
	BB      string   `json:"bb"`
	Pad     string   `json:"pad"`
	DPI     string   `json:"dpi"`
	Res     string   `json:"resolution"`
	Size    string   `json:"size"`
	Draw    []op     `json:"_draw_"`
	LDraw   []op     `json:"_ldraw_"`
	Objects []object `json:"objects"`
	Edges   []object `json:"edges"`
}

// object is a cluster (it has a bounding box), a node or an edge.
type object struct {
	BB string `json:"bb"`
	opLists
}

// opLists are an object's drawing operations: its shape, head and tail
// arrows, and the labels.
type opLists struct {
	Draw   []op `json:"_draw_"`
	HDraw  []op `json:"_hdraw_"`
	TDraw  []op `json:"_tdraw_"`
	LDraw  []op `json:"_ldraw_"`
	HLDraw []op `json:"_hldraw_"`
	TLDraw []op `json:"_tldraw_"`
}

func (o *opLists) all() [][]op {
	return [][]op{o.Draw, o.HDraw, o.TDraw, o.LDraw, o.HLDraw, o.TLDraw}
}

// op is one xdot drawing operation.
type op struct {
	Op       string       `json:"op"`
	Color    string       `json:"color"`
	Stops    []stop       `json:"stops"`
	Style    string       `json:"style"`
	Size     float64      `json:"size"`
	Face     string       `json:"face"`
	FontChar int          `json:"fontchar"`
	Pt       []float64    `json:"pt"`
	Align    string       `json:"align"`
	Width    float64      `json:"width"`
	Text     string       `json:"text"`
	Rect     []float64    `json:"rect"`
	Points   [][2]float64 `json:"points"`
}

type stop struct {
	Color string `json:"color"`
}

// Graphviz's defaults, in points.
const (
	defaultPad = 4
	defaultDPI = 96
)

// parseLayout reads Graphviz's JSON output.
func parseLayout(js []byte) (*layout, error) {
	var g layout
	if err := json.Unmarshal(js, &g); err != nil {
		return nil, fmt.Errorf("reading Graphviz's layout: %w", err)
	}
	return &g, nil
}

// bounds is the graph's bounding box in points: lower left, upper right.
func (g *layout) bounds() (x0, y0, x1, y1 float64, err error) {
	if _, err := fmt.Sscanf(g.BB, "%g,%g,%g,%g", &x0, &y0, &x1, &y1); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("the layout from Graphviz has no bounding box (bb=%q)", g.BB)
	}
	return x0, y0, x1, y1, nil
}

// pad is the margin Graphviz draws around the graph, in points.
func (g *layout) pad() (x, y float64) {
	x, y, ok := pair(g.Pad)
	if !ok || x < 0 || y < 0 {
		return defaultPad, defaultPad
	}
	return 72 * x, 72 * y
}

// dpi is the resolution the picture is drawn at.
func (g *layout) dpi() float64 {
	for _, s := range []string{g.DPI, g.Res} {
		if v, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && v > 0 {
			return v
		}
	}
	return defaultDPI
}

// size is the graph's size attribute in points (zero when unset) and
// whether it ends with "!" (scale a smaller drawing up to it).
func (g *layout) size() (w, h float64, fill bool) {
	s := strings.TrimSpace(g.Size)
	fill = strings.HasSuffix(s, "!")
	w, h, ok := pair(strings.TrimSuffix(s, "!"))
	if !ok || w <= 0 || h <= 0 {
		return 0, 0, false
	}
	return 72 * w, 72 * h, fill
}

// pair reads "x,y" or a single "x" meaning "x,x".
func pair(s string) (x, y float64, ok bool) {
	a, b, two := strings.Cut(s, ",")
	x, err := strconv.ParseFloat(strings.TrimSpace(a), 64)
	if err != nil {
		return 0, 0, false
	}
	if !two {
		return x, x, true
	}
	y, err = strconv.ParseFloat(strings.TrimSpace(b), 64)
	if err != nil {
		return 0, 0, false
	}
	return x, y, true
}

// parseColor reads an xdot colour: #rrggbb or #rrggbbaa (Graphviz writes
// every colour it resolved in this form), a few names it passes through, or
// a gradient's first stop.
func parseColor(s string, stops []stop) color.Color {
	if s == "" && len(stops) > 0 {
		s = stops[0].Color
	}
	switch strings.ToLower(s) {
	case "black":
		return color.Black
	case "white":
		return color.White
	case "transparent", "none", "invis":
		return color.Transparent
	}
	if strings.HasPrefix(s, "#") && (len(s) == 7 || len(s) == 9) {
		if v, err := strconv.ParseUint(s[1:], 16, 32); err == nil {
			if len(s) == 7 {
				v = v<<8 | 0xff
			}
			return color.NRGBA{R: uint8(v >> 24), G: uint8(v >> 16), B: uint8(v >> 8), A: uint8(v)}
		}
	}
	return color.Black
}
