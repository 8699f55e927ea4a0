package fca

import "math/bits"

// Columns holds some of a JSM's classes (qs) side by side, so that the
// similarities of one class to each of them (Row) are computed in one pass
// over contiguous memory: for reading many rows against the same classes
// (scores against a sample, farthest-first traversals). The values are
// those of ClassAt, bit for bit.
type Columns struct {
	j     *JSM
	qs    []int
	words int
	flat  []uint64  // class qs[y]'s attribute bitset at flat[y*words:]
	size  []float64 // class qs[y]'s number of attributes
}

// Columns returns the classes qs of j as Columns.
func (j *JSM) Columns(qs []int) *Columns {
	cs := &Columns{j: j, qs: qs}
	if j.sim != nil {
		return cs
	}
	for _, q := range qs {
		cs.words = max(cs.words, len(j.ctx.ClassAttrs(q)))
	}
	cs.flat = make([]uint64, len(qs)*cs.words)
	cs.size = make([]float64, len(qs))
	for y, q := range qs {
		copy(cs.flat[y*cs.words:], j.ctx.ClassAttrs(q))
		cs.size[y] = j.size[q]
	}
	return cs
}

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
	// Attribute sets are sparse: only the words where p has attributes
	// can meet.
	var at []int
	var av []uint64
	for i, x := range j.ctx.ClassAttrs(p) {
		if x != 0 && i < cs.words {
			at, av = append(at, i), append(av, x)
		}
	}
	sp := j.size[p]
	w := cs.words
	for y := range dst {
		b := cs.flat[y*w : y*w+w]
		n := 0
		for x, i := range at {
			n += bits.OnesCount64(av[x] & b[i])
		}
		s := 1.0
		if u := sp + cs.size[y] - float64(n); u > 0 {
			s = float64(n) / u
		}
		dst[y] = s
	}
	return dst
}
