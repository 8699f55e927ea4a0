package report

import (
	"fmt"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/draw/hasse"
	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/rank"
)

// LatticeOf returns the Concepts of the normal run of sim, named run,
// whose similarity was measured under p (rank.Params.Similarity), or an
// error saying why its lattice was too large to build.
func LatticeOf(sim *compare.Similarity, run string, p rank.Params) (*Concepts, error) {
	ctx, lat := sim.Ctx[compare.Normal], sim.Lattice[compare.Normal]
	if lat == nil {
		return nil, fmt.Errorf("the lattice of %s under %s, %s is too large to build (%s); try a narrower filter or the noFreq attributes",
			run, p.Filter.Name(), p.Mode, sim.JSM[compare.Normal].Notice())
	}
	return NewConcepts(ctx, lat, p.Filter.Name(), p.K, p.Mode, p.Level), nil
}

// Drawable returns a *param.Advice when the lattice has more concepts
// than a readable diagram can show (hasse.MaxConcepts).
func (d *Concepts) Drawable() error {
	if n := d.Lattice.Len(); n > hasse.MaxConcepts {
		return param.Advise("the lattice has %d concepts, more than the %d a readable diagram can show; narrow the filter, use noFreq attributes or {the process level}", n, hasse.MaxConcepts)
	}
	return nil
}
