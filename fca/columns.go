package fca

// Columns holds some of a JSM's classes (qs), so that the similarities of
// one class to each of them (Row) are computed in one pass: for reading many
// rows against the same classes (scores against a sample, farthest-first
// traversals). The values are those of ClassAt, bit for bit.
type Columns struct {
	j  *JSM
	qs []int
}

// Columns returns the classes qs of j as Columns.
func (j *JSM) Columns(qs []int) *Columns { return &Columns{j: j, qs: qs} }

// Len returns the number of classes.
func (cs *Columns) Len() int { return len(cs.qs) }

// Row sets dst[y] to the similarity of class p to class qs[y], for every y,
// and returns dst (grown to Len if need be).
func (cs *Columns) Row(dst []float64, p int) []float64 {
	if cap(dst) < len(cs.qs) {
		dst = make([]float64, len(cs.qs))
	}
	dst = dst[:len(cs.qs)]
	j := cs.j
	if j.sim != nil {
		row := j.sim[p*j.k : (p+1)*j.k]
		for y, q := range cs.qs {
			dst[y] = row[q]
		}
		return dst
	}
	// Attribute sets are sparse: p's words laid out at their indices,
	// each q's nonzero words are looked up in them.
	sets := j.ctx.intents
	sp := sets.spread(nil, p)
	size := j.size[p]
	for y, q := range cs.qs {
		n := sets.interLenSpread(sp, q)
		s := 1.0
		if u := size + j.size[q] - float64(n); u > 0 {
			s = float64(n) / u
		}
		dst[y] = s
	}
	return dst
}
