package heatmap

import (
	"bytes"
	"encoding/xml"
	"image"
	"image/color"
	"image/png"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/draw"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/fca/fcatest"
)

// TestHeatmap draws JSM_normal, JSM_faulty and JSM_D side by side and checks
// the cells' colours and the labels.
func TestHeatmap(t *testing.T) {
	ids, seqs := fcatest.OddEven()
	c, _ := fca.NewContext(fca.Mode{}, ids, seqs, fcatest.Name)
	normal, _, _ := fca.Similarity(c, fca.Limits{})
	c, _ = fca.NewContext(fca.Mode{Freq: fca.Actual}, ids, seqs, fcatest.Name)
	faulty, _, _ := fca.Similarity(c, fca.Limits{})
	d := fca.JSMPanel("JSM_D", normal)
	diff := normal.Dense()
	for a := range 4 {
		for b := range 4 {
			v := faulty.At(a, b) - normal.At(a, b)
			diff.SetSym(a, b, max(v, -v))
		}
	}
	d.M = diff
	panels := []fca.Panel{fca.JSMPanel("JSM_normal", normal), fca.JSMPanel("JSM_faulty", faulty), d}
	cm := heatColors()
	hex := func(v float64) color.NRGBA {
		c, _ := cm.At(v)
		return color.NRGBAModel.Convert(c).(color.NRGBA)
	}

	var b bytes.Buffer
	if err := Write(&b, draw.PNG, "", panels...); err != nil {
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
	if err := Write(&b, draw.SVG, "", panels...); err != nil {
		t.Fatal(err)
	}
	_, texts := svgText(t, b.Bytes())
	for _, want := range []string{"JSM_normal", "JSM_faulty", "JSM_D", "0", "3", "1.00", "0.67", "0.33", "Jaccard similarity", "0.0", "1.0"} {
		if !slices.Contains(texts, want) {
			t.Errorf("SVG text lacks %q", want)
		}
	}
	var again bytes.Buffer
	Write(&again, draw.SVG, "", panels...)
	if !bytes.Equal(b.Bytes(), again.Bytes()) {
		t.Error("SVG output differs between two renderings")
	}

	// A large matrix is drawn as an image, thinned labels.
	ids2, seqs2 := fcatest.StencilRun(500, true, 1)
	c2, _ := fca.NewContext(fca.Mode{Freq: fca.Log10}, ids2, seqs2, nil)
	big, _, _ := fca.Similarity(c2, fca.Limits{})
	b.Reset()
	if err := Write(&b, draw.SVG, "", fca.JSMPanel("big", big)); err != nil {
		t.Fatal(err)
	}
	_, texts = svgText(t, b.Bytes())
	if !slices.Contains(texts, "0.0") || !slices.Contains(texts, "11.0") || slices.Contains(texts, "1.0") && slices.Contains(texts, "2.0") {
		t.Errorf("labels of a 500-trace matrix: want every 11th, got %d texts", len(texts))
	}
	if !bytes.Contains(b.Bytes(), []byte("<image")) {
		t.Error("a 500-trace matrix is not drawn as an image")
	}

	for _, bad := range [][]fca.Panel{nil, {{Title: "x", M: diff.SliceSym(0, 3), Labels: []string{"a"}}}} {
		if err := Write(io.Discard, draw.PNG, "", bad...); err == nil {
			t.Errorf("bad panels %v accepted", bad)
		}
	}
	if err := Write(io.Discard, draw.DOT, "", panels...); err == nil {
		t.Error("a heatmap as DOT was accepted")
	}
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

// A matrix of no traces is an empty panel, drawn.
func TestHeatmapOfNothing(t *testing.T) {
	c, err := fca.NewContext(fca.Mode{}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	j, _, err := fca.Similarity(c, fca.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(io.Discard, draw.PNG, "", fca.JSMPanel("none", j)); err != nil {
		t.Errorf("heatmap of nothing: %v", err)
	}
}
