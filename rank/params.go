package rank

import (
	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/internal/param"
)

// ParamSpec is one point of the grid as a user writes it: a filter spec,
// K, an attribute mode and a level by name. It is what the analyses of
// one view take (the kept calls, the NLRs, a lattice, the JSMs, a hang's
// classes, a diffNLR), where GridSpec is what a sweep takes.
type ParamSpec struct {
	Filter string
	K      int
	// Attrs ("sing.noFreq") and Level ("thread", "process"), when "",
	// leave Params.Mode and Params.Level at their zero values.
	Attrs, Level string
}

// Params is a ParamSpec checked: the values one view is analysed under.
type Params struct {
	Filter *filters.Filter
	K      int
	Mode   fca.Mode
	Level  compare.Level
}

// Params checks the spec. A value that cannot be used is a *param.Error
// naming the parameter: "filter", "K", "attrs" or "level".
func (s ParamSpec) Params() (Params, error) {
	p := Params{K: s.K}
	var err error
	if p.Filter, err = filters.Parse(s.Filter); err != nil {
		return p, param.Wrap("filter", err)
	}
	if err := CheckK(s.K); err != nil {
		return p, err
	}
	if s.Attrs != "" {
		if p.Mode, err = fca.ParseMode(s.Attrs); err != nil {
			return p, param.Wrap("attrs", err)
		}
	}
	if s.Level != "" {
		if p.Level, err = compare.ParseLevel(s.Level); err != nil {
			return p, param.Wrap("level", err)
		}
	}
	return p, nil
}

// Recognize recognises the loops of c's traces under p's filter and K.
func (p Params) Recognize(c *compare.Comparison) (*compare.NLR, error) {
	res, err := c.Recognize([]*filters.Filter{p.Filter}, []int{p.K})
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

// Similarity recognises the loops of c's traces (Recognize) and measures
// the traces' similarity under p's attribute mode at p's level, with the
// lattices (compare.NLR.Similarity). It returns the NLRs too.
func (p Params) Similarity(c *compare.Comparison) (*compare.Similarity, *compare.NLR, error) {
	n, err := p.Recognize(c)
	if err != nil {
		return nil, nil, err
	}
	sim, err := n.Similarity(p.Mode, p.Level)
	return sim, n, err
}
