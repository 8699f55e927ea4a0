// Package graphviz draws DOT source in this process with go-graphviz
// (Graphviz compiled to WebAssembly): SVG from Graphviz's own renderer, PNG
// from Graphviz's layout and drawing operations replayed in Go (see
// rasterize). Importing it registers it with package draw, so draw.Render
// draws in-process; the difftrace-draw helper, tests and benchmarks import
// it, the difftrace command does not (see package draw for why).
package graphviz

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"

	gographviz "github.com/goccy/go-graphviz"

	"github.com/difftrace/difftrace/draw"
	_ "github.com/difftrace/difftrace/draw/graphviz/privatecache" // before go-graphviz: its cache in a private directory
)

func init() { draw.Register(Render) }

// The WebAssembly module of go-graphviz is one instance per process, so
// layouts take turns; the engine is made once.
var gv struct {
	sync.Mutex
	g   *gographviz.Graphviz
	err error
}

func engine(ctx context.Context) (*gographviz.Graphviz, error) {
	if gv.g == nil && gv.err == nil {
		if gv.g, gv.err = gographviz.New(ctx); gv.err != nil {
			gv.err = fmt.Errorf("starting Graphviz: %w", gv.err)
		}
	}
	return gv.g, gv.err
}

// Render lays dot out with Graphviz's dot and draws it in format f.
func Render(ctx context.Context, dot []byte, f draw.Format) ([]byte, error) {
	switch f {
	case draw.SVG:
		return runDot(ctx, dot, gographviz.SVG)
	case draw.PNG:
		// The layout with its drawing operations, rasterised outside the
		// lock.
		js, err := runDot(ctx, dot, "json")
		if err != nil {
			return nil, err
		}
		pic, err := rasterize(js)
		if err != nil {
			return nil, fmt.Errorf("drawing the graph as PNG: %w", err)
		}
		return pic, nil
	}
	return nil, fmt.Errorf("unknown format %q (want svg or png)", f)
}

// runDot runs Graphviz's dot on the graph and returns its output in format
// f.
func runDot(ctx context.Context, dot []byte, f gographviz.Format) ([]byte, error) {
	gv.Lock()
	defer gv.Unlock()
	e, err := engine(ctx)
	if err != nil {
		return nil, err
	}
	g, err := gographviz.ParseBytes(dot)
	if err != nil {
		return nil, fmt.Errorf("the graph was rejected by Graphviz: %w", err)
	}
	defer g.Close()
	var buf bytes.Buffer
	if err := e.Render(ctx, g, f, &buf); err != nil {
		return nil, fmt.Errorf("laying out the graph with Graphviz failed: %w", err)
	}
	if buf.Len() == 0 {
		return nil, fmt.Errorf("the %s output of Graphviz is empty", strings.ToUpper(string(f)))
	}
	return buf.Bytes(), nil
}

// Exclusive runs fn while no graph is being laid out, for code that uses
// go-graphviz directly (such as tests reading DOT back).
func Exclusive(fn func()) {
	gv.Lock()
	defer gv.Unlock()
	fn()
}
