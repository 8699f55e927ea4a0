package compare

import (
	"math"

	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// Similarity holds the formal contexts and Jaccard similarity matrices of
// every run of a comparison at one level, under one filter, K and attribute
// mode (seeds/002 §3.2.5–3.2.6). Both runs have the same rows: the objects of
// the whole comparison.
type Similarity struct {
	Level   Level
	IDs     []trace.ID     // the objects, rows and columns of every matrix
	Ctx     []*fca.Context // per run
	JSM     []*fca.JSM     // per run: JSM_normal, JSM_faulty
	Lattice []*fca.Lattice // per run; nil where the JSM came from bitsets (always in a sweep)
	Notices []string       // why a JSM was computed from bitsets, if one was
}

// Similarity builds the contexts, lattices and JSMs of every run at level l
// under mode m; each JSM is read off its run's lattice (fca.Similarity).
func (n *NLR) Similarity(m fca.Mode, l Level) (*Similarity, error) {
	return n.similarity(m, l, true)
}

// similarity builds the contexts and JSMs of every run at level l under
// mode m, with the lattices when lattices is set. Without them each JSM is
// computed from the attribute bitsets (fca.BitsetJSM): the same values (fca
// tests that both ways agree), at a cost bounded by the number of distinct
// attribute sets squared, where a lattice can have exponentially many
// concepts. The sweep, which shows no lattice, takes this way.
func (n *NLR) similarity(m fca.Mode, l Level, lattices bool) (*Similarity, error) {
	ctxs := make([]*fca.Context, len(n.c.Runs))
	loose := n.loose(m)
	for r := range n.c.Runs {
		var err error
		if ctxs[r], err = n.context(r, m, l, loose); err != nil {
			return nil, err
		}
	}
	return n.similarityOf(l, ctxs, lattices)
}

// BitsetSimilarity builds the contexts and JSMs of every run at level l
// under mode m without lattices: each JSM is computed from the attribute
// bitsets (see similarity). A ranking, which shows no lattice, takes this
// way.
func (n *NLR) BitsetSimilarity(m fca.Mode, l Level) (*Similarity, error) {
	return n.similarity(m, l, false)
}

// ProcessSimilarity returns the process-level similarity (from bitsets,
// as BitsetSimilarity) whose thread-level one is ts: its contexts merge
// the thread contexts of ts (see Context).
func (n *NLR) ProcessSimilarity(ts *Similarity) (*Similarity, error) {
	ctxs := make([]*fca.Context, len(ts.Ctx))
	for r, tc := range ts.Ctx {
		var err error
		if ctxs[r], err = n.processContext(tc); err != nil {
			return nil, err
		}
	}
	return n.similarityOf(Processes, ctxs, false)
}

// similarityOf computes the JSMs (and lattices, if asked) of the contexts
// ctxs of every run at level l.
func (n *NLR) similarityOf(l Level, ctxs []*fca.Context, lattices bool) (*Similarity, error) {
	s := &Similarity{Level: l, IDs: n.c.Objects(l)}
	for r, ctx := range ctxs {
		var err error
		var j *fca.JSM
		var lat *fca.Lattice
		if lattices {
			if j, lat, err = fca.Similarity(ctx, fca.Limits{}); err != nil {
				return nil, err
			}
			if j.Notice() != "" {
				s.Notices = append(s.Notices, n.c.Runs[r].Dir+": "+j.Notice())
			}
		} else {
			j = JSMOf(ctx)
		}
		s.Ctx = append(s.Ctx, ctx)
		s.JSM = append(s.JSM, j)
		s.Lattice = append(s.Lattice, lat)
	}
	return s, nil
}

// Diff returns JSM_D[a][b] = |JSM_faulty[a][b] − JSM_normal[a][b]|, how much
// the similarity of objects a and b changed from the normal to the faulty
// run. With one run it is 0.
func (s *Similarity) Diff(a, b int) float64 {
	if len(s.JSM) < 2 {
		return 0
	}
	d := s.JSM[Faulty].At(a, b) - s.JSM[Normal].At(a, b)
	if d < 0 {
		d = -d
	}
	return d
}

// DiffMatrix returns JSM_D as a dense row-major n×n matrix.
func (s *Similarity) DiffMatrix() []float64 {
	n := len(s.IDs)
	out := make([]float64, n*n)
	for a := range n {
		for b := range n {
			out[a*n+b] = s.Diff(a, b)
		}
	}
	return out
}

// MaxClasses bounds the attribute sets (equivalence classes) a run is
// clustered on in the sweep: with more, as many representatives are chosen
// (farthest first, cluster.Representatives) and every class counts as its
// nearest representative. It also bounds the similarities a run's JSM
// stores: with more classes they are computed when asked (fca.LazyJSM).
const MaxClasses = 1024

// MaxScoreJoints bounds the joint classes (a class in each run) whose
// pairs Scores sums over exactly; with more, each joint class's score is
// summed over a sample of this many, spread evenly in order of first
// appearance and standing for the joint classes between them.
const MaxScoreJoints = 4096

// JSMOf returns the JSM of ctx computed from its classes' attributes,
// stored when the context has at most MaxClasses classes, computed when
// asked otherwise (k² similarities of a million traces would not fit).
func JSMOf(ctx *fca.Context) *fca.JSM {
	if ctx.NumClasses() > MaxClasses {
		return fca.LazyJSM(ctx)
	}
	return fca.BitsetJSM(ctx)
}

// Scores returns, for every object, how much its row of JSM_D changed: the
// mean of JSM_D[i][j] over the other objects j,
//
//	score(i) = Σ_{j≠i} |JSM_faulty[i][j] − JSM_normal[i][j]| / (n − 1),
//
// between 0 (it relates to every other object exactly as before) and 1,
// rounded to 9 decimals. This is the "row that changed the most" of
// seeds/002 §3.2.7.
func (s *Similarity) Scores() []float64 { return s.ScoresOf(nil) }

// ScoresOf returns the scores of the objects o with want[o] set, as Scores
// computes them, and 0 for the others; nil wants every object. A ranking
// needs the scores of the objects that changed only, which in a large run
// are few.
func (s *Similarity) ScoresOf(want []bool) []float64 {
	n := len(s.IDs)
	out := make([]float64, n)
	if n < 2 || len(s.JSM) < 2 {
		return out
	}
	// An object's score depends only on its class in each run (its joint
	// class): the sum runs over joint classes, weighted by their sizes,
	// in the order of their first objects, so n objects in k joint classes
	// cost k², not n². (An object's own term is |1 − 1| = 0.)
	cn, cf := s.Ctx[Normal], s.Ctx[Faulty]
	jn, jf := s.JSM[Normal], s.JSM[Faulty]
	type joint struct{ p, q int }
	index := map[joint]int{}
	var joints []joint
	var count []float64
	of := make([]int, n)
	for o := range n {
		j := joint{cn.Class(o), cf.Class(o)}
		x, ok := index[j]
		if !ok {
			x = len(joints)
			index[j] = x
			joints = append(joints, j)
			count = append(count, 0)
		}
		count[x]++
		of[o] = x
	}
	// Beyond MaxScoreJoints, every stride-th joint class stands for the
	// stride of them that it starts.
	sample, weight := joints, count
	if len(joints) > MaxScoreJoints {
		stride := (len(joints) + MaxScoreJoints - 1) / MaxScoreJoints
		sample, weight = nil, nil
		for y := 0; y < len(joints); y += stride {
			sum := 0.0
			for _, c := range count[y:min(y+stride, len(count))] {
				sum += c
			}
			sample, weight = append(sample, joints[y]), append(weight, sum)
		}
	}
	need := make([]bool, len(joints))
	for o, x := range of {
		need[x] = need[x] || want == nil || want[o]
	}
	ps, qs := make([]int, len(sample)), make([]int, len(sample))
	for y, b := range sample {
		ps[y], qs[y] = b.p, b.q
	}
	coln, colf := jn.Columns(ps), jf.Columns(qs)
	var rown, rowf []float64
	score := make([]float64, len(joints))
	for x, a := range joints {
		if !need[x] {
			continue
		}
		rown, rowf = coln.Row(rown, a.p), colf.Row(rowf, a.q)
		sum := 0.0
		for y := range sample {
			d := rowf[y] - rown[y]
			if d < 0 {
				d = -d
			}
			sum += weight[y] * d
		}
		score[x] = math.Round(sum/float64(n-1)*scoreScale) / scoreScale
	}
	for o := range out {
		if want == nil || want[o] {
			out[o] = score[of[o]]
		}
	}
	return out
}

// scoreScale rounds scores to 9 decimals: rows that hold the same changes in
// another order (the two neighbours of a rank) sum to the same value up to
// the last bits, and must tie.
const scoreScale = 1e9

// Changed reports, for every object of level l, whether its NLR differs
// between the normal and the faulty run (for a process, the NLR of any of
// its threads), polling quieted: a faulty NLR equal to the trace's NLR in
// any of the normal runs is no change. With one run every object counts as
// changed. The result is made once per level; do not change it.
func (n *NLR) Changed(l Level) []bool {
	n.changedOnce[l].Do(func() { n.changed[l] = n.changedOf(l) })
	return n.changed[l]
}

func (n *NLR) changedOf(l Level) []bool {
	objs, of := n.c.objectsOf(l)
	out := make([]bool, len(objs))
	if len(n.c.Runs) < 2 {
		for o := range out {
			out[o] = true
		}
		return out
	}
	v := n.analysis()
	normals := n.c.Normals()
	for i, o := range of {
		// NLRs stored as one are equal, and as two are not (the store
		// holds each distinct one once): only those the view does not
		// name are expanded to compare.
		same := false
		fx := v.name(Faulty, i)
		var faulty nlr.Sequence
		for _, r := range normals {
			if x := v.name(r, i); x >= 0 && fx >= 0 {
				same = x == fx
			} else {
				if faulty == nil {
					faulty = v.at(Faulty, i)
				}
				same = v.at(r, i).Equal(faulty)
			}
			if same {
				break
			}
		}
		if !same {
			out[o] = true
		}
	}
	return out
}

// ProgressChange returns, for every object of level l, how much the loop
// iterations it completed (nlr.Table.Iterations, summed over a process's
// threads) changed between the normal run (I_n) and the faulty run (I_f):
// |I_f − I_n| / max(I_n, I_f), from 0 (the same) to 1 (no loop ran in one
// of the runs), rounded like scores. With one run it is all zeros. The
// result is made once per level; do not change it.
func (n *NLR) ProgressChange(l Level) []float64 {
	n.progressOnce[l].Do(func() { n.progress[l] = n.progressOf(l) })
	return n.progress[l]
}

func (n *NLR) progressOf(l Level) []float64 {
	objs, of := n.c.objectsOf(l)
	out := make([]float64, len(objs))
	if len(n.c.Runs) < 2 {
		return out
	}
	iters := make([][2]float64, len(objs))
	for i, o := range of {
		for r := range 2 {
			iters[o][r] += float64(n.Table.Iterations(n.Seq(r, i)))
		}
	}
	for o, it := range iters {
		if m := max(it[0], it[1]); m > 0 {
			d := it[1] - it[0]
			if d < 0 {
				d = -d
			}
			out[o] = math.Round(d/m*scoreScale) / scoreScale
		}
	}
	return out
}
