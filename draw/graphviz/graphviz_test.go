package graphviz

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
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
	pic, err := draw.Render(ctx, []byte(graph), draw.PNG)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(pic))
	if err != nil {
		t.Fatal(err)
	}
	// The box is filled with its colour somewhere.
	found := false
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y && !found; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 == 0xe2 && g>>8 == 0xf3 && bl>>8 == 0xdf {
				found = true
				break
			}
		}
	}
	if !found {
		t.Error("the PNG has no pixel of the box's fill colour")
	}
	js, err := draw.Render(ctx, []byte(graph), draw.JSON)
	if err != nil {
		t.Fatal(err)
	}
	var layout struct {
		Objects []struct {
			Name string `json:"name"`
		} `json:"objects"`
	}
	if err := json.Unmarshal(js, &layout); err != nil || len(layout.Objects) != 2 {
		t.Errorf("JSON layout: %v, %d objects, want 2", err, len(layout.Objects))
	}
	if _, err := Render(ctx, []byte("digraph {"), draw.SVG); err == nil || !strings.Contains(err.Error(), "rejected") {
		t.Errorf("bad DOT: error %v", err)
	}
}
