package fca

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Format is a picture format.
type Format string

const (
	DOT Format = "dot" // Graphviz source, not laid out
	SVG Format = "svg"
	PNG Format = "png"
)

// FormatOf returns the format named by a file name's extension (.dot, .gv,
// .svg, .png).
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".dot", ".gv":
		return DOT, nil
	case ".svg":
		return SVG, nil
	case ".png":
		return PNG, nil
	}
	return "", fmt.Errorf("%s: unknown picture format %q; use .svg, .png or .dot", path, filepath.Ext(path))
}
