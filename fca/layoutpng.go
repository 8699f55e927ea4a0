package fca

import (
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"strconv"
	"strings"

	stdfont "golang.org/x/image/font"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
)

// PNG drawing of a Graphviz layout.
//
// go-graphviz v0.2.9 lays graphs out and writes SVG faithfully, but its
// built-in PNG renderer is told that every shape is filled, so outlines and
// edges vanish. drawLayout instead replays the drawing operations that
// Graphviz itself emits (the xdot operations of its JSON output: colours,
// polygons, ellipses, Bézier curves, text) onto a raster canvas. Text is set
// in Liberation Sans, which has the metrics of the Helvetica that Graphviz
// measured labels with.

const layoutDPI = 144 // PNG resolution: 2 pixels per point

// gvLayout is the part of Graphviz's JSON output that drawLayout uses.
type gvLayout struct {
	BB      string     `json:"bb"`
	Draw    []gvOp     `json:"_draw_"`
	LDraw   []gvOp     `json:"_ldraw_"`
	Objects []gvObject `json:"objects"`
	Edges   []gvObject `json:"edges"`
}

type gvObject struct {
	Draw   []gvOp `json:"_draw_"`
	LDraw  []gvOp `json:"_ldraw_"`
	HDraw  []gvOp `json:"_hdraw_"`
	TDraw  []gvOp `json:"_tdraw_"`
	HLDraw []gvOp `json:"_hldraw_"`
	TLDraw []gvOp `json:"_tldraw_"`
}

// gvOp is one xdot operation.
type gvOp struct {
	Op       string       `json:"op"`
	Color    string       `json:"color"`
	Grad     string       `json:"grad"`
	Stops    []gvStop     `json:"stops"`
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

type gvStop struct {
	Color string `json:"color"`
}

// drawLayout writes a PNG of the Graphviz JSON layout js.
func drawLayout(w io.Writer, js []byte) error {
	var g gvLayout
	if err := json.Unmarshal(js, &g); err != nil {
		return fmt.Errorf("graphviz layout: %w", err)
	}
	var x0, y0, x1, y1 float64
	if _, err := fmt.Sscanf(g.BB, "%g,%g,%g,%g", &x0, &y0, &x1, &y1); err != nil {
		return fmt.Errorf("graphviz layout: bounding box %q: %w", g.BB, err)
	}
	const pad = 12 // points of margin, as Graphviz's own pad
	c := vgimg.NewWith(vgimg.UseWH(vg.Length(x1-x0+2*pad), vg.Length(y1-y0+2*pad)), vgimg.UseDPI(layoutDPI), vgimg.UseBackgroundColor(color.White))
	c.Translate(vg.Point{X: vg.Length(pad - x0), Y: vg.Length(pad - y0)})
	d := &opDrawer{c: c, pen: color.Black, fill: color.Black, size: 14}
	d.run(g.Draw)
	d.run(g.LDraw)
	// Edges first, so that nodes cover their ends.
	for _, objs := range [][]gvObject{g.Edges, g.Objects} {
		for _, o := range objs {
			d.reset()
			for _, ops := range [][]gvOp{o.Draw, o.HDraw, o.TDraw, o.LDraw, o.HLDraw, o.TLDraw} {
				d.run(ops)
			}
		}
	}
	_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

// opDrawer holds the graphics state of an xdot operation stream.
type opDrawer struct {
	c         *vgimg.Canvas
	pen, fill color.Color
	width     float64
	dash      []vg.Length
	invisible bool
	size      float64
	bold      bool
	italic    bool
}

// reset restores the state each object's operations start from.
func (d *opDrawer) reset() {
	d.pen, d.fill, d.width, d.dash, d.invisible = color.Black, color.Black, 1, nil, false
	d.size, d.bold, d.italic = 14, false, false
}

func (d *opDrawer) run(ops []gvOp) {
	for _, op := range ops {
		switch op.Op {
		case "c":
			d.pen = gvColor(op.Color, op.Stops)
		case "C":
			d.fill = gvColor(op.Color, op.Stops)
		case "S":
			d.style(op.Style)
		case "F":
			d.size = op.Size
		case "t":
			d.bold, d.italic = op.FontChar&1 != 0, op.FontChar&2 != 0
		case "T":
			d.text(op)
		case "e", "E":
			if len(op.Rect) == 4 {
				d.shape(ellipse(op.Rect[0], op.Rect[1], op.Rect[2], op.Rect[3]), op.Op == "E")
			}
		case "p", "P":
			d.shape(polygon(op.Points), op.Op == "P")
		case "L":
			d.stroke(polyline(op.Points))
		case "b", "B":
			// Graphviz's JSON writer swaps the letters of its text form:
			// there "B" is the filled curve and "b" the plain one.
			d.shape(bezier(op.Points), op.Op == "B")
		}
	}
}

func (d *opDrawer) style(s string) {
	switch {
	case s == "solid":
		d.dash = nil
	case s == "dashed":
		d.dash = []vg.Length{5, 3}
	case s == "dotted":
		d.dash = []vg.Length{1, 3}
	case s == "invis" || s == "invisible":
		d.invisible = true
	case strings.HasPrefix(s, "setlinewidth("):
		if v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(s, "setlinewidth("), ")"), 64); err == nil {
			d.width = v
		}
	}
}

