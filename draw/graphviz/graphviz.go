// Package graphviz draws DOT source in this process with go-graphviz
// (Graphviz compiled to WebAssembly): SVG from Graphviz's own renderer,
// PNG from a raster renderer of this package (see rasterizer), and the JSON
// layout. Importing it registers it with package draw, so draw.Render draws
// in-process; the difftrace-draw helper, tests and benchmarks import it, the
// difftrace command does not (see package draw for why).
package graphviz

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"

	gographviz "github.com/goccy/go-graphviz"
	"github.com/goccy/go-graphviz/gvc"

	"github.com/difftrace/difftrace/draw"
)

func init() { draw.Register(Render) }

// The WebAssembly module of go-graphviz is one instance per process, so
// renders take turns; the engine and its raster renderer are made once.
var gv struct {
	sync.Mutex
	g   *gographviz.Graphviz
	png *rasterizer
	err error
}

func engine(ctx context.Context) (*gographviz.Graphviz, error) {
	if gv.g != nil || gv.err != nil {
		return gv.g, gv.err
	}
	gv.png = newRasterizer()
	render, err := gvc.NewRenderPlugin(ctx, "png", gv.png,
		gvc.WithRenderFeatures(gvc.RenderYGoesDown, gvc.RenderDoesTransform),
		gvc.WithRenderQuality(10))
	if err == nil {
		var device *gvc.DevicePlugin
		device, err = gvc.NewDevicePlugin(ctx, "png:png",
			gvc.WithDeviceFeatures(gvc.DeviceBinaryFormat, gvc.DeviceDoesTrueColor),
			gvc.WithDeviceQuality(10))
		if err == nil {
			gv.g, err = gographviz.NewWithPlugins(ctx, render, device)
		}
	}
	if err != nil {
		gv.err = fmt.Errorf("starting Graphviz: %w", err)
	}
	return gv.g, gv.err
}

// Render lays dot out with Graphviz's dot and draws it in format f.
func Render(ctx context.Context, dot []byte, f draw.Format) ([]byte, error) {
	if !f.Valid() {
		return nil, fmt.Errorf("unknown format %q (want svg, png or json)", f)
	}
	gv.Lock()
	defer gv.Unlock()
	e, err := engine(ctx)
	if err != nil {
		return nil, err
	}
	g, err := gographviz.ParseBytes(dot)
	if err != nil {
		return nil, fmt.Errorf("Graphviz rejected the graph: %w", err)
	}
	defer g.Close()
	var buf bytes.Buffer
	if err := e.Render(ctx, g, gographviz.Format(f), &buf); err != nil {
		return nil, fmt.Errorf("drawing the graph as %s: %w", strings.ToUpper(string(f)), err)
	}
	if buf.Len() == 0 {
		return nil, fmt.Errorf("Graphviz drew an empty %s picture", strings.ToUpper(string(f)))
	}
	return buf.Bytes(), nil
}

// Exclusive runs fn while no graph is being drawn, for code that uses
// go-graphviz directly (such as tests reading DOT back).
func Exclusive(fn func()) {
	gv.Lock()
	defer gv.Unlock()
	fn()
}
