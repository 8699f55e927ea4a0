package graphviz

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/draw"
)

const graph = `digraph g { a [label="MPI_Init", shape=box, style=filled, fillcolor="#e2f3df"]; a -> b; }`

// Importing the package makes draw.Render draw in this process, in every
// format.
func TestRenderInProcess(t *testing.T) {
	ctx := context.Background()
	svg, err := draw.Render(ctx, []byte(graph), draw.SVG)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(svg, new(struct{})); err != nil || !strings.Contains(string(svg), "MPI_Init") {
		t.Errorf("not an SVG of the graph (%v):\n%s", err, svg)
	}
	img := renderPNG(t, graph)
	if n := count(img, func(c color.RGBA) bool { return c == color.RGBA{0xe2, 0xf3, 0xdf, 0xff} }); n < 500 {
		t.Errorf("the PNG has %d pixels of the box's fill colour, want the whole box", n)
	}
	if _, err := Render(ctx, []byte("digraph {"), draw.SVG); err == nil || !strings.Contains(err.Error(), "rejected") {
		t.Errorf("bad DOT: error %v", err)
	}
	if _, err := Render(ctx, []byte(graph), "json"); err == nil || !strings.Contains(err.Error(), "unknown format") {
		t.Errorf("json: error %v", err)
	}
}

func renderPNG(t *testing.T, dot string) image.Image {
	t.Helper()
	pic, err := Render(context.Background(), []byte(dot), draw.PNG)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(pic))
	if err != nil {
		t.Fatalf("the PNG does not decode: %v", err)
	}
	return img
}

func rgba(c color.Color) color.RGBA {
	r, g, b, a := c.RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
}

func count(img image.Image, f func(color.RGBA) bool) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if f(rgba(img.At(x, y))) {
				n++
			}
		}
	}
	return n
}

func dark(c color.RGBA) bool { return int(c.R)+int(c.G)+int(c.B) < 3*110 }

// The text of an HTML-like label is drawn: a table cell with text has many
// more dark pixels than the same cell, at the same size, left empty.
func TestPNGDrawsHTMLLabelText(t *testing.T) {
	const cell = `digraph g { dpi=144; n [shape=plaintext, fontname="Helvetica", label=<<TABLE BORDER="1" CELLBORDER="0" COLOR="#555555"><TR><TD BGCOLOR="#d6e6f7" WIDTH="120" HEIGHT="40" FIXEDSIZE="TRUE">%s</TD></TR></TABLE>>]; }`
	full := renderPNG(t, fmt.Sprintf(cell, "MPI_Allreduce<BR/><B>L1^16</B>"))
	empty := renderPNG(t, fmt.Sprintf(cell, ""))
	if full.Bounds() != empty.Bounds() {
		t.Fatalf("the two cells differ in size: %v and %v", full.Bounds(), empty.Bounds())
	}
	text, border := count(full, dark), count(empty, dark)
	t.Logf("dark pixels: %d with text, %d without", text, border)
	if text-border < 300 {
		t.Errorf("the cell with text has %d dark pixels, the empty one %d: the text is not drawn", text, border)
	}
}

