package graphviz

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/fogleman/gg"
	"github.com/goccy/go-graphviz/gvc"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gobolditalic"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"

	"github.com/difftrace/difftrace/draw"
)

// rasterizer is the Graphviz render engine behind PNG output. go-graphviz's
// own PNG renderer strokes no lines (edges and box borders go missing) and
// looks fonts up on the host, so pictures would differ between machines;
// this one fills and strokes every shape, and draws text with the Go fonts
// compiled into the binary, shrunk where needed to fit the width Graphviz
// measured, so the same picture comes out byte for byte everywhere.
type rasterizer struct {
	gvc.DefaultRenderEngine
	dc     *gg.Context
	sx, sy float64 // points to pixels
	tx, ty float64 // translation, in points
	faces  map[faceKey]font.Face
	fonts  map[string]*opentype.Font
}

type faceKey struct {
	file string
	size float64
}

func newRasterizer() *rasterizer {
	return &rasterizer{faces: map[faceKey]font.Face{}, fonts: map[string]*opentype.Font{}}
}

func (r *rasterizer) BeginPage(_ context.Context, job *gvc.Job) error {
	w, h := int(job.Width()), int(job.Height())
	if w <= 0 || h <= 0 || w > draw.MaxPixels || h > draw.MaxPixels {
		return fmt.Errorf("a %d×%d pixel picture is too large for PNG; write SVG instead", w, h)
	}
	r.dc = gg.NewContext(w, h)
	r.dc.SetRGB(1, 1, 1)
	r.dc.Clear()
	r.sx, r.sy = job.Scale().X(), job.Scale().Y()
	r.tx, r.ty = job.Translation().X(), job.Translation().Y()
	r.dc.SetLineJoinRound()
	r.dc.SetLineCapRound()
	return nil
}

func (r *rasterizer) EndPage(_ context.Context, job *gvc.Job) error {
	var buf bytes.Buffer
	if err := r.dc.EncodePNG(&buf); err != nil {
		return err
	}
	job.SetOutputData(buf.Bytes())
	job.SetOutputDataPosition(uint(buf.Len()))
	r.dc = nil
	return nil
}

// pt maps a Graphviz point to pixels.
func (r *rasterizer) pt(p *gvc.PointFloat) (float64, float64) {
	return r.sx * (p.X() + r.tx), -r.sy * (p.Y() + r.ty)
}

// setColor sets the drawing colour; it reports false for a transparent one.
func (r *rasterizer) setColor(c *gvc.Color) bool {
	v := c.RGBAUint()
	if v[3] == 0 {
		return false
	}
	r.dc.SetRGBA255(int(v[0]), int(v[1]), int(v[2]), int(v[3]))
	return true
}

func (r *rasterizer) setPen(job *gvc.Job) bool {
	o := job.Object()
	if o.Pen() == gvc.PenNone {
		return false
	}
	w := o.PenWidth() * r.sx
	r.dc.SetLineWidth(w)
	switch o.Pen() {
	case gvc.PenDashed:
		r.dc.SetDash(5*r.sx, 3*r.sx)
	case gvc.PenDotted:
		r.dc.SetDash(1*r.sx, 3*r.sx)
	default:
		r.dc.SetDash()
	}
	return r.setColor(o.PenColor())
}

// paint fills the current path with the fill colour when filled, then
// strokes it with the pen.
func (r *rasterizer) paint(job *gvc.Job, filled bool) {
	if filled && r.setColor(job.Object().FillColor()) {
		r.dc.FillPreserve()
	}
	if r.setPen(job) {
		r.dc.StrokePreserve()
	}
	r.dc.ClearPath()
}

func (r *rasterizer) Polygon(_ context.Context, job *gvc.Job, a []*gvc.PointFloat, filled bool) error {
	if len(a) == 0 {
		return nil
	}
	r.dc.MoveTo(r.pt(a[0]))
	for _, p := range a[1:] {
		r.dc.LineTo(r.pt(p))
	}
	r.dc.ClosePath()
	r.paint(job, filled)
	return nil
}

func (r *rasterizer) Polyline(_ context.Context, job *gvc.Job, a []*gvc.PointFloat) error {
	if len(a) == 0 {
		return nil
	}
	r.dc.MoveTo(r.pt(a[0]))
	for _, p := range a[1:] {
		r.dc.LineTo(r.pt(p))
	}
	r.paint(job, false)
	return nil
}

