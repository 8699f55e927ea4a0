// Package heatmap draws similarity matrices (fca's Jaccard similarity
// matrices, and their differences) as heatmaps like seeds/002 Fig. 3.4,
// with gonum/plot: panels side by side sharing one colour scale, as PNG or
// SVG.
package heatmap

import (
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	picture "github.com/difftrace/difftrace/draw"
	"github.com/difftrace/difftrace/fca"
)

// Heatmap layout, in points.
const (
	hmCell      = 22  // preferred cell size
	hmMinSide   = 180 // data area bounds
	hmMaxSide   = 520
	hmDPI       = 144  // PNG resolution
	hmTickFont  = 8    // tick labels
	hmMaxTicks  = 48   // labels per axis before thinning
	hmMaxAnnot  = 16   // matrices up to this size show their values
	hmBarWidth  = 78   // colour bar column
	hmTitleFont = 12.0 // panel titles
)

// Write draws the panels side by side, sharing one colour scale from
// 0 to 1 shown as a legend on the right, like seeds/002 Fig. 3.4 (with two
// runs: JSM_normal, JSM_faulty and JSM_D). Row 0 is at the top; small
// matrices show their values in the cells. legend names the scale ("" means
// "Jaccard similarity"). Format is PNG or SVG.
func Write(w io.Writer, f picture.Format, legend string, panels ...fca.Panel) error {
	if legend == "" {
		legend = "Jaccard similarity"
	}
	if len(panels) == 0 {
		return fmt.Errorf("heatmap: no matrix to draw")
	}
	nmax := 0
	for i, p := range panels {
		r, c := p.M.Dims()
		if r != c {
			return fmt.Errorf("heatmap: panel %d (%q) is %d×%d; a similarity matrix is square", i, p.Title, r, c)
		}
		if p.Labels != nil && len(p.Labels) != r {
			return fmt.Errorf("heatmap: panel %d (%q) has %d labels for %d rows", i, p.Title, len(p.Labels), r)
		}
		nmax = max(nmax, r)
	}
	side := vg.Length(min(max(float64(nmax*hmCell), hmMinSide), hmMaxSide))

	// Room for the tick labels: the widest label, measured in the tick font.
	tickFont := font.Font{Typeface: "Liberation", Variant: "Sans"}
	face := font.DefaultCache.Lookup(tickFont, hmTickFont)
	labelW := vg.Length(0)
	for _, p := range panels {
		for _, l := range panelLabels(p) {
			labelW = max(labelW, face.Width(l))
		}
	}
	// X labels are turned upright when they would not fit under their
	// column.
	upright := labelW > side/vg.Length(nmax)*0.9
	bottom := vg.Length(face.Extents().Height) + 24
	if upright {
		bottom = labelW + 24
	}
	panelW := side + labelW + 34
	panelH := side + bottom + 28
	width := panelW*vg.Length(len(panels)) + hmBarWidth
	height := panelH

	var cv vg.CanvasWriterTo
	switch f {
	case picture.PNG:
		cv = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(hmDPI))}
	case picture.SVG:
		cv = vgsvg.New(width, height)
	default:
		return fmt.Errorf("heatmap: format %q; want png or svg", f)
	}
	cm := heatColors()
	var data draw.Canvas // the last panel's data area
	for i, p := range panels {
		pl := panelPlot(p, cm, tickFont, upright)
		x0 := panelW * vg.Length(i)
		dc := draw.Canvas{Canvas: cv, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x0, Y: 0},
			Max: vg.Point{X: x0 + panelW, Y: height},
		}}
		// Square cells: trim the panel so that its data area is square.
		da := pl.DataCanvas(dc)
		if d := (da.Max.X - da.Min.X) - (da.Max.Y - da.Min.Y); d > 0 {
			dc.Max.X -= d
		} else {
			dc.Min.Y -= d
		}
		pl.Draw(dc)
		data = pl.DataCanvas(dc)
		frame := draw.LineStyle{Color: color.Gray{Y: 90}, Width: 0.5}
		data.StrokeLines(frame, []vg.Point{data.Min, {X: data.Max.X, Y: data.Min.Y}, data.Max, {X: data.Min.X, Y: data.Max.Y}, data.Min})
	}
	bar := plot.New()
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	bar.HideX()
	bar.Y.Label.Text = legend
	styleAxis(&bar.Y, tickFont)
	bar.Y.Label.TextStyle.Font = tickFont
	bar.Y.Label.TextStyle.Font.Size = 9
	bar.Y.Tick.Marker = plot.ConstantTicks(unitTicks())
	// The bar spans the height of the panels' data area.
	x0 := panelW * vg.Length(len(panels))
	bc := draw.Canvas{Canvas: cv, Rectangle: vg.Rectangle{
		Min: vg.Point{X: x0 + 6, Y: data.Min.Y},
		Max: vg.Point{X: x0 + hmBarWidth - 16, Y: data.Max.Y},
	}}
	bd := bar.DataCanvas(bc)
	bc.Min.Y -= bd.Min.Y - data.Min.Y
	bc.Max.Y += data.Max.Y - bd.Max.Y
	bar.Draw(bc)
	_, err := cv.WriteTo(w)
	return err
}

