package rank

import (
	"math"

	"github.com/difftrace/difftrace/cluster"
	"slices"

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
			j = jsmOf(ctx)
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

// jsmOf returns the JSM of ctx computed from bitsets, stored when the
// context has at most MaxClasses classes, computed when asked otherwise.
func jsmOf(ctx *fca.Context) *fca.JSM {
	if ctx.NumClasses() > MaxClasses {
		return fca.LazyJSM(ctx)
	}
	return fca.BitsetJSM(ctx)
}

// classDistances returns the condensed distance matrix 1 − JSM of run r's
// equivalence classes (objects with the same attribute set), the number of
// objects in each class, and each object's class. With more than
// MaxClasses classes, the classes are MaxClasses representatives, each
// standing for the classes nearest to it (cluster.Representatives), and
// reps is the number of classes they stand for (0 otherwise).
func (s *Similarity) classDistances(r int) (d []float64, w, class []int, reps int) {
	c, j := s.Ctx[r], s.JSM[r]
	k := c.NumClasses()
	w = make([]int, k)
	for p := range w {
		w[p] = len(c.Members(p))
	}
	class = make([]int, c.Len())
	for o := range class {
		class[o] = c.Class(o)
	}
	at := func(p, q int) float64 { return 1 - j.ClassAt(p, q) }
	if k > MaxClasses {
		all := make([]int, k)
		for p := range all {
			all[p] = p
		}
		cols := j.Columns(all)
		rs, of := cluster.Representatives(k, MaxClasses, w, func(dst []float64, p int) []float64 {
			dst = cols.Row(dst, p)
			for q, s := range dst {
				dst[q] = 1 - s
			}
			return dst
		})
		rw := make([]int, len(rs))
		for p, x := range of {
			rw[x] += w[p]
		}
		for o := range class {
			class[o] = of[class[o]]
		}
		d = make([]float64, 0, len(rs)*(len(rs)-1)/2)
		for a := range rs {
			for b := a + 1; b < len(rs); b++ {
				d = append(d, at(rs[a], rs[b]))
			}
		}
		return d, rw, class, k
	}
	d = make([]float64, 0, k*(k-1)/2)
	for p := range k {
		for q := p + 1; q < k; q++ {
			d = append(d, at(p, q))
		}
	}
	return d, w, class, 0
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

// Suspect is an object whose JSM_D row changed: its ID, its score (see
// Scores) and how much its progress changed (see NLR.ProgressChange).
type Suspect struct {
	ID       trace.ID `json:"id"`
	Score    float64  `json:"score"`
	Progress float64  `json:"progress_change"`
	// Floor is the object's noise floor (Similarity.Floors): how much it
	// changed between the normal runs. It is 0 with one normal run.
	Floor float64 `json:"noise_floor,omitempty"`
}

// SuspectShare is the cut of Suspects: an object is suspicious when its
// score is at least this share of the highest score. A sweep takes another
// share from Grid.SuspectShare.
const SuspectShare = 0.5

// Suspects returns the objects whose JSM_D rows changed most: those with a
// score above zero and at least SuspectShare of the highest score, by
// descending score, then descending progress change, then ID.
//
// Why half of the highest: JSM_D is symmetric, so when one object i changes
// and nothing else does, its whole row moves while every other row moves in
// column i alone — the others score about 1/(n−1) of i's score and fall far
// below the cut. Objects that changed in the same way as the most changed
// one (the blocked neighbours of a deadlocked rank) score alike and stay
// above it, so a cut relative to the highest score lists them together
// instead of dropping all but one.
//
// Why progress breaks ties: objects with equal scores changed their
// similarity to the others equally, and JSM_D cannot tell them apart; the
// NLR can still say which one's loops ran furthest from their normal
// iteration counts (seeds/002 §3.2.4: loops "measure the progress of each
// thread, revealing unfinished or broken loops"). Of the ranks a deadlock
// stopped, the one that stopped first lost the most iterations.
func Suspects(ids []trace.ID, scores, progress []float64) []Suspect {
	return suspects(ids, scores, progress, SuspectShare)
}

// suspects is Suspects with the cut at share of the highest score
// (Grid.SuspectShare).
func suspects(ids []trace.ID, scores, progress []float64, share float64) []Suspect {
	top := 0.0
	for _, v := range scores {
		top = max(top, v)
	}
	if top == 0 {
		return nil
	}
	var out []Suspect
	for i, v := range scores {
		if v > 0 && v >= share*top {
			sus := Suspect{ID: ids[i], Score: v}
			if progress != nil {
				sus.Progress = progress[i]
			}
			out = append(out, sus)
		}
	}
	slices.SortStableFunc(out, func(a, b Suspect) int {
		switch {
		case a.Score != b.Score:
			return cmpDesc(a.Score, b.Score)
		case a.Progress != b.Progress:
			return cmpDesc(a.Progress, b.Progress)
		}
		return a.ID.Compare(b.ID)
	})
	return out
}

// Changed reports, for every object of level l, whether its NLR differs
// between the normal and the faulty run (for a process, the NLR of any of
// its threads), polling quieted: a faulty NLR equal to the trace's NLR in
// any of the normal runs is no change. With one run every object counts as
// changed.
func (n *NLR) Changed(l Level) []bool {
	objs, of := n.c.objectsOf(l)
	out := make([]bool, len(objs))
	if len(n.c.Runs) < 2 {
		for o := range out {
			out[o] = true
		}
		return out
	}
	faulty := n.analysisSeqs(Faulty)
	normals := n.c.Normals()
	seqs := make([][]nlr.Sequence, len(normals))
	for j, r := range normals {
		seqs[j] = n.analysisSeqs(r)
	}
	for i, o := range of {
		same := false
		for j := range normals {
			if seqs[j][i].Equal(faulty[i]) {
				same = true
				break
			}
		}
		if !same {
			out[o] = true
		}
	}
	return out
}

func cmpDesc(a, b float64) int {
	if a > b {
		return -1
	}
	return 1
}

// ProgressChange returns, for every object of level l, how much the loop
// iterations it completed (nlr.Table.Iterations, summed over a process's
// threads) changed between the normal run (I_n) and the faulty run (I_f):
// |I_f − I_n| / max(I_n, I_f), from 0 (the same) to 1 (no loop ran in one
// of the runs), rounded like scores. With one run it is all zeros.
func (n *NLR) ProgressChange(l Level) []float64 {
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
