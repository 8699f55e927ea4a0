package diffnlr

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/difftrace/difftrace/draw"
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
var pictureAbridges = []Abridge{{}, {Context: 2, Changed: 5, Changes: 10}, {Context: 1, Changed: 3, Changes: 6}, {Context: 1, Changed: 2, Changes: 2}}

// Render draws the picture in format f to w. SVG and PNG are laid out by
// Graphviz's dot (see package draw: in this process when draw/graphviz is
// linked, else by the difftrace-draw helper); DOT is the source it lays out.
func (p *Picture) Render(w io.Writer, f draw.Format) error {
	g := p.graph()
	if p.Abridge.withDefaults() == (Abridge{}).withDefaults() {
		for _, a := range pictureAbridges[1:] {
			if g.ranks <= legibleRows {
				break
			}
			q := *p
			q.Abridge = a
			g = q.graph()
		}
	}
	if f == draw.DOT {
		_, err := w.Write(g.dot(nil))
		return err
	}
	var extra []string
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
		extra = []string{
			fmt.Sprintf(`dpi="%g"`, float64(int(dpi))),
			fmt.Sprintf(`size="%g,%g"`, float64(int(limit/float64(int(dpi)))), float64(int(limit/float64(int(dpi))))),
		}
	default:
		return fmt.Errorf("diffnlr: unknown picture format %q (want svg, png or dot)", f)
	}
	src := g.dot(extra)
	out, err := draw.Render(context.Background(), src, draw.Format(f))
	if err != nil {
		return fmt.Errorf("diffnlr: drawing the picture as %s: %w", strings.ToUpper(string(f)), err)
	}
	_, err = w.Write(out)
	return err
}
