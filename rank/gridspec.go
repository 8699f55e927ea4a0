package rank

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/cluster"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/nlr"
)

// GridSpec is a grid as a user writes it: filter specs, values of K,
// attribute modes and linkages by name.
type GridSpec struct {
	// Filters are filter specs ("mpi", "mpi+omp.crit"); none means every
	// preset (DefaultFilters), pruned (Grid.Prune). Custom, a regular
	// expression, is added to every filter (WithCustom).
	Filters []string
	Custom  string
	Ks      []int
	// Attrs are attribute modes ("sing.noFreq"), Linkages linkage methods
	// ("ward"; "all" for every one).
	Attrs    []string
	Linkages []string
	// SuspectShare is Grid.SuspectShare: above 0, at most 1.
	SuspectShare float64
}

// Grid checks the spec and builds the grid, each value once in the order
// given. A value that cannot be used is a *param.Error naming the
// parameter: "filters", "custom", "K", "attrs", "linkage" or
// "suspect share".
func (s GridSpec) Grid() (Grid, error) {
	var g Grid
	var err error
	if !(s.SuspectShare > 0 && s.SuspectShare <= 1) {
		return g, param.Errorf("suspect share", strconv.FormatFloat(s.SuspectShare, 'g', -1, 64),
			"want a share of the highest score above 0 and at most 1 (%g is the default)", SuspectShare)
	}
	g.SuspectShare = s.SuspectShare
	if len(s.Filters) == 0 {
		if g.Filters, err = DefaultFilters(s.Custom); err != nil {
			return g, param.Wrap("custom", err)
		}
		g.Prune = true
	}
	for _, spec := range s.Filters {
		flt, err := filters.Parse(WithCustom(strings.TrimSpace(spec), s.Custom))
		if err != nil {
			return g, param.Wrap("filters", err)
		}
		g.Filters = append(g.Filters, flt)
	}
	for _, k := range s.Ks {
		if err := CheckK(k); err != nil {
			return g, err
		}
		g.Ks = appendNew(g.Ks, k)
	}
	for _, a := range s.Attrs {
		m, err := fca.ParseMode(strings.TrimSpace(a))
		if err != nil {
			return g, param.Wrap("attrs", err)
		}
		g.Modes = appendNew(g.Modes, m)
	}
	for _, l := range s.Linkages {
		if strings.EqualFold(strings.TrimSpace(l), "all") {
			for _, m := range cluster.Methods() {
				g.Linkages = appendNew(g.Linkages, m)
			}
			continue
		}
		m, err := cluster.ParseMethod(strings.TrimSpace(l))
		if err != nil {
			return g, param.Errorf("linkage", strconv.Quote(l), "want %s, or all", strings.Join(Names(cluster.Methods()), ", "))
		}
		g.Linkages = appendNew(g.Linkages, m)
	}
	switch {
	case len(g.Ks) == 0:
		return g, param.Errorf("K", "", "give at least one value")
	case len(g.Modes) == 0:
		return g, param.Errorf("attrs", "", "give at least one mode")
	case len(g.Linkages) == 0:
		return g, param.Errorf("linkage", "", "give at least one linkage")
	}
	return g, nil
}

// CheckK checks a value of K, the longest loop body: a *param.Error "K"
// unless it is between 1 and nlr.MaxK.
func CheckK(k int) error {
	if k < 1 || k > nlr.MaxK {
		return param.Errorf("K", strconv.Itoa(k), "the longest loop body must be between 1 and %d (10 is usual)", nlr.MaxK)
	}
	return nil
}

// Names returns the names of values such as fca.Modes() or
// cluster.Methods(), in order.
func Names[T fmt.Stringer](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return out
}

func appendNew[T comparable](s []T, v T) []T {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// SummaryGrid returns the filters and K a summary is made for by default:
// every filter of DefaultFilters(custom) and the extra ones (such as the
// hang analysis's), at each K of ks, none twice.
func SummaryGrid(custom string, extra []*filters.Filter) ([]*filters.Filter, error) {
	fs, err := DefaultFilters(custom)
	if err != nil {
		return nil, err
	}
	for _, f := range extra {
		if !slices.ContainsFunc(fs, func(g *filters.Filter) bool { return g.Name() == f.Name() }) {
			fs = append(fs, f)
		}
	}
	return fs, nil
}

// SummaryFilters returns the filters a summary is made for: those specs
// name, each with custom added (WithCustom), or, when specs is empty,
// SummaryGrid's. Each K of ks is checked (CheckK). Its errors are
// param.Errors of "K", "custom" and "filters".
func SummaryFilters(specs []string, custom string, ks []int, extra []*filters.Filter) ([]*filters.Filter, error) {
	for _, k := range ks {
		if err := CheckK(k); err != nil {
			return nil, err
		}
	}
	if len(specs) == 0 {
		fs, err := SummaryGrid(custom, extra)
		if err != nil {
			return nil, param.Wrap("custom", err)
		}
		return fs, nil
	}
	var fs []*filters.Filter
	for _, spec := range specs {
		f, err := filters.Parse(WithCustom(strings.TrimSpace(spec), custom))
		if err != nil {
			return nil, param.Wrap("filters", err)
		}
		fs = append(fs, f)
	}
	return fs, nil
}