// heatColors is the colour scale: dark blue through green to yellow
// (viridis control points), brighter for more similar (or, in a difference
// matrix, more changed), readable in grey and by colour-blind readers.
func heatColors() palette.ColorMap {
	var controls []color.Color
	for _, h := range []uint32{0x440154, 0x482878, 0x3e4989, 0x31688e, 0x26828e, 0x1f9e89, 0x35b779, 0x6ece58, 0xb5de2b, 0xfde725} {
		controls = append(controls, color.RGBA{R: uint8(h >> 16), G: uint8(h >> 8), B: uint8(h), A: 255})
	}
	cm, err := moreland.NewLuminance(controls)
	if err != nil {
		panic("heatmap: colour scale: " + err.Error())
	}
	cm.SetMin(0)
	cm.SetMax(1)
	return cm
}

func unitTicks() []plot.Tick {
	var ts []plot.Tick
	for i := 0; i <= 10; i++ {
		v := float64(i) / 10
		t := plot.Tick{Value: v}
		if i%2 == 0 {
			t.Label = strconv.FormatFloat(v, 'f', 1, 64)
		}
		ts = append(ts, t)
	}
	return ts
}

func panelLabels(p fca.Panel) []string {
	if p.Labels != nil {
		return p.Labels
	}
	n, _ := p.M.Dims()
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}

func styleAxis(a *plot.Axis, f font.Font) {
	a.Tick.Label.Font = f
	a.Tick.Label.Font.Size = hmTickFont
	a.Padding = 2
	a.LineStyle.Width = 0
	a.Tick.Length = 3
}

