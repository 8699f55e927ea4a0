package fca

import "gonum.org/v1/gonum/mat"

// Panel is one matrix of a heatmap figure: a square matrix of values in
// [0, 1] (a JSM, or a difference of JSMs), with a title and one label per
// row and column (trace IDs).
type Panel struct {
	Title  string
	Labels []string
	M      mat.Matrix
}

// JSMPanel returns a panel of j labelled with its trace IDs.
func JSMPanel(title string, j *JSM) Panel {
	labels := make([]string, len(j.ids))
	for i, id := range j.ids {
		labels[i] = id.String()
	}
	return Panel{Title: title, Labels: labels, M: j}
}
