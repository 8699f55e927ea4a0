package rank_test

import (
	"errors"
	"fmt"
	"log"
	"testing"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/rank"
)

// Measure how alike the odd/even sort's traces are under one view: the
// MPI filter, K 10, single attributes without frequencies, per thread.
func ExampleParamSpec() {
	p, err := rank.ParamSpec{Filter: "mpi", K: 10, Attrs: "sing.noFreq", Level: "thread"}.Params()
	if err != nil {
		log.Fatal(err)
	}
	c, err := compare.Open([]string{"../testdata/runs/oddeven-normal", "../testdata/runs/oddeven-swapbug"}, compare.Options{})
	if err != nil {
		log.Fatal(err)
	}
	sim, n, err := p.Similarity(c)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s, K %d, %s: %d traces, %d calls kept, lattice of the normal run: %d concepts\n",
		p.Filter.Name(), p.K, p.Mode, len(sim.IDs), n.Total(), sim.Lattice[compare.Normal].Len())
	// Output:
	// mpi, K 10, sing.noFreq: 16 traces, 1088 calls kept, lattice of the normal run: 4 concepts
}

// A value that cannot be used names its parameter, and the zero values of
// the attributes and the level are left alone.
func TestParamSpec(t *testing.T) {
	for _, c := range []struct {
		spec rank.ParamSpec
		name string
	}{
		{rank.ParamSpec{Filter: "bogus", K: 10}, "filter"},
		{rank.ParamSpec{Filter: "mpi", K: 0}, "K"},
		{rank.ParamSpec{Filter: "mpi", K: 10, Attrs: "doub.often"}, "attrs"},
		{rank.ParamSpec{Filter: "mpi", K: 10, Level: "node"}, "level"},
	} {
		_, err := c.spec.Params()
		var pe *param.Error
		if !errors.As(err, &pe) || pe.Name != c.name {
			t.Errorf("%+v: %v, want a parameter error of %s", c.spec, err, c.name)
		}
	}
	p, err := rank.ParamSpec{Filter: "omp.crit", K: 3}.Params()
	if err != nil || p.Filter.Name() != "omp.crit" || p.K != 3 || p.Mode != (fca.Mode{}) || p.Level != compare.Threads {
		t.Errorf("omp.crit, 3: %+v, %v", p, err)
	}
}