// Text stays inside its box, in the fonts Graphviz measured it with: the
// dark pixels of the label lie between the box's left and right borders.
func TestPNGTextFitsItsBox(t *testing.T) {
	for _, font := range []string{"Helvetica", "Times-Roman", "Courier", "Helvetica-Bold"} {
		dot := fmt.Sprintf(`digraph g { dpi=144; n [shape=box, color="#ff0000", fontcolor="#000000", fontname=%q, fontsize=20, label="MPI_Comm_rank L1^21101 WWW"]; }`, font)
		img := renderPNG(t, dot)
		b := img.Bounds()
		left, right := b.Max.X, b.Min.X
		textLeft, textRight := b.Max.X, b.Min.X
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				c := rgba(img.At(x, y))
				switch {
				case c.R > 200 && c.G < 60 && c.B < 60:
					left, right = min(left, x), max(right, x)
				case dark(c):
					textLeft, textRight = min(textLeft, x), max(textRight, x)
				}
			}
		}
		if textLeft > textRight || left >= right {
			t.Errorf("%s: no text (%d–%d) or no box (%d–%d) drawn", font, textLeft, textRight, left, right)
			continue
		}
		t.Logf("%s: box %d–%d, text %d–%d", font, left, right, textLeft, textRight)
		if textLeft <= left || textRight >= right {
			t.Errorf("%s: the text spans columns %d–%d, outside its box %d–%d", font, textLeft, textRight, left, right)
		}
		// The text fills the box Graphviz sized for it: not set much smaller.
		if 10*(textRight-textLeft) < 8*(right-left) {
			t.Errorf("%s: the text spans %d of the box's %d columns", font, textRight-textLeft, right-left)
		}
	}
}

// The picture is drawn at the graph's dpi, and a drawing larger than
// draw.MaxPixels is scaled down to fit.
func TestPNGSize(t *testing.T) {
	small := renderPNG(t, `digraph g { dpi=72; a -> b; }`).Bounds()
	large := renderPNG(t, `digraph g { dpi=144; a -> b; }`).Bounds()
	if d := large.Dx() - 2*small.Dx(); d < -1 || d > 1 || large.Dy()-2*small.Dy() < -1 || large.Dy()-2*small.Dy() > 1 {
		t.Errorf("at 72 dpi %v, at 144 dpi %v: want twice the size", small, large)
	}
	sized := renderPNG(t, `digraph g { dpi=144; size="0.5,0.5"; a -> b; }`).Bounds()
	if sized.Dx() > 73 || sized.Dy() > 73 {
		t.Errorf("size=0.5 inch at 144 dpi gave %v, want at most 72 pixels a side", sized)
	}
	var chain strings.Builder
	chain.WriteString("digraph g { rankdir=LR; dpi=144; n0")
	for i := 1; i < 300; i++ {
		fmt.Fprintf(&chain, " -> n%d", i)
	}
	chain.WriteString("; }")
	wide := renderPNG(t, chain.String()).Bounds()
	if wide.Dx() != draw.MaxPixels || wide.Dy() > draw.MaxPixels || wide.Dy() < 10 {
		t.Errorf("a 300-node chain is %v, want %d pixels wide", wide, draw.MaxPixels)
	}
}

// The same graph gives the same bytes.
func TestPNGDeterministic(t *testing.T) {
	const dot = `digraph g { dpi=144; a [label=<<B>bold</B> and <I>italic</I>>, style=filled, fillcolor="#fbdfdd"]; a -> b [style=dashed]; b [shape=ellipse]; }`
	var first []byte
	for range 3 {
		pic, err := Render(context.Background(), []byte(dot), draw.PNG)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = pic
		} else if !bytes.Equal(first, pic) {
			t.Fatal("two renderings of the same graph differ")
		}
	}
}

func TestFontOf(t *testing.T) {
	for _, c := range []struct {
		name    string
		flags   int
		variant string
		bold    bool
		italic  bool
	}{
		{"Helvetica", 0, "Sans", false, false},
		{"Helvetica", fontBold, "Sans", true, false},
		{"Arial Bold Italic", 0, "Sans", true, true},
		{"Times-Roman", fontItalic, "Serif", false, true},
		{"sans-serif", 0, "Sans", false, false},
		{"Courier-Bold", 0, "Mono", true, false},
		{"DejaVu Sans Mono", 0, "Mono", false, false},
		{"Noto Whatever", 0, "Sans", false, false},
	} {
		f := fontOf(c.name, c.flags)
		if string(f.Variant) != c.variant || (f.Weight > 0) != c.bold || (f.Style > 0) != c.italic {
			t.Errorf("fontOf(%q, %d) = %+v", c.name, c.flags, f)
		}
	}
}
