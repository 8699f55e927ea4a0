package cluster

import (
	"fmt"
	"math"
)

// NumObs returns the number of observations n of a condensed distance matrix
// with m entries, m = n(n−1)/2. An empty matrix describes one observation.
func NumObs(m int) (int, error) {
	if m < 0 {
		return 0, fmt.Errorf("cluster: condensed distance matrix has %d entries; want n(n-1)/2 for some n", m)
	}
	// n = (1 + sqrt(1 + 8m)) / 2, then corrected for rounding.
	n := int((1 + math.Sqrt(1+8*float64(m))) / 2)
	for n > 1 && n*(n-1)/2 > m {
		n--
	}
	for (n+1)*n/2 <= m {
		n++
	}
	if n*(n-1)/2 != m {
		return 0, fmt.Errorf("cluster: condensed distance matrix has %d entries, which is not n(n-1)/2 for any n "+
			"(%d for n = %d, %d for n = %d); give the upper triangle of an n×n matrix row by row",
			m, n*(n-1)/2, n, (n+1)*n/2, n+1)
	}
	return n, nil
}

// Index returns the position of the distance between observations i and j
// (i ≠ j, both below n) in a condensed matrix of n observations.
func Index(n, i, j int) int {
	if i > j {
		i, j = j, i
	}
	return n*i - i*(i+1)/2 + j - i - 1
}

// rowBases returns b with b[i] + j = Index(n, i, j) for every i < j, so that
// the hot loops find a distance with one addition.
func rowBases(n int) []int {
	b := make([]int, n)
	for i := range b {
		b[i] = n*i - i*(i+1)/2 - i - 1
	}
	return b
}

// pairAt returns the position of the distance between i and j (i ≠ j, in
// either order) in a condensed matrix whose rows start at base (rowBases).
func pairAt(base []int, i, j int) int {
	if i < j {
		return base[i] + j
	}
	return base[j] + i
}

// checkCondensed returns the number of observations of d, or an error naming
// the first entry that is not a finite, non-negative distance.
func checkCondensed(d []float64) (int, error) {
	n, err := NumObs(len(d))
	if err != nil {
		return 0, err
	}
	for idx, v := range d {
		if v >= 0 && !math.IsInf(v, 1) {
			continue
		}
		i, j := pairOf(n, idx)
		what := "negative"
		switch {
		case math.IsNaN(v):
			what = "NaN"
		case math.IsInf(v, 0):
			what = "infinite"
		}
		return 0, fmt.Errorf("cluster: distance %d (observations %d and %d) is %s (%v); "+
			"distances must be finite and non-negative", idx, i, j, what, v)
	}
	return n, nil
}

// pairOf is the inverse of Index: the observations i < j at position idx.
func pairOf(n, idx int) (int, int) {
	i := 0
	for row := n - 1; idx >= row && row > 0; row-- {
		idx -= row
		i++
	}
	return i, i + 1 + idx
}
