package fca

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

	"github.com/difftrace/difftrace/draw"
	"github.com/goccy/go-graphviz"
	"github.com/goccy/go-graphviz/cgraph"
)

// oddEvenLattice returns the context and lattice of seeds/002 Fig. 3.3.
func oddEvenLattice(t *testing.T) (*Context, *Lattice) {
	t.Helper()
	ids, seqs := oddEven()
	c, err := NewContext(Mode{}, ids, seqs, symName)
	if err != nil {
		t.Fatal(err)
	}
	l, err := BuildLattice(c, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return c, l
}

func render(t *testing.T, f draw.Format, c *Context, l *Lattice) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteLattice(&b, f, c, l); err != nil {
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
	if err := WriteLattice(&b, draw.Format("gif"), c, l); err == nil || !strings.Contains(err.Error(), "gif") {
		t.Errorf("gif: %v", err)
	}
	ids, seqs := stencilRun(1024, true, 3)
	c2, _ := NewContext(Mode{Freq: Actual}, ids, seqs, nil)
	l2, err := BuildLattice(c2, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteLattice(&b, draw.SVG, c2, l2); err == nil || !strings.Contains(err.Error(), "concepts") {
		t.Errorf("a %d-concept lattice: %v", l2.Len(), err)
	}
	if err := WriteLattice(&b, draw.SVG, c2, l); err == nil {
		t.Error("a lattice of another context was drawn")
	}
}

// TestHeatmap draws JSM_normal, JSM_faulty and JSM_D side by side and checks
// the cells' colours and the labels.
func TestHeatmap(t *testing.T) {
	ids, seqs := oddEven()
	c, _ := NewContext(Mode{}, ids, seqs, symName)
	normal, _, _ := Similarity(c, Limits{})
	c, _ = NewContext(Mode{Freq: Actual}, ids, seqs, symName)
	faulty, _, _ := Similarity(c, Limits{})
	d := JSMPanel("JSM_D", normal)
	diff := normal.Dense()
	for a := range 4 {
		for b := range 4 {
			v := faulty.At(a, b) - normal.At(a, b)
			diff.SetSym(a, b, max(v, -v))
		}
	}
	d.M = diff
	panels := []Panel{JSMPanel("JSM_normal", normal), JSMPanel("JSM_faulty", faulty), d}
	cm := heatColors()
	hex := func(v float64) color.NRGBA {
		c, _ := cm.At(v)
		return color.NRGBAModel.Convert(c).(color.NRGBA)
	}

	var b bytes.Buffer
	if err := WriteHeatmap(&b, draw.PNG, "", panels...); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	colors := countColors(img)
	// Cells of value 1 (normal: 8, faulty: 4), 2/3 (normal: 8, faulty: 12),
	// 1/3 (JSM_D: 4) and 0 (JSM_D: 12), each tens of pixels wide.
	for _, v := range []float64{1, 4.0 / 6, 2.0 / 6, 0} {
		if colors[hex(v)] < 4*30*30 {
			t.Errorf("%d pixels of the colour of %.2f", colors[hex(v)], v)
		}
	}
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w < 3*h {
		t.Errorf("three panels side by side in %d×%d", w, h)
	}

	b.Reset()
	if err := WriteHeatmap(&b, draw.SVG, "", panels...); err != nil {
		t.Fatal(err)
	}
	_, texts := svgText(t, b.Bytes())
	for _, want := range []string{"JSM_normal", "JSM_faulty", "JSM_D", "0", "3", "1.00", "0.67", "0.33", "Jaccard similarity", "0.0", "1.0"} {
		if !slices.Contains(texts, want) {
			t.Errorf("SVG text lacks %q", want)
		}
	}
	var again bytes.Buffer
	WriteHeatmap(&again, draw.SVG, "", panels...)
	if !bytes.Equal(b.Bytes(), again.Bytes()) {
		t.Error("SVG output differs between two renderings")
	}

	// A large matrix is drawn as an image, thinned labels.
	ids2, seqs2 := stencilRun(500, true, 1)
	c2, _ := NewContext(Mode{Freq: Log10}, ids2, seqs2, nil)
	big, _, _ := Similarity(c2, Limits{})
	b.Reset()
	if err := WriteHeatmap(&b, draw.SVG, "", JSMPanel("big", big)); err != nil {
		t.Fatal(err)
	}
	_, texts = svgText(t, b.Bytes())
	if !slices.Contains(texts, "0.0") || !slices.Contains(texts, "11.0") || slices.Contains(texts, "1.0") && slices.Contains(texts, "2.0") {
		t.Errorf("labels of a 500-trace matrix: want every 11th, got %d texts", len(texts))
	}
	if !bytes.Contains(b.Bytes(), []byte("<image")) {
		t.Error("a 500-trace matrix is not drawn as an image")
	}

	for _, bad := range [][]Panel{nil, {{Title: "x", M: diff.SliceSym(0, 3), Labels: []string{"a"}}}} {
		if err := WriteHeatmap(io.Discard, draw.PNG, "", bad...); err == nil {
			t.Errorf("bad panels %v accepted", bad)
		}
	}
	if err := WriteHeatmap(io.Discard, draw.DOT, "", panels...); err == nil {
		t.Error("a heatmap as DOT was accepted")
	}
}
