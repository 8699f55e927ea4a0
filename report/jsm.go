package report

import (
	"encoding/json"
	"fmt"
	"io"

	"gonum.org/v1/gonum/mat"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/fca"
)

// JSM is the result of "difftrace jsm": the Jaccard similarity matrices of
// the traces under one view (seeds/002 Fig. 3.4), the run's with one run;
// with two, JSM_normal, JSM_faulty and JSM_D = |JSM_faulty − JSM_normal|.
// Its text prints each matrix with two decimals, its CSV every value
// (fca.WriteCSV), its JSON each matrix as rows of values; the heatmaps are
// drawn from Panels by heatmap.Write (draw/heatmap).
type JSM struct {
	Filter string
	K      int
	Attrs  string // the attribute mode: "sing.noFreq"
	Level  string // "thread" or "process"
	Panels []fca.Panel
}

// NewJSM returns the matrices of sim, computed under filter, K k, attribute
// mode m.
func NewJSM(sim *compare.Similarity, filter string, k int, m fca.Mode) *JSM {
	d := &JSM{Filter: filter, K: k, Attrs: m.String(), Level: sim.Level.String()}
	if len(sim.JSM) == 1 {
		d.Panels = []fca.Panel{fca.JSMPanel("JSM", sim.JSM[0])}
		return d
	}
	n := len(sim.IDs)
	diff := fca.JSMPanel("JSM_D = |JSM_faulty − JSM_normal|", sim.JSM[compare.Normal])
	diff.M = mat.NewDense(n, n, sim.DiffMatrix())
	d.Panels = []fca.Panel{
		fca.JSMPanel("JSM_normal", sim.JSM[compare.Normal]),
		fca.JSMPanel("JSM_faulty", sim.JSM[compare.Faulty]),
		diff,
	}
	return d
}

func (*JSM) defaultFormat() Format { return Text }
func (*JSM) name() string          { return "the similarity matrices" }

// writeText prints the view, then each matrix under its title.
func (d *JSM) writeText(out io.Writer, _ Options) error {
	fmt.Fprintf(out, "filter %s, K = %d, attributes %s, %s level\n", d.Filter, d.K, d.Attrs, d.Level)
	for _, p := range d.Panels {
		fmt.Fprintf(out, "\n%s\n", p.Title)
		writeMatrix(out, p)
	}
	return nil
}

// writeMatrix prints a matrix with two decimals, aligned.
func writeMatrix(out io.Writer, p fca.Panel) {
	w := 4
	for _, l := range p.Labels {
		w = max(w, len(l))
	}
	fmt.Fprintf(out, "%*s", w, "")
	for _, l := range p.Labels {
		fmt.Fprintf(out, " %*s", w, l)
	}
	fmt.Fprintln(out)
	for a, l := range p.Labels {
		fmt.Fprintf(out, "%*s", w, l)
		for b := range p.Labels {
			fmt.Fprintf(out, " %*.2f", w, p.M.At(a, b))
		}
		fmt.Fprintln(out)
	}
}

// writeCSV writes every matrix, a row per trace; with two runs a first
// column names the matrix.
func (d *JSM) writeCSV(out io.Writer, _ Options) error {
	return fca.WriteCSV(out, len(d.Panels) > 1, d.Panels...)
}

// writeJSON writes the view and each matrix as its title, its traces and
// its rows of values.
func (d *JSM) writeJSON(out io.Writer, _ Options) error {
	type matrix struct {
		Title  string      `json:"title"`
		Traces []string    `json:"traces"`
		Values [][]float64 `json:"values"`
	}
	doc := struct {
		Filter   string   `json:"filter"`
		K        int      `json:"k"`
		Attrs    string   `json:"attrs"`
		Level    string   `json:"level"`
		Matrices []matrix `json:"matrices"`
	}{Filter: d.Filter, K: d.K, Attrs: d.Attrs, Level: d.Level, Matrices: []matrix{}}
	for _, p := range d.Panels {
		m := matrix{Title: p.Title, Traces: p.Labels, Values: make([][]float64, len(p.Labels))}
		for a := range p.Labels {
			m.Values[a] = make([]float64, len(p.Labels))
			for b := range p.Labels {
				m.Values[a][b] = p.M.At(a, b)
			}
		}
		doc.Matrices = append(doc.Matrices, m)
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
