package graphviz

import (
	"bytes"
	"image/color"
	"image/png"
	"math"
	"strconv"
	"strings"
	"sync"

	stdfont "golang.org/x/image/font"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/font/liberation"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/difftrace/difftrace/draw"
)

// PNG pictures are drawn in Go from Graphviz's own drawing operations.
//
// go-graphviz v0.2.9's PNG renderer is told that every shape is filled, so
// outlines and edges vanish, and it finds fonts on the host, so pictures
// would differ between machines. rasterize instead replays the operations
// Graphviz emits with its layout (the xdot operations of its JSON output:
// colours, line styles, polygons, ellipses, Bézier curves, text of plain and
// HTML-like labels alike) on a gonum/plot raster canvas.
//
// Text is set in the Liberation fonts compiled into the binary (from
// gonum/plot): Liberation Sans has the metrics of Helvetica and Arial,
// Liberation Serif of Times, Liberation Mono of Courier, which are the
// metrics Graphviz sized every label with. Where a string still comes out
// wider than the width Graphviz measured, it is set smaller to fit its box.
// So the same graph gives the same picture, byte for byte, on every machine.

// rasterize draws Graphviz's JSON layout js as a PNG: at the graph's dpi
// (96 by default, as Graphviz), scaled down to its size attribute if it is
// larger (up, with "size=…!"), and scaled down further if a side would
// exceed draw.MaxPixels.
func rasterize(js []byte) ([]byte, error) {
	g, err := parseLayout(js)
	if err != nil {
		return nil, err
	}
	x0, y0, x1, y1, err := g.bounds()
	if err != nil {
		return nil, err
	}
	px, py := g.pad()
	x0, y0, x1, y1 = x0-px, y0-py, x1+px, y1+py
	w, h := x1-x0, y1-y0
	zoom := 1.0
	if sw, sh, fill := g.size(); sw > 0 && (sw < w || sh < h || fill && sw > w && sh > h) {
		zoom = min(sw/w, sh/h)
	}
	scale := zoom * g.dpi() / 72 // pixels per point
	if m := max(w, h) * scale; m > draw.MaxPixels {
		scale *= draw.MaxPixels / m
	}
	wp := min(max(1, math.Round(w*scale)), draw.MaxPixels)
	hp := min(max(1, math.Round(h*scale)), draw.MaxPixels)

	// One canvas unit is one pixel (72 dpi); the drawer scales points.
	c := vgimg.NewWith(vgimg.UseWH(vg.Length(wp), vg.Length(hp)), vgimg.UseDPI(72), vgimg.UseBackgroundColor(color.White))
	d := &drawer{c: c, scale: scale, x0: x0, y0: y0}
	d.run(g.Draw)
	d.run(g.LDraw)
	// Clusters, then nodes, then edges, whose arrowheads end on the nodes'
	// outlines: the order Graphviz draws in.
	for _, o := range g.Objects {
		if o.BB != "" {
			d.runAll(&o.opLists)
		}
	}
	for _, o := range g.Objects {
		if o.BB == "" {
			d.runAll(&o.opLists)
		}
	}
	for _, e := range g.Edges {
		d.runAll(&e.opLists)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, c.Image()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// drawer replays xdot operations on a canvas, holding their graphics state.
type drawer struct {
	c      *vgimg.Canvas
	scale  float64 // pixels per point
	x0, y0 float64 // the picture's lower left corner, in points

	pen, fill color.Color
	width     float64   // line width, points
	dash      []float64 // dash pattern, points
	invisible bool
	face      string  // Graphviz font name
	size      float64 // font size, points
	flags     int     // HTML-like label font flags (bold, italic, …)
}

// Graphviz's font flags for text in HTML-like labels.
const (
	fontBold   = 1
	fontItalic = 2
)

func (d *drawer) runAll(o *opLists) {
	for _, ops := range o.all() {
		d.run(ops)
	}
}

// run draws one list of operations. Each list starts from Graphviz's
// default state, as its xdot writer assumes.
func (d *drawer) run(ops []op) {
	d.pen, d.fill, d.width, d.dash, d.invisible = color.Black, color.Black, 1, nil, false
	d.face, d.size, d.flags = "Times-Roman", 14, 0
	for _, o := range ops {
		switch o.Op {
		case "c":
			d.pen = parseColor(o.Color, o.Stops)
		case "C":
			d.fill = parseColor(o.Color, o.Stops)
		case "S":
			d.style(o.Style)
		case "F":
			d.face, d.size = o.Face, o.Size
		case "t":
			d.flags = o.FontChar
		case "T":
			d.text(o)
		case "e", "E":
			if len(o.Rect) == 4 {
				d.shape(d.ellipse(o.Rect[0], o.Rect[1], o.Rect[2], o.Rect[3]), o.Op == "E")
			}
		case "p", "P":
			p := d.polyline(o.Points)
			if len(o.Points) > 0 {
				p.Close()
			}
			d.shape(p, o.Op == "P")
		case "L":
			d.stroke(d.polyline(o.Points))
		case "b", "B":
			// Graphviz's JSON writer swaps the letters of the xdot text
			// form: here "B" is the filled curve and "b" the plain one.
			d.shape(d.bezier(o.Points), o.Op == "B")
		}
	}
}

func (d *drawer) style(s string) {
	switch {
	case s == "solid":
		d.dash = nil
	case s == "dashed": // the patterns of Graphviz's SVG
		d.dash = []float64{5, 2}
	case s == "dotted":
		d.dash = []float64{1, 5}
	case s == "bold":
		d.width = 2
	case s == "invis" || s == "invisible":
		d.invisible = true
	case strings.HasPrefix(s, "setlinewidth("):
		if v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(s, "setlinewidth("), ")"), 64); err == nil && v >= 0 {
			d.width = v
		}
	}
}

