package fca

import (
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/difftrace/difftrace/trace"
)

// JSM is the Jaccard similarity matrix of a context's traces (seeds/002
// §3.2.5, Fig. 3.4): JSM[a][b] = |A ∩ B| / |A ∪ B| for the attribute sets A
// and B of traces a and b, and 1 when both sets are empty. It is stored per
// equivalence class and read per trace, so n traces in k classes cost k², not
// n². It implements mat.Symmetric.
type JSM struct {
	ids    []trace.ID
	class  []int     // trace → class
	k      int       // classes
	sim    []float64 // k×k, row-major; nil when computed as asked (LazyJSM)
	notice string
	// ctx and size (each class's number of attributes) compute the
	// similarities of a LazyJSM.
	ctx  *Context
	size []float64
}

var _ mat.Symmetric = (*JSM)(nil)

// Dims returns the number of traces, twice.
func (j *JSM) Dims() (r, c int) { return len(j.ids), len(j.ids) }

// SymmetricDim returns the number of traces.
func (j *JSM) SymmetricDim() int { return len(j.ids) }

// T returns j: the matrix is symmetric.
func (j *JSM) T() mat.Matrix { return j }

// At returns the similarity of traces a and b (object numbers of the
// context).
func (j *JSM) At(a, b int) float64 { return j.ClassAt(j.class[a], j.class[b]) }

// ClassAt returns the similarity of classes p and q.
func (j *JSM) ClassAt(p, q int) float64 {
	if j.sim != nil {
		return j.sim[p*j.k+q]
	}
	n := float64(j.ctx.interLen(p, q))
	if u := j.size[p] + j.size[q] - n; u > 0 {
		return n / u
	}
	return 1
}

// LazyJSM returns the JSM of c without computing it: each similarity is
// computed from the classes' attribute bitsets when asked, as BitsetJSM
// would have (the same arithmetic, the same values). For contexts of many
// classes, whose k² similarities would not fit in memory, and of which an
// analysis reads a bounded part.
func LazyJSM(c *Context) *JSM {
	k := c.NumClasses()
	size := make([]float64, k)
	for p := range k {
		size[p] = float64(c.classSize(p))
	}
	class := make([]int, c.Len())
	for o := range class {
		class[o] = c.Class(o)
	}
	return &JSM{ids: c.IDs(), class: class, k: k, ctx: c, size: size}
}

// IDs returns the trace IDs in row order.
func (j *JSM) IDs() []trace.ID { return append([]trace.ID(nil), j.ids...) }

// Notice is empty when the matrix was read off the concept lattice, and
// otherwise says why it was computed from bitsets (the values are the same).
func (j *JSM) Notice() string { return j.notice }

// Dense returns the full trace × trace matrix (an empty matrix for no
// traces).
func (j *JSM) Dense() *mat.SymDense {
	n := len(j.ids)
	if n == 0 {
		return &mat.SymDense{}
	}
	data := make([]float64, n*n)
	for a := range n {
		out := data[a*n : (a+1)*n]
		for b, cb := range j.class {
			out[b] = j.ClassAt(j.class[a], cb)
		}
	}
	return mat.NewSymDense(n, data)
}

// Similarity returns the JSM of c, read off c's concept lattice, and the
// lattice. If the lattice outgrows lim, the JSM is computed from bitsets
// instead, the returned lattice is nil and JSM.Notice says so.
func Similarity(c *Context, lim Limits) (*JSM, *Lattice, error) {
	l, err := BuildLattice(c, lim)
	var le *LimitError
	switch {
	case errors.As(err, &le):
		j := BitsetJSM(c)
		j.notice = fmt.Sprintf("the concept lattice outgrew its limit of %d concepts after %d of %d distinct attribute sets, so the similarity matrix was computed from attribute bitsets instead (the values are the same); raise the limit or use a coarser attribute mode to get the lattice",
			le.MaxConcepts, le.Added, le.Objects)
		return j, nil, nil
	case err != nil:
		return nil, nil, err
	}
	j, err := LatticeJSM(c, l)
	return j, l, err
}

