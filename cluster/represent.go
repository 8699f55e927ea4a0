package cluster

// Representatives chooses at most l of k points to stand for all of them
// (k-center by farthest-first traversal): first the point of most weight
// (the first of equals), then, one at a time, the point farthest from
// those chosen (the first of equals), until l are chosen or every point is
// at distance 0 from one. It returns the chosen points in order, and for
// every point the index (in reps) of its nearest representative, the first
// of equals. row(dst, p) returns the distances from point p to every point
// (in dst, grown as need be); it is asked at most l times. Deterministic: the
// same input gives the same choice.
func Representatives(k, l int, weight []int, row func(dst []float64, p int) []float64) (reps []int, of []int) {
	return RepresentativesFrom(nil, k, l, weight, row)
}

// RepresentativesFrom is Representatives choosing the points first (in
// order, distinct, at most l of them) before any other: points that must
// stand for themselves, whatever their weight or distance.
func RepresentativesFrom(first []int, k, l int, weight []int, row func(dst []float64, p int) []float64) (reps []int, of []int) {
	if k == 0 {
		return nil, nil
	}
	of = make([]int, k)
	near := make([]float64, k) // distance to the nearest representative so far
	heaviest := 0
	for p := 1; p < k; p++ {
		if weight[p] > weight[heaviest] {
			heaviest = p
		}
	}
	next := heaviest
	if len(first) > 0 {
		next = first[0]
	}
	var dist []float64
	for len(reps) < l {
		r := len(reps)
		reps = append(reps, next)
		far, farDist := -1, 0.0
		dist = row(dist, next)
		for p := range k {
			d := dist[p]
			if r == 0 || d < near[p] {
				near[p], of[p] = d, r
			}
			if near[p] > farDist {
				far, farDist = p, near[p]
			}
		}
		if r+1 < len(first) {
			next = first[r+1]
			continue
		}
		if far < 0 {
			break // every point coincides with a representative
		}
		next = far
	}
	for i, r := range reps {
		of[r] = i // a point chosen first stands for itself even at distance 0 from another
	}
	return reps, of
}