// pt maps a point of the layout to the canvas.
func (d *drawer) pt(x, y float64) vg.Point {
	return vg.Point{X: vg.Length((x - d.x0) * d.scale), Y: vg.Length((y - d.y0) * d.scale)}
}

func (d *drawer) polyline(pts [][2]float64) vg.Path {
	var p vg.Path
	for i, q := range pts {
		if i == 0 {
			p.Move(d.pt(q[0], q[1]))
		} else {
			p.Line(d.pt(q[0], q[1]))
		}
	}
	return p
}

// bezier is a B-spline of cubic pieces: a start point, then three points
// per piece.
func (d *drawer) bezier(pts [][2]float64) vg.Path {
	var p vg.Path
	if len(pts) == 0 {
		return p
	}
	p.Move(d.pt(pts[0][0], pts[0][1]))
	for i := 1; i+2 < len(pts); i += 3 {
		p.CubeTo(d.pt(pts[i][0], pts[i][1]), d.pt(pts[i+1][0], pts[i+1][1]), d.pt(pts[i+2][0], pts[i+2][1]))
	}
	return p
}

// ellipse approximates the ellipse of centre (x, y) and semi-axes rx, ry by
// four cubic Bézier arcs.
func (d *drawer) ellipse(x, y, rx, ry float64) vg.Path {
	const k = 0.5522847498 // 4/3·(√2−1)
	var p vg.Path
	p.Move(d.pt(x+rx, y))
	p.CubeTo(d.pt(x+rx, y+k*ry), d.pt(x+k*rx, y+ry), d.pt(x, y+ry))
	p.CubeTo(d.pt(x-k*rx, y+ry), d.pt(x-rx, y+k*ry), d.pt(x-rx, y))
	p.CubeTo(d.pt(x-rx, y-k*ry), d.pt(x-k*rx, y-ry), d.pt(x, y-ry))
	p.CubeTo(d.pt(x+k*rx, y-ry), d.pt(x+rx, y-k*ry), d.pt(x+rx, y))
	p.Close()
	return p
}

// shape fills the path with the fill colour when filled, then outlines it
// with the pen, as Graphviz's renderers do.
func (d *drawer) shape(p vg.Path, filled bool) {
	if d.invisible || len(p) == 0 {
		return
	}
	if filled && visible(d.fill) {
		d.c.SetColor(d.fill)
		d.c.Fill(p)
	}
	d.stroke(p)
}

func (d *drawer) stroke(p vg.Path) {
	if d.invisible || len(p) == 0 || !visible(d.pen) || d.width <= 0 {
		return
	}
	d.c.SetColor(d.pen)
	d.c.SetLineWidth(vg.Length(d.width * d.scale))
	var dash []vg.Length
	for _, v := range d.dash {
		dash = append(dash, vg.Length(v*d.scale))
	}
	d.c.SetLineDash(dash, 0)
	d.c.Stroke(p)
}

// text sets a string at its baseline point, aligned left, centred or right
// as Graphviz placed it, and no wider than Graphviz measured it.
func (d *drawer) text(o op) {
	if d.invisible || !visible(d.pen) || len(o.Pt) != 2 || o.Text == "" || d.size <= 0 {
		return
	}
	f := fontOf(d.face, d.flags)
	size := d.size * d.scale
	face := fonts().Lookup(f, font.Length(size))
	width := float64(face.Width(o.Text))
	if want := o.Width * d.scale; want > 0 && width > want {
		size *= want / width
		face = fonts().Lookup(f, font.Length(size))
		width = float64(face.Width(o.Text))
	}
	p := d.pt(o.Pt[0], o.Pt[1])
	switch o.Align {
	case "c":
		p.X -= vg.Length(width / 2)
	case "r":
		p.X -= vg.Length(width)
	}
	d.c.SetColor(d.pen)
	d.c.FillString(face, p, o.Text)
}

// fonts are the Liberation fonts, parsed once.
var fonts = sync.OnceValue(func() *font.Cache { return font.NewCache(liberation.Collection()) })

// fontOf picks the Liberation font with the metrics of a Graphviz font
// name: Mono for Courier and other monospaced names, Serif for Times (the
// default) and other serif names, Sans for the rest (Helvetica, Arial, …).
func fontOf(name string, flags int) font.Font {
	lower := strings.ToLower(name)
	f := font.Font{Typeface: "Liberation", Variant: "Sans"}
	switch {
	case strings.Contains(lower, "mono") || strings.Contains(lower, "courier") || strings.Contains(lower, "consol"):
		f.Variant = "Mono"
	case strings.Contains(lower, "sans") || strings.Contains(lower, "helvetica") || strings.Contains(lower, "arial"):
	case strings.Contains(lower, "times") || strings.Contains(lower, "serif") || strings.Contains(lower, "roman") ||
		strings.Contains(lower, "georgia") || strings.Contains(lower, "palatino") || strings.Contains(lower, "bookman") ||
		strings.Contains(lower, "schoolbook"):
		f.Variant = "Serif"
	}
	if flags&fontBold != 0 || strings.Contains(lower, "bold") {
		f.Weight = stdfont.WeightBold
	}
	if flags&fontItalic != 0 || strings.Contains(lower, "italic") || strings.Contains(lower, "oblique") {
		f.Style = stdfont.StyleItalic
	}
	return f
}

func visible(c color.Color) bool {
	_, _, _, a := c.RGBA()
	return a != 0
}
