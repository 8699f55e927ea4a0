// Command difftrace-draw is difftrace's Graphviz helper: it reads a graph in
// DOT on standard input, lays it out with go-graphviz and writes the picture
// (svg or png) on standard output.
//
//	difftrace-draw svg < graph.dot > graph.svg
//
// difftrace runs it to draw diffNLR and lattice pictures, so that its other
// commands never load Graphviz's WebAssembly module (see package draw). It is
// installed beside difftrace (make build, or go install
// github.com/difftrace/difftrace/cmd/...).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/difftrace/difftrace/draw"
	"github.com/difftrace/difftrace/draw/graphviz"
	"github.com/difftrace/difftrace/draw/graphviz/privatecache"
)

// maxInput bounds the DOT source read: difftrace's pictures are abridged to
// well under a megabyte.
const maxInput = 256 << 20

func main() {
	if privatecache.Note != "" {
		fmt.Fprintln(os.Stderr, "difftrace-draw: note: "+privatecache.Note)
	}
	err := run(os.Args[1:], os.Stdin, os.Stdout)
	privatecache.Done()
	if err != nil {
		fmt.Fprintln(os.Stderr, "difftrace-draw: "+strings.ReplaceAll(err.Error(), "\n", " "))
		os.Exit(1)
	}
}

func run(args []string, in io.Reader, out io.Writer) error {
	if len(args) != 1 || !draw.Format(args[0]).Valid() {
		return fmt.Errorf("usage: difftrace-draw svg|png < graph.dot > picture (difftrace runs it to draw pictures)")
	}
	dot, err := io.ReadAll(io.LimitReader(in, maxInput+1))
	if err != nil {
		return fmt.Errorf("reading the graph from standard input: %w", err)
	}
	if len(dot) > maxInput {
		return fmt.Errorf("the graph on standard input is larger than %d MiB", maxInput>>20)
	}
	pic, err := graphviz.Render(context.Background(), dot, draw.Format(args[0]))
	if err != nil {
		return err
	}
	_, err = out.Write(pic)
	return err
}