// LatticeJSM reads the JSM of c off l, the lattice of c's classes
// (BuildLattice).
//
// Order theory: concepts are ordered by extent inclusion (see the package
// doc). For classes p and q with object concepts γp = (p″, p′) and γq, the
// join γp ∨ γq is the least concept above both — the one whose extent is the
// smallest extent holding p and q. Its intent is p′ ∩ q′: joining extents
// meets (intersects) intents. So |A ∩ B| is the intent size of the join of
// the two object concepts, and |A ∪ B| = |A| + |B| − |A ∩ B|.
//
// Row p is filled by visiting the concepts above γp from the most specific
// (largest intent) up: every class q not yet seen in an earlier concept's
// extent has its join with p at the current concept. Rows run in parallel
// and do not depend on each other, so the result does not depend on the
// number of cores.
func LatticeJSM(c *Context, l *Lattice) (*JSM, error) {
	k := c.NumClasses()
	if l.Objects() != k {
		return nil, fmt.Errorf("similarity: the lattice has %d objects but the context has %d classes; build it with BuildLattice", l.Objects(), k)
	}
	inter := make([]float64, k*k)
	forRows(k, func() func(p int) {
		mark := make([]uint32, l.Len())
		stamp := uint32(0)
		var up []int32
		seen := NewBitset(k)
		return func(p int) {
			// The concepts above γp.
			stamp++
			start := l.objConcept[p]
			mark[start] = stamp
			up = append(up[:0], start)
			for i := 0; i < len(up); i++ {
				for _, q := range l.cs[up[i]].parents {
					if mark[q] != stamp {
						mark[q] = stamp
						up = append(up, q)
					}
				}
			}
			slices.SortFunc(up, func(a, b int32) int {
				if d := l.cs[b].size - l.cs[a].size; d != 0 {
					return d
				}
				return int(a - b)
			})
			// Classes q ≥ p only; the lower triangle is mirrored below.
			clear(seen)
			w0 := p / 64
			seen[w0] = 1<<(uint(p)&63) - 1
			row := inter[p*k:]
			for _, ci := range up {
				size := float64(l.cs[ci].size)
				ext := l.extent(ci)
				for w := w0; w < len(ext); w++ {
					nb := ext[w] &^ seen[w]
					seen[w] |= nb
					for nb != 0 {
						row[w*64+bits.TrailingZeros64(nb)] = size
						nb &= nb - 1
					}
				}
			}
		}
	})
	return finishJSM(c, inter), nil
}

// BitsetJSM computes the JSM of c directly from the classes' attribute
// bitsets, without a lattice.
func BitsetJSM(c *Context) *JSM {
	k := c.NumClasses()
	inter := make([]float64, k*k)
	forRows(k, func() func(p int) {
		var sp []uint64
		return func(p int) {
			sp = c.intents.spread(sp, p)
			for q := p; q < k; q++ {
				inter[p*k+q] = float64(c.intents.interLenSpread(sp, q))
			}
		}
	})
	return finishJSM(c, inter)
}

// finishJSM turns the upper triangle of class intersection sizes into
// Jaccard similarities, in place, and mirrors it.
func finishJSM(c *Context, sim []float64) *JSM {
	k := c.NumClasses()
	size := make([]float64, k)
	for p := range k {
		size[p] = float64(c.classSize(p))
	}
	for p := range k {
		for q := p; q < k; q++ {
			n := sim[p*k+q]
			s := 1.0
			if u := size[p] + size[q] - n; u > 0 {
				s = n / u
			}
			sim[p*k+q], sim[q*k+p] = s, s
		}
	}
	class := make([]int, c.Len())
	for o := range class {
		class[o] = c.Class(o)
	}
	return &JSM{ids: c.IDs(), class: class, k: k, sim: sim}
}

// forRows runs row(p) for p = 0 … n-1 on all cores. Each worker gets its own
// row function (with its own scratch) from newWorker; rows are independent,
// so the result does not depend on scheduling.
func forRows(n int, newWorker func() func(p int)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/16))
	if workers <= 1 {
		row := newWorker()
		for p := range n {
			row(p)
		}
		return
	}
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		row := newWorker()
		wg.Go(func() {
			for {
				mu.Lock()
				p := next
				next += 8
				mu.Unlock()
				if p >= n {
					return
				}
				for q := p; q < min(p+8, n); q++ {
					row(q)
				}
			}
		})
	}
	wg.Wait()
}
