package report

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/draw/hasse"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

// The lattice of a run's traces under one view, and whether it can be
// drawn.
func TestLatticeOf(t *testing.T) {
	c, err := compare.Open([]string{"../testdata/runs/ilcs-normal"}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := rank.ParamSpec{Filter: "omp", K: 10, Attrs: "sing.noFreq"}.Params()
	if err != nil {
		t.Fatal(err)
	}
	sim, _, err := p.Similarity(c)
	if err != nil {
		t.Fatal(err)
	}
	d, err := LatticeOf(sim, "ilcs-normal", p)
	if err != nil {
		t.Fatal(err)
	}
	if d.Filter != "omp" || d.Objects != 40 || len(d.Concepts) != d.Lattice.Len() || d.Drawable() != nil {
		t.Errorf("ilcs under omp: %s, %d objects, %d concepts of %d; drawable: %v", d.Filter, d.Objects, len(d.Concepts), d.Lattice.Len(), d.Drawable())
	}
	sim.Lattice[compare.Normal] = nil
	if _, err := LatticeOf(sim, "ilcs-normal", p); err == nil || !strings.Contains(err.Error(), "the lattice of ilcs-normal under omp, sing.noFreq is too large to build") {
		t.Errorf("no lattice: %v", err)
	}
}

// Ten traces each missing one call of ten have every subset of the calls
// as a concept: 1,024, too many to draw.
func TestLatticeNotDrawable(t *testing.T) {
	var ids []trace.ID
	var seqs []nlr.Sequence
	for i := range 10 {
		ids = append(ids, trace.ID{Proc: i})
		var s nlr.Sequence
		for j := range 10 {
			if j != i {
				s = append(s, nlr.Element{Loop: nlr.NoLoop, Sym: trace.Symbol(j + 1)})
			}
		}
		seqs = append(seqs, s)
	}
	ctx, err := fca.NewContext(fca.Mode{}, ids, seqs, func(s trace.Symbol) string { return fmt.Sprint("f", s) })
	if err != nil {
		t.Fatal(err)
	}
	lat, err := fca.BuildLattice(ctx, fca.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if lat.Len() <= hasse.MaxConcepts {
		t.Fatalf("%d concepts, want more than %d", lat.Len(), hasse.MaxConcepts)
	}
	err = NewConcepts(ctx, lat, "all", 10, fca.Mode{}, compare.Threads).Drawable()
	var a *param.Advice
	if !errors.As(err, &a) || !strings.Contains(err.Error(), fmt.Sprintf("the lattice has %d concepts", lat.Len())) {
		t.Errorf("%d concepts: %v", lat.Len(), err)
	}
}
