package fca

import (
	"math/bits"
	"sync"
)

// Columns holds some of a JSM's classes (qs) side by side, so that the
// similarities of one class to each of them (Row) are computed in one pass
// over contiguous memory: for reading many rows against the same classes
// (scores against a sample, farthest-first traversals). The values are
// those of ClassAt, bit for bit.
//
// The classes are held by attribute word (64 attributes): for each word,
// the classes with an attribute in it and their bits there, or, for a word
// most classes use, every class's bits in a row. A row then reads only the
// words of its class, each along the classes, and the memory is that of
// the classes' nonzero words, not of a bitset over every attribute each.
type Columns struct {
	j     *JSM
	qs    []int
	words []column // by word index
	size  []float64
	tally sync.Pool // *[]int32 of len(qs)
}

// column is one attribute word of the classes: dense[y] for every y, or
// for the y in ys only, bits[x] for ys[x].
type column struct {
	dense []uint64
	ys    []int32
	bits  []uint64
}

// Columns returns the classes qs of j as Columns.
func (j *JSM) Columns(qs []int) *Columns {
	cs := &Columns{j: j, qs: qs}
	if j.sim != nil {
		return cs
	}
	sets := j.ctx.intents
	count := []int{} // classes of qs using each word
	for _, q := range qs {
		for x := sets.off[q]; x < sets.off[q+1]; x++ {
			i := int(sets.at[x])
			for len(count) <= i {
				count = append(count, 0)
			}
			count[i]++
		}
	}
	cs.words = make([]column, len(count))
	for i, n := range count {
		// A dense word costs 8 bytes a class, a sparse one 12 a class
		// using it.
		if 3*n >= 2*len(qs) {
			cs.words[i].dense = make([]uint64, len(qs))
		} else {
			cs.words[i].ys = make([]int32, 0, n)
			cs.words[i].bits = make([]uint64, 0, n)
		}
	}
	cs.size = make([]float64, len(qs))
	for y, q := range qs {
		cs.size[y] = j.size[q]
		for x := sets.off[q]; x < sets.off[q+1]; x++ {
			c := &cs.words[sets.at[x]]
			if c.dense != nil {
				c.dense[y] = sets.word[x]
			} else {
				c.ys = append(c.ys, int32(y))
				c.bits = append(c.bits, sets.word[x])
			}
		}
	}
	return cs
}

// Len returns the number of classes.
func (cs *Columns) Len() int { return len(cs.qs) }

// Row sets dst[y] to the similarity of class p to class qs[y], for every y,
// and returns dst (grown to Len if need be). Rows may be read concurrently.
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
	tp, _ := cs.tally.Get().(*[]int32)
	if tp == nil {
		t := make([]int32, len(cs.qs))
		tp = &t
	}
	n := *tp
	clear(n)
	sets := j.ctx.intents
	for x := sets.off[p]; x < sets.off[p+1]; x++ {
		i, w := int(sets.at[x]), sets.word[x]
		if i >= len(cs.words) {
			break
		}
		c := &cs.words[i]
		if c.dense != nil {
			d := c.dense[:len(n)]
			for y, b := range d {
				n[y] += int32(bits.OnesCount64(w & b))
			}
			continue
		}
		for x, y := range c.ys {
			n[y] += int32(bits.OnesCount64(w & c.bits[x]))
		}
	}
	sp := j.size[p]
	for y, m := range n {
		s := 1.0
		if u := sp + cs.size[y] - float64(m); u > 0 {
			s = float64(m) / u
		}
		dst[y] = s
	}
	cs.tally.Put(tp)
	return dst
}
