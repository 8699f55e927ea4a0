package hasse

import (
	"bytes"
	"encoding/xml"
	"image"
	"image/color"
	"image/png"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goccy/go-graphviz"
	"github.com/goccy/go-graphviz/cgraph"

	"github.com/difftrace/difftrace/draw"
	_ "github.com/difftrace/difftrace/draw/graphviz" // draw in this process, not with the helper
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/fca/fcatest"
)

// oddEvenLattice returns the context and lattice of seeds/002 Fig. 3.3.
func oddEvenLattice(t *testing.T) (*fca.Context, *fca.Lattice) {
	t.Helper()
	ids, seqs := fcatest.OddEven()
	c, err := fca.NewContext(fca.Mode{}, ids, seqs, fcatest.Name)
	if err != nil {
		t.Fatal(err)
	}
	l, err := fca.BuildLattice(c, fca.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return c, l
}

func render(t *testing.T, f draw.Format, c *fca.Context, l *fca.Lattice) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, f, c, l); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestLatticeDOT parses the DOT output with Graphviz and checks the diagram
// of Fig. 3.3: four concepts, four covering edges, and the labels.
func TestLatticeDOT(t *testing.T) {
	c, l := oddEvenLattice(t)
	src := render(t, draw.DOT, c, l)
	g, err := graphviz.ParseBytes(src)
	if err != nil {
		t.Fatalf("Graphviz cannot read the DOT output: %v\n%s", err, src)
	}
	defer g.Close()
	if n, _ := g.NodeNum(); n != 4 {
		t.Errorf("%d nodes, want 4", n)
	}
	if n, _ := g.EdgeNum(); n != 4 {
		t.Errorf("%d edges, want 4", n)
	}
	labels := map[string]string{}
	for n, err := g.FirstNode(); n != nil && err == nil; n, err = g.NextNode(n) {
		name, _ := n.Name()
		labels[name] = n.GetStr("label")
	}
	node := func(k int) string { return "c" + strconv.Itoa(k) }
	top := labels[node(l.Top())]
	for _, a := range []string{"MPI_Init", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Finalize"} {
		if !strings.Contains(top, a) {
			t.Errorf("top label %q lacks %s", top, a)
		}
	}
	for _, ch := range l.Children(l.Top()) {
		lab := labels[node(ch)]
		if !(strings.Contains(lab, ">L0<") && strings.Contains(lab, ">0, 2<")) && !(strings.Contains(lab, ">L1<") && strings.Contains(lab, ">1, 3<")) {
			t.Errorf("middle concept label %q: want L0 with traces 0, 2 or L1 with 1, 3", lab)
		}
	}
	// The bottom has nothing new: a dot.
	bottom, err := g.NodeByName(node(l.Bottom()))
	if err != nil || bottom == nil || bottom.GetStr("shape") != "point" {
		t.Errorf("bottom node: %v, shape %q", err, bottom.GetStr("shape"))
	}
	// Covering edges go from the top down.
	for e, err := g.FirstEdge(mustNode(t, g, node(l.Top()))); e != nil && err == nil; e, err = g.NextEdge(e, nil) {
		h, _ := e.Node().Name()
		if !slices.Contains([]string{node(l.Children(l.Top())[0]), node(l.Children(l.Top())[1])}, h) {
			t.Errorf("edge from the top to %s", h)
		}
	}
	// Same lattice, same bytes.
	if again := render(t, draw.DOT, c, l); !bytes.Equal(src, again) {
		t.Error("DOT output differs between two renderings")
	}
}

func mustNode(t *testing.T, g *cgraph.Graph, name string) *cgraph.Node {
	n, err := g.NodeByName(name)
	if err != nil || n == nil {
		t.Fatalf("node %s: %v", name, err)
	}
	return n
}

// svgText returns the classes of the SVG's groups and all its text.
func svgText(t *testing.T, b []byte) (classes map[string]int, texts []string) {
	t.Helper()
	classes = map[string]int{}
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = false
	d.Entity = xml.HTMLEntity
	inText := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG does not parse: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if tok.Name.Local == "text" {
				inText = true
			}
			for _, a := range tok.Attr {
				if a.Name.Local == "class" {
					classes[a.Value]++
				}
			}
		case xml.EndElement:
			if tok.Name.Local == "text" {
				inText = false
			}
		case xml.CharData:
			if inText {
				texts = append(texts, strings.TrimSpace(string(tok)))
			}
		}
	}
	return classes, texts
}

