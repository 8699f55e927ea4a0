package diffgraph

import (
	"bytes"
	"encoding/xml"
	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/diffnlr/diffnlrtest"
	"github.com/difftrace/difftrace/draw"
	"image/color"
	"image/png"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/difftrace/difftrace/nlr"
)

func swapPicture(t testing.TB) *Picture {
	blocks, err := diffnlr.Diff(oddevenNormal, swapFaulty)
	if err != nil {
		t.Fatal(err)
	}
	return &Picture{Blocks: blocks, Title: "diffNLR(5): normal vs faulty", Label: testLabel, Legend: oddevenLegend}
}

func render(t *testing.T, p *Picture, f draw.Format) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, p, f); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The SVG is well-formed XML with an <svg> root, and shows every label.
func TestRenderSVG(t *testing.T) {
	svg := render(t, swapPicture(t), draw.SVG)
	d := xml.NewDecoder(bytes.NewReader(svg))
	root := ""
	var texts []string
	inText := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
			inText = tok.Name.Local == "text"
		case xml.CharData:
			if inText {
				texts = append(texts, string(tok))
			}
		case xml.EndElement:
			inText = false
		}
	}
	if root != "svg" {
		t.Fatalf("SVG root element is <%s>", root)
	}
	all := strings.Join(texts, "|")
	for _, want := range []string{"diffNLR(5): normal vs faulty", "MPI_Init", "MPI_Comm_rank", "MPI_Comm_size",
		"L1^16", "L1^7", "L0^9", "MPI_Finalize", "L0 = [MPI_Send, MPI_Recv]", "only in faulty"} {
		if !strings.Contains(all, want) {
			t.Errorf("SVG has no text %q; texts: %s", want, all)
		}
	}
	for _, want := range []string{fillCommon, fillNormal, fillFaulty, borderNormal, borderFaulty} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("SVG does not use colour %s", want)
		}
	}
}

// The PNG decodes, has a sensible size, and shows boxes filled in the three
// colours, their borders and the edges between them.
func TestRenderPNG(t *testing.T) {
	data := render(t, swapPicture(t), draw.PNG)
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	b := img.Bounds()
	if b.Dx() < 400 || b.Dx() > 1500 || b.Dy() < 600 || b.Dy() > 2000 {
		t.Errorf("PNG is %d×%d pixels, want about 700×800", b.Dx(), b.Dy())
	}
	count := map[string]int{}
	want := map[color.RGBA]string{
		hex(fillCommon): "green fill", hex(fillNormal): "blue fill", hex(fillFaulty): "red fill",
		hex(borderNormal): "blue border/edge", hex(borderFaulty): "red border/edge", hex(edgeStem): "grey edge",
		{255, 255, 255, 255}: "white background",
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			c := color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), uint8(a >> 8)}
			if name, ok := want[c]; ok {
				count[name]++
			}
		}
	}
	t.Logf("pixels by colour: %v", count)
	for _, name := range want {
		// A 2× picture: every box is thousands of pixels, every stroked
		// line hundreds.
		if count[name] < 150 {
			t.Errorf("PNG has %d pixels of %s, want more", count[name], name)
		}
	}
	if count["white background"] < b.Dx()*b.Dy()/2 {
		t.Errorf("PNG is mostly not white: %d of %d pixels", count["white background"], b.Dx()*b.Dy())
	}
	// The boxes' labels are drawn: dark pixels on the fill, between two
	// pixels of it along a row.
	for _, fill := range []string{fillCommon, fillNormal, fillFaulty} {
		text := 0
		for y := b.Min.Y; y < b.Max.Y; y++ {
			inBox, pending := false, 0
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				switch c := (color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}); {
				case c == hex(fill):
					if inBox {
						text += pending
					}
					inBox, pending = true, 0
				case c == color.RGBA{255, 255, 255, 255}:
					inBox, pending = false, 0
				case int(c.R)+int(c.G)+int(c.B) < 3*110:
					pending++
				}
			}
		}
		if text < 100 {
			t.Errorf("%d dark pixels inside the boxes filled with %s: their labels are missing", text, fill)
		}
	}
}

func hex(s string) color.RGBA {
	var c color.RGBA
	c.A = 255
	for i, p := range []*uint8{&c.R, &c.G, &c.B} {
		var v uint8
		for _, ch := range s[1+2*i : 3+2*i] {
			v <<= 4
			switch {
			case ch >= '0' && ch <= '9':
				v |= uint8(ch - '0')
			default:
				v |= uint8(ch-'a') + 10
			}
		}
		*p = v
	}
	return c
}

// The same picture twice gives the same bytes, in every format.
func TestRenderDeterministic(t *testing.T) {
	for _, f := range []draw.Format{draw.SVG, draw.PNG, draw.DOT} {
		a := render(t, swapPicture(t), f)
		b := render(t, swapPicture(t), f)
		if !bytes.Equal(a, b) {
			t.Errorf("two %s renders differ", f)
		}
	}
}

