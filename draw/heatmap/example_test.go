package heatmap_test

import (
	"bytes"
	"fmt"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/difftrace/difftrace/draw"
	"github.com/difftrace/difftrace/draw/heatmap"
	"github.com/difftrace/difftrace/fca"
)

// Two similarity matrices side by side as SVG: ranks 0 and 2 alike in the
// normal run, rank 2 apart in the faulty one.
func ExampleWrite() {
	normal := fca.Panel{Title: "JSM_normal", Labels: []string{"0", "1", "2"}, M: mat.NewSymDense(3, []float64{
		1, 0.5, 1,
		0.5, 1, 0.5,
		1, 0.5, 1,
	})}
	faulty := fca.Panel{Title: "JSM_faulty", Labels: []string{"0", "1", "2"}, M: mat.NewSymDense(3, []float64{
		1, 0.5, 0.2,
		0.5, 1, 0.2,
		0.2, 0.2, 1,
	})}
	var svg bytes.Buffer
	if err := heatmap.Write(&svg, draw.SVG, "", normal, faulty); err != nil {
		panic(err)
	}
	s := svg.String()
	fmt.Println(strings.HasPrefix(s, "<?xml"), strings.Contains(s, "JSM_faulty"), strings.Contains(s, "Jaccard similarity"), strings.Count(s, ">0.20<"))
	// Output:
	// true true true 4
}
