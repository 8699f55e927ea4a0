package diffnlr

// LoopsAround exposes loopsAround to the external tests that check it
// against the mutation harness's loops.
func LoopsAround(h []uint64, c int) (firsts, periods, counts, iters []int) {
	reps, its := loopsAround(h, c)
	for i, r := range reps {
		firsts, periods, counts, iters = append(firsts, r.First), append(periods, r.Period), append(counts, r.Count), append(iters, its[i])
	}
	return firsts, periods, counts, iters
}