func (r *rasterizer) BezierCurve(_ context.Context, job *gvc.Job, a []*gvc.PointFloat, filled bool) error {
	if len(a) == 0 {
		return nil
	}
	// go-graphviz reports edge splines as filled; filling an open curve
	// against its chord would thicken the edge where it bends.
	if job.Object().Type() == gvc.EdgeObjectType {
		filled = false
	}
	r.dc.MoveTo(r.pt(a[0]))
	for i := 1; i+2 < len(a); i += 3 {
		x1, y1 := r.pt(a[i])
		x2, y2 := r.pt(a[i+1])
		x3, y3 := r.pt(a[i+2])
		r.dc.CubicTo(x1, y1, x2, y2, x3, y3)
	}
	if filled {
		r.dc.ClosePath()
	}
	r.paint(job, filled)
	return nil
}

func (r *rasterizer) Ellipse(_ context.Context, job *gvc.Job, a []*gvc.PointFloat, filled bool) error {
	if len(a) < 2 {
		return nil
	}
	x, y := r.pt(a[0])
	rx := math.Abs(r.sx * (a[1].X() - a[0].X()))
	ry := math.Abs(r.sy * (a[1].Y() - a[0].Y()))
	r.dc.DrawEllipse(x, y, rx, ry)
	r.paint(job, filled)
	return nil
}

// Graphviz HTML-label font flags.
const (
	fontBold   = 1
	fontItalic = 2
)

func (r *rasterizer) TextSpan(_ context.Context, job *gvc.Job, p *gvc.PointFloat, span *gvc.TextSpan) error {
	text := span.Text()
	if text == "" || !r.setColor(job.Object().PenColor()) {
		return nil
	}
	f := span.Font()
	file := fontFile(f.Name(), f.Flags())
	size := f.Size() * r.sx
	face, err := r.face(file, size)
	if err != nil {
		return err
	}
	// Graphviz sized the box for its own estimate of the text's width;
	// shrink the Go font where it runs wider so the text stays inside.
	want := span.Size().X() * r.sx
	width := float64(font.MeasureString(face, text)) / 64
	if want > 0 && width > want {
		size *= want / width
		if face, err = r.face(file, size); err != nil {
			return err
		}
		width = float64(font.MeasureString(face, text)) / 64
	}
	x, y := r.pt(p)
	switch span.Just() {
	case 'r':
		x -= width
	case 'l':
	default:
		x -= width / 2
	}
	y -= r.sy * (span.YOffsetCenterLine() + span.YOffsetLayout())
	r.dc.SetFontFace(face)
	r.dc.DrawString(text, x, y)
	return nil
}

// fontFile picks one of the Go fonts for a Graphviz font name and flags.
func fontFile(name string, flags uint) string {
	lower := strings.ToLower(name)
	bold := flags&fontBold != 0 || strings.Contains(lower, "bold")
	italic := flags&fontItalic != 0 || strings.Contains(lower, "italic") || strings.Contains(lower, "oblique")
	if strings.Contains(lower, "mono") || strings.Contains(lower, "courier") {
		if bold {
			return "gomonobold"
		}
		return "gomono"
	}
	switch {
	case bold && italic:
		return "gobolditalic"
	case bold:
		return "gobold"
	case italic:
		return "goitalic"
	}
	return "goregular"
}

var fontData = map[string][]byte{
	"goregular":    goregular.TTF,
	"gobold":       gobold.TTF,
	"goitalic":     goitalic.TTF,
	"gobolditalic": gobolditalic.TTF,
	"gomono":       gomono.TTF,
	"gomonobold":   gomonobold.TTF,
}

func (r *rasterizer) face(file string, size float64) (font.Face, error) {
	size = math.Round(size*100) / 100
	if size <= 0 {
		size = 1
	}
	k := faceKey{file, size}
	if f, ok := r.faces[k]; ok {
		return f, nil
	}
	ft, ok := r.fonts[file]
	if !ok {
		var err error
		if ft, err = opentype.Parse(fontData[file]); err != nil {
			return nil, err
		}
		r.fonts[file] = ft
	}
	f, err := opentype.NewFace(ft, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return nil, err
	}
	r.faces[k] = f
	return f, nil
}
