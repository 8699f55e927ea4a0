package nlr

import (
	"fmt"
	"slices"

	"github.com/difftrace/difftrace/internal/parallel"
)

// foldReference is Fold as it was before it streamed: every Discoverer in
// memory at once, the pass-1 bodies pooled before any is expanded. Tests
// check that Fold gives the same NLRs and tables.
func foldReference(ds []Discovered, workers int) ([]Sequence, *Table, error) {
	order, err := canonicalOrderReference(ds)
	if err != nil {
		return nil, nil, err
	}
	structural := false
	for _, d := range ds {
		if d.D.keep != nil {
			d.D.finish()
			d.D.structural = true
		}
		structural = structural || d.D.structural
	}

	// Pool the pass-1 bodies in canonical order. A body only mentions
	// bodies found before it, so each trace's IDs translate in one sweep.
	shared := newBodies()
	var scratch []byte
	var tmp []uint64
	maps := make([][]int32, len(ds))
	for _, i := range order {
		own := ds[i].D.r.own
		m := make([]int32, own.len())
		for j := range own.len() {
			tmp = translate(tmp[:0], own.body(j), 0, m)
			m[j] = shared.intern(tmp, &scratch)
		}
		maps[i] = m
	}

	// Folded by call structure: splice the tokens that did not repeat, so
	// that pass 2 and the numbering see flat NLRs (in canonical order, so
	// that the new bodies are numbered alike whatever the scheduling).
	if structural {
		x := newExpander(shared)
		for _, i := range order {
			r := ds[i].D.r
			for p, key := range r.stack {
				if isLoopKey(key) {
					r.stack[p] = withID(key, maps[i][keyID(key)])
				}
			}
			r.stack = x.all(r.stack)
			maps[i] = nil // the stack is in shared IDs already
		}
		shared = x.out
	}

	// Pass 2, in parallel against the pooled bodies.
	r2 := make([]*reducer, len(ds))
	k := 0
	if len(ds) > 0 {
		k = ds[0].D.r.k
	}
	ends := endsOf(shared)
	parallel.Each(len(ds), workers, func(i int) {
		d := ds[i].D
		st := d.r.stack
		for p, key := range st {
			if isLoopKey(key) && maps[i] != nil {
				st[p] = withID(key, maps[i][keyID(key)])
			}
		}
		r := newReducer(k, shared)
		r.fold(d.r, ends)
		d.r = nil // the Discoverer is spent
		r2[i] = r
	})

	// Pool the bodies pass 2 found, again in canonical order.
	base := shared.len()
	for _, i := range order {
		own := r2[i].own
		m := make([]int32, own.len())
		for j := range own.len() {
			tmp = translate(tmp[:0], own.body(j), base, m)
			m[j] = shared.intern(tmp, &scratch)
		}
		maps[i] = m
	}

	// Translate every stack to pooled IDs.
	parallel.Each(len(ds), workers, func(i int) {
		st, m := r2[i].stack, maps[i]
		for p, key := range st {
			if isLoopKey(key) {
				if id := keyID(key); id >= base {
					st[p] = withID(key, m[id-base])
				}
			}
		}
	})
	// List the loops each trace mentions in order of first appearance.
	firsts := make([][]int32, len(ds))
	parallel.Each(len(ds), workers, func(i int) {
		seen := map[int32]bool{}
		for _, key := range r2[i].stack {
			if isLoopKey(key) {
				if id := keyID(key); !seen[id] {
					seen[id] = true
					firsts[i] = append(firsts[i], id)
				}
			}
		}
	})

	// Number the loops: first appearance in canonical order, inner loops
	// before the loop that holds them; bodies no trace mentions (none are
	// expected) come last, in pooling order.
	final := make([]int32, shared.len())
	for p := range final {
		final[p] = -1
	}
	next := int32(0)
	var number func(p int32)
	number = func(p int32) {
		if final[p] >= 0 {
			return
		}
		for _, key := range shared.body(p) {
			if isLoopKey(key) {
				number(keyID(key))
			}
		}
		final[p] = next
		next++
	}
	for _, i := range order {
		for _, p := range firsts[i] {
			number(p)
		}
	}
	for p := range shared.len() {
		number(p)
	}

	t := &Table{bodies: make([]Sequence, shared.len()), index: make(map[string]int32, shared.len())}
	for p := range shared.len() {
		body := toSequence(shared.body(p), final)
		t.bodies[final[p]] = body
		t.index[string(encodeKeys(&scratch, body.keys()))] = final[p]
	}
	t.countInner()
	seqs := make([]Sequence, len(ds))
	parallel.Each(len(ds), workers, func(i int) {
		seqs[i] = toSequence(r2[i].stack, final)
		r2[i] = nil
	})
	return seqs, t, nil
}

// canonicalOrderReference checks the traces of a comparison and returns their
// indexes sorted by run, then trace ID.
func canonicalOrderReference(ds []Discovered) ([]int, error) {
	order := make([]int, len(ds))
	for i, d := range ds {
		if d.D == nil || d.D.r == nil {
			return nil, fmt.Errorf("nlr: trace %s of run %d has no Discoverer, or one already folded", d.ID, d.Run)
		}
		if d.D.r.k != ds[0].D.r.k {
			return nil, fmt.Errorf("nlr: trace %s of run %d was discovered with K = %d, trace %s of run %d with K = %d; one comparison uses one K",
				d.ID, d.Run, d.D.r.k, ds[0].ID, ds[0].Run, ds[0].D.r.k)
		}
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if ds[a].Run != ds[b].Run {
			return ds[a].Run - ds[b].Run
		}
		return ds[a].ID.Compare(ds[b].ID)
	})
	for j := 1; j < len(order); j++ {
		a, b := ds[order[j-1]], ds[order[j]]
		if a.Run == b.Run && a.ID == b.ID {
			return nil, fmt.Errorf("nlr: trace %s appears twice in run %d", a.ID, a.Run)
		}
	}
	return order, nil
}
