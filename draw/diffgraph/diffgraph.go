// Package diffgraph draws a diffNLR (package diffnlr) as a Graphviz
// picture, like seeds/002 Figs 3.5–3.7: a vertical stem of green boxes for
// the common runs, blue boxes for what only the normal run did on the
// left, red boxes for what only the faulty run did on the right, both
// rejoining the stem at the next common element, a title, and a legend
// with the colour key and the loop bodies. When the faulty trace was cut
// short its last event is marked, so a run that hung shows a stem that
// stops where the faulty process stopped while the normal side goes on to
// MPI_Finalize. A picture of several traces holds one section per trace,
// each under a dark heading.
//
// The DOT source is written with draw/dot; SVG and PNG are laid out by
// Graphviz's dot through package draw (in this process when draw/graphviz
// is linked, else by the difftrace-draw helper).
package diffgraph

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/draw"
	"github.com/difftrace/difftrace/draw/dot"
)

// PNG size limits. A picture is drawn at pngDPI; a tall one gets fewer dots
// per inch (down to minDPI) so that neither side exceeds maxPixels, and
// beyond that the drawing is scaled down to fit (the graph's size
// attribute). Long diffs read better as SVG.
const (
	pngDPI    = 144
	minDPI    = 36
	maxPixels = draw.MaxPixels
	// legibleRows is how many rows a picture drawn with the default
	// abridging may have: about 2,000 pixels at 144 dpi. A longer diff is
	// drawn abridged harder (pictureAbridges) until it fits, or as short as
	// that gets; the text keeps the default.
	legibleRows = 22
)

// pictureAbridges are the ever tighter limits a picture with the default
// abridging tries until it has at most legibleRows rows.
var pictureAbridges = []diffnlr.Abridge{{}, {Context: 2, Changed: 5, Changes: 10}, {Context: 1, Changed: 3, Changes: 6}, {Context: 1, Changed: 2, Changes: 2}}

// Render draws p in format f to w. SVG and PNG are laid out by Graphviz's
// dot (see package draw); DOT is the source it lays out.
func Render(w io.Writer, p *diffnlr.Picture, f draw.Format) error {
	g := layout(p)
	if f == draw.DOT {
		_, err := w.Write(g.dot(nil))
		return err
	}
	var extra []dot.Attr
	switch f {
	case draw.SVG:
	case draw.PNG:
		// Rough size of the drawing in inches: rows of boxes, three columns.
		hi := 1.2 + 0.2*float64(len(p.Legend)) + 0.62*float64(g.ranks)
		wi := 3 * (0.5 + 0.1*float64(g.wide))
		dpi := float64(pngDPI)
		limit := float64(maxPixels - 64)
		dpi = min(dpi, limit/hi, limit/wi)
		dpi = max(dpi, minDPI)
		side := strconv.FormatFloat(float64(int(limit/float64(int(dpi)))), 'g', -1, 64)
		extra = []dot.Attr{
			dot.A("dpi", strconv.FormatFloat(float64(int(dpi)), 'g', -1, 64)),
			dot.A("size", side+","+side),
		}
	default:
		return fmt.Errorf("diffnlr: unknown picture format %q (want svg, png or dot)", f)
	}
	src := g.dot(extra)
	out, err := draw.Render(context.Background(), src, f)
	if err != nil {
		return fmt.Errorf("diffnlr: drawing the picture as %s: %w", strings.ToUpper(string(f)), err)
	}
	_, err = w.Write(out)
	return err
}

// DOT returns the Graphviz source of p, as Render writes it for draw.DOT.
func DOT(p *diffnlr.Picture) []byte { return layout(p).dot(nil) }

// layout lays p out; a long diff with the default abridging is abridged
// harder, in turn, until it has at most legibleRows rows.
func layout(p *diffnlr.Picture) *graph {
	g := build(p)
	if p.Abridge.IsDefault() {
		for _, a := range pictureAbridges[1:] {
			if g.ranks <= legibleRows {
				break
			}
			q := *p
			q.Abridge = a
			g = build(&q)
		}
	}
	return g
}