// A long diff is too tall for 144 dpi: the PNG gets fewer dots per inch and
// stays within maxPixels.
func TestRenderPNGTall(t *testing.T) {
	normal, faulty := diffnlrtest.ManyChanges()
	for range 3 {
		normal = append(normal, normal...)
		faulty = append(faulty, faulty...)
	}
	p := &Picture{Blocks: mustDiff(t, normal, faulty), Label: testLabel, Abridge: Abridge{Context: 3, Changes: 36}}
	img, err := png.Decode(bytes.NewReader(render(t, p, draw.PNG)))
	if err != nil {
		t.Fatal(err)
	}
	// About 300 rows of boxes, 190 inches: 27,000 pixels at 144 dpi.
	b := img.Bounds()
	if b.Dy() > maxPixels || b.Dx() > maxPixels || b.Dy() < maxPixels/2 {
		t.Errorf("tall PNG is %d×%d pixels, want at most %d and at least half that tall", b.Dx(), b.Dy(), maxPixels)
	}
}

// TestRenderUnknownFormat: a format Render does not draw is an error.
func TestRenderUnknownFormat(t *testing.T) {
	if err := Render(io.Discard, swapPicture(t), draw.Format("pdf")); err == nil {
		t.Error("Render accepted format pdf")
	}
}

// An empty diff still draws: a title and a note that both traces are empty.
func TestRenderEmpty(t *testing.T) {
	p := &Picture{Label: testLabel}
	svg := render(t, p, draw.SVG)
	if !bytes.Contains(svg, []byte("both traces are empty")) {
		t.Error("empty picture does not say the traces are empty")
	}
	if _, err := png.Decode(bytes.NewReader(render(t, p, draw.PNG))); err != nil {
		t.Error(err)
	}
}

// Renders from several goroutines take turns on the one Graphviz instance
// and all give the same picture.
func TestRenderConcurrent(t *testing.T) {
	want := render(t, swapPicture(t), draw.SVG)
	errs := make(chan error, 4)
	outs := make(chan []byte, 4)
	for range 4 {
		p := swapPicture(t) // here: t.Fatal must not run on another goroutine
		go func() {
			var b bytes.Buffer
			errs <- Render(&b, p, draw.SVG)
			outs <- b.Bytes()
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		if got := <-outs; !bytes.Equal(got, want) {
			t.Error("a concurrent render differs")
		}
	}
}

// evil is a function name made to act on a terminal: it clears the screen,
// sets the window title, goes back over its own text, and holds a C1
// control, invalid UTF-8 and a right-to-left override.
const evil = "MPI_Send\x1b[2J\x1b]0;pwned\x07\rhid\b\bden\u009b31m\x9b\xff\u202e"

// evilShown is how pictures and text show it.
const evilShown = `MPI_Send\x1b[2J\x1b]0;pwned\x07\x0dhid\x08\x08den\u009b31m\x9b\xff\u202e`

// Control characters in names are shown escaped in every part of the
// picture: the SVG keeps its title, first difference and legend (Graphviz
// dropped the label whole when it held one), the PNG draws (its layout was
// JSON that did not parse), the text holds none of them.
func TestRenderControlCharacters(t *testing.T) {
	p := swapPicture(t)
	p.Label = func(e nlr.Element) string { return strings.ReplaceAll(testLabel(e), "MPI_Send", evil) }
	p.Notes = []string{"first difference: " + evil + " before MPI_Recv"}
	p.Legend = []string{"L0 = [" + evil + ", MPI_Recv]"}
	p.Ended = "killed in " + evil
	clean := func(what string, b []byte) {
		t.Helper()
		if !utf8.Valid(b) {
			t.Errorf("%s is not UTF-8", what)
		}
		for _, r := range string(b) {
			if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || r == 0x202e {
				t.Errorf("%s holds %U", what, r)
				return
			}
		}
	}
	dot := render(t, p, draw.DOT)
	clean("the DOT source", dot)
	svg := render(t, p, draw.SVG)
	clean("the SVG", svg)
	if err := xml.Unmarshal(svg, new(struct{})); err != nil {
		t.Fatalf("SVG is not well-formed XML: %v", err)
	}
	for _, want := range []string{"diffNLR(5): normal vs faulty", "first difference: " + evilShown, "only in faulty", "L0 = [" + evilShown + ", MPI_Recv]", evilShown} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if _, err := png.Decode(bytes.NewReader(render(t, p, draw.PNG))); err != nil {
		t.Errorf("PNG: %v", err)
	}
	var text bytes.Buffer
	if err := p.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	clean("the text", text.Bytes())
	if !strings.Contains(text.String(), evilShown) {
		t.Errorf("text lacks %q:\n%s", evilShown, text.String())
	}
}