// shape fills the path with the fill colour when filled, then outlines it
// with the pen, as Graphviz's renderers do.
func (d *opDrawer) shape(p vg.Path, filled bool) {
	if d.invisible {
		return
	}
	if filled && visible(d.fill) {
		d.c.SetColor(d.fill)
		d.c.Fill(p)
	}
	d.stroke(p)
}

func (d *opDrawer) stroke(p vg.Path) {
	if d.invisible || !visible(d.pen) {
		return
	}
	d.c.SetColor(d.pen)
	d.c.SetLineWidth(vg.Length(d.width))
	d.c.SetLineDash(d.dash, 0)
	d.c.Stroke(p)
}

func (d *opDrawer) text(op gvOp) {
	if d.invisible || !visible(d.pen) || len(op.Pt) != 2 || op.Text == "" {
		return
	}
	f := font.Font{Typeface: "Liberation", Variant: "Sans"}
	if d.bold {
		f.Weight = stdfont.WeightBold
	}
	if d.italic {
		f.Style = stdfont.StyleItalic
	}
	face := font.DefaultCache.Lookup(f, font.Length(d.size))
	x := op.Pt[0]
	switch op.Align {
	case "c":
		x -= float64(face.Width(op.Text)) / 2
	case "r":
		x -= float64(face.Width(op.Text))
	}
	d.c.SetColor(d.pen)
	d.c.FillString(face, vg.Point{X: vg.Length(x), Y: vg.Length(op.Pt[1])}, op.Text)
}

func polygon(pts [][2]float64) vg.Path {
	p := polyline(pts)
	if len(pts) > 0 {
		p.Close()
	}
	return p
}

func polyline(pts [][2]float64) vg.Path {
	var p vg.Path
	for i, q := range pts {
		pt := vg.Point{X: vg.Length(q[0]), Y: vg.Length(q[1])}
		if i == 0 {
			p.Move(pt)
		} else {
			p.Line(pt)
		}
	}
	return p
}

// bezier is a B-spline of cubic pieces: a start point, then three points per
// piece.
func bezier(pts [][2]float64) vg.Path {
	var p vg.Path
	if len(pts) == 0 {
		return p
	}
	pt := func(q [2]float64) vg.Point { return vg.Point{X: vg.Length(q[0]), Y: vg.Length(q[1])} }
	p.Move(pt(pts[0]))
	for i := 1; i+2 < len(pts); i += 3 {
		p.CubeTo(pt(pts[i]), pt(pts[i+1]), pt(pts[i+2]))
	}
	return p
}

// ellipse approximates the ellipse with centre (x, y) and semi-axes rx, ry
// by four cubic Bézier arcs.
func ellipse(x, y, rx, ry float64) vg.Path {
	const k = 0.5522847498 // 4/3·(√2−1)
	pt := func(a, b float64) vg.Point { return vg.Point{X: vg.Length(a), Y: vg.Length(b)} }
	var p vg.Path
	p.Move(pt(x+rx, y))
	p.CubeTo(pt(x+rx, y+k*ry), pt(x+k*rx, y+ry), pt(x, y+ry))
	p.CubeTo(pt(x-k*rx, y+ry), pt(x-rx, y+k*ry), pt(x-rx, y))
	p.CubeTo(pt(x-rx, y-k*ry), pt(x-k*rx, y-ry), pt(x, y-ry))
	p.CubeTo(pt(x+k*rx, y-ry), pt(x+rx, y-k*ry), pt(x+rx, y))
	p.Close()
	return p
}

// gvColor reads an xdot colour: #rrggbb or #rrggbbaa (the form Graphviz
// writes for colours given in hex), a few names, or a gradient's first stop.
func gvColor(s string, stops []gvStop) color.Color {
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
		v, err := strconv.ParseUint(s[1:], 16, 32)
		if err == nil {
			if len(s) == 7 {
				v = v<<8 | 0xff
			}
			return color.NRGBA{R: uint8(v >> 24), G: uint8(v >> 16), B: uint8(v >> 8), A: uint8(v)}
		}
	}
	return color.Black
}

func visible(c color.Color) bool {
	_, _, _, a := c.RGBA()
	return a != 0
}