func TestLatticeSVG(t *testing.T) {
	c, l := oddEvenLattice(t)
	b := render(t, draw.SVG, c, l)
	classes, texts := svgText(t, b)
	if classes["node"] != 4 || classes["edge"] != 4 {
		t.Errorf("SVG has %d nodes and %d edges, want 4 and 4", classes["node"], classes["edge"])
	}
	for _, want := range []string{"MPI_Init", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Finalize", "L0", "L1", "0, 2", "1, 3"} {
		if !slices.Contains(texts, want) {
			t.Errorf("SVG text lacks %q (has %q)", want, texts)
		}
	}
}

// countColors counts the pixels of each colour in img.
func countColors(img image.Image) map[color.NRGBA]int {
	n := map[color.NRGBA]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			n[color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)]++
		}
	}
	return n
}

// textIn counts dark pixels that lie, along their row, between two pixels
// of the background colour bg with no white between: text set on cells of
// that colour.
func textIn(img image.Image, bg color.NRGBA) int {
	white := color.NRGBA{0xff, 0xff, 0xff, 0xff}
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		inCell, pending := false, 0
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			switch {
			case c == bg:
				if inCell {
					n += pending
				}
				inCell, pending = true, 0
			case c == white:
				inCell, pending = false, 0
			case int(c.R)+int(c.G)+int(c.B) < 3*110:
				pending++
			}
		}
	}
	return n
}

// rowsOf returns the first and last rows holding colour c.
func rowsOf(img image.Image, c color.NRGBA) (first, last int) {
	first, last = -1, -1
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA) == c {
				if first < 0 {
					first = y
				}
				last = y
				break
			}
		}
	}
	return first, last
}

// TestLatticePNG decodes the PNG and checks what is drawn: the attribute
// (blue) and object (yellow) cells, the outlines, edges and text (dark
// pixels), with the top's attributes above the middle concepts' traces.
func TestLatticePNG(t *testing.T) {
	c, l := oddEvenLattice(t)
	b := render(t, draw.PNG, c, l)
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w < 300 || h < 200 {
		t.Errorf("PNG is %d×%d", w, h)
	}
	colors := countColors(img)
	blue := color.NRGBA{0xd6, 0xe6, 0xf7, 0xff}
	yellow := color.NRGBA{0xff, 0xf0, 0xc2, 0xff}
	if colors[blue] < 500 || colors[yellow] < 200 {
		t.Errorf("%d blue and %d yellow pixels: the concept cells are missing", colors[blue], colors[yellow])
	}
	dark := 0
	for c, n := range colors {
		if int(c.R)+int(c.G)+int(c.B) < 3*110 {
			dark += n
		}
	}
	if dark < 1500 {
		t.Errorf("%d dark pixels: outlines, edges or text are missing", dark)
	}
	// The labels' text is drawn inside the cells: dark pixels with the
	// cell's colour on both sides.
	if n := textIn(img, blue); n < 300 {
		t.Errorf("%d dark pixels inside the attribute cells: their text is missing", n)
	}
	if n := textIn(img, yellow); n < 100 {
		t.Errorf("%d dark pixels inside the trace cells: their text is missing", n)
	}
	blueTop, _ := rowsOf(img, blue)
	yellowTop, _ := rowsOf(img, yellow)
	if blueTop < 0 || yellowTop < 0 || blueTop >= yellowTop {
		t.Errorf("the top concept (blue from row %d) is not above the traces (yellow from row %d)", blueTop, yellowTop)
	}
	if again := render(t, draw.PNG, c, l); !bytes.Equal(b, again) {
		t.Error("PNG output differs between two renderings")
	}
}

func TestLatticePictureErrors(t *testing.T) {
	c, l := oddEvenLattice(t)
	var b bytes.Buffer
	if err := Write(&b, draw.Format("gif"), c, l); err == nil || !strings.Contains(err.Error(), "gif") {
		t.Errorf("gif: %v", err)
	}
	ids, seqs := fcatest.StencilRun(1024, true, 3)
	c2, _ := fca.NewContext(fca.Mode{Freq: fca.Actual}, ids, seqs, nil)
	l2, err := fca.BuildLattice(c2, fca.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(&b, draw.SVG, c2, l2); err == nil || !strings.Contains(err.Error(), "concepts") {
		t.Errorf("a %d-concept lattice: %v", l2.Len(), err)
	}
	if err := Write(&b, draw.SVG, c2, l); err == nil {
		t.Error("a lattice of another context was drawn")
	}
}

// A context without traces has a one-concept lattice, drawn.
func TestLatticeOfNothing(t *testing.T) {
	c, err := fca.NewContext(fca.Mode{}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	l, err := fca.BuildLattice(c, fca.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(io.Discard, draw.PNG, c, l); err != nil {
		t.Errorf("lattice of nothing: %v", err)
	}
}