// panelPlot builds the plot of one matrix: cell (r, c) is centred at
// x = c, y = n-1-r so that row 0 is at the top.
func panelPlot(p fca.Panel, cm palette.ColorMap, f font.Font, upright bool) *plot.Plot {
	n, _ := p.M.Dims()
	labels := panelLabels(p)
	pl := plot.New()
	pl.Title.Text = p.Title
	pl.Title.TextStyle.Font = f
	pl.Title.TextStyle.Font.Size = hmTitleFont
	pl.Title.Padding = 6
	pl.X.Min, pl.X.Max = -0.5, float64(n)-0.5
	pl.Y.Min, pl.Y.Max = -0.5, float64(n)-0.5
	styleAxis(&pl.X, f)
	styleAxis(&pl.Y, f)
	if upright {
		pl.X.Tick.Length = 0
		pl.X.Tick.Label.Rotation = math.Pi / 2
		pl.X.Tick.Label.XAlign = draw.XRight
		pl.X.Tick.Label.YAlign = draw.YCenter
	}
	pl.X.Label.Text = "trace"
	pl.Y.Label.Text = "trace"
	pl.X.Label.TextStyle.Font = f
	pl.Y.Label.TextStyle.Font = f
	pl.X.Label.TextStyle.Font.Size = 9
	pl.Y.Label.TextStyle.Font.Size = 9
	step := (n + hmMaxTicks - 1) / hmMaxTicks
	var xt, yt []plot.Tick
	for i := 0; i < n; i++ {
		l := ""
		if i%step == 0 {
			l = labels[i]
		} else if step > 4 {
			continue
		}
		xt = append(xt, plot.Tick{Value: float64(i), Label: l})
		yt = append(yt, plot.Tick{Value: float64(n - 1 - i), Label: l})
	}
	pl.X.Tick.Marker = plot.ConstantTicks(xt)
	pl.Y.Tick.Marker = plot.ConstantTicks(yt)
	pl.Add(&matrixCells{m: p.M, n: n, cm: cm, font: f})
	return pl
}

// matrixCells draws a matrix as coloured cells: as rectangles when they are
// big enough to see, otherwise as an image sampled to the device resolution.
type matrixCells struct {
	m    mat.Matrix
	n    int
	cm   palette.ColorMap
	font font.Font
}

func (mc *matrixCells) color(v float64) color.Color {
	if math.IsNaN(v) {
		return color.Gray{Y: 128}
	}
	c, err := mc.cm.At(min(max(v, 0), 1))
	if err != nil {
		return color.Gray{Y: 128}
	}
	return c
}

// Plot implements plot.Plotter.
func (mc *matrixCells) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := mc.n
	if n == 0 {
		return
	}
	cell := trX(1) - trX(0)
	if cell >= 3 {
		for r := range n {
			for col := range n {
				x0, x1 := trX(float64(col)-0.5), trX(float64(col)+0.5)
				y0, y1 := trY(float64(n-1-r)-0.5), trY(float64(n-1-r)+0.5)
				c.FillPolygon(mc.color(mc.m.At(r, col)), []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
			}
		}
	} else {
		// One image pixel per device pixel (at hmDPI): the cell under it,
		// or the mean of the cells it covers when they are smaller than a
		// pixel, so no row or column is dropped.
		px := max(1, int(math.Ceil(float64(trX(float64(n)-0.5)-trX(-0.5))/72*hmDPI)))
		img := image.NewRGBA(image.Rect(0, 0, px, px))
		for y := range px {
			r0, r1 := y*n/px, max((y+1)*n/px, y*n/px+1)
			for x := range px {
				c0, c1 := x*n/px, max((x+1)*n/px, x*n/px+1)
				sum := 0.0
				for r := r0; r < r1; r++ {
					for col := c0; col < c1; col++ {
						sum += mc.m.At(r, col)
					}
				}
				img.Set(x, y, mc.color(sum/float64((r1-r0)*(c1-c0))))
			}
		}
		c.DrawImage(vg.Rectangle{
			Min: vg.Point{X: trX(-0.5), Y: trY(-0.5)},
			Max: vg.Point{X: trX(float64(n) - 0.5), Y: trY(float64(n) - 0.5)},
		}, img)
	}
	if n > hmMaxAnnot || cell < 18 {
		return
	}
	sty := text.Style{
		Font:    font.From(mc.font, min(9, font.Length(cell)/3)),
		XAlign:  draw.XCenter,
		YAlign:  draw.YCenter,
		Handler: p.TextHandler,
	}
	for r := range n {
		for col := range n {
			v := mc.m.At(r, col)
			sty.Color = color.Black
			if v < 0.6 {
				sty.Color = color.White
			}
			c.FillText(sty, vg.Point{X: trX(float64(col)), Y: trY(float64(n - 1 - r))}, strconv.FormatFloat(v, 'f', 2, 64))
		}
	}
}
