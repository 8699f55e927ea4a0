package rank

import (
	"errors"
	"testing"

	"github.com/difftrace/difftrace/cluster"
	"github.com/difftrace/difftrace/internal/param"
)

// A spec builds its grid with each value once, "all" standing for every
// linkage; a value that cannot be used is an error naming the parameter
// and the value, not a flag.
func TestGridSpec(t *testing.T) {
	ok := GridSpec{Filters: []string{"mpi", " mpi.col "}, Custom: "CPU_Exec", Ks: []int{10, 5, 10},
		Attrs: []string{"sing.noFreq", "doub.log10", "sing.noFreq"}, Linkages: []string{"ward", "all"}, SuspectShare: 0.4}
	g, err := ok.Grid()
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Filters) != 2 || g.Filters[1].Name() != "mpi.col+cust=CPU_Exec" || g.Prune {
		t.Errorf("filters %v (prune %v), want mpi and mpi.col with the custom expression, unpruned", g.Filters, g.Prune)
	}
	if len(g.Ks) != 2 || len(g.Modes) != 2 || len(g.Linkages) != len(cluster.Methods()) || g.Linkages[0] != cluster.Ward || g.SuspectShare != 0.4 {
		t.Errorf("grid %+v: want K 10 and 5, two modes, every linkage ward first, share 0.4", g)
	}
	if g, err := (GridSpec{Ks: []int{10}, Attrs: []string{"sing.noFreq"}, Linkages: []string{"ward"}, SuspectShare: SuspectShare}).Grid(); err != nil || !g.Prune || len(g.Filters) == 0 {
		t.Errorf("no filters: %v, %v; want every preset, pruned", g.Filters, err)
	}
	for _, c := range []struct {
		change func(*GridSpec)
		want   string
	}{
		{func(s *GridSpec) { s.Ks = []int{0} }, "K 0: the longest loop body must be between 1 and 10000 (10 is usual)"},
		{func(s *GridSpec) { s.Ks = nil }, "K: give at least one value"},
		{func(s *GridSpec) { s.SuspectShare = 2 }, "suspect share 2: want a share of the highest score above 0 and at most 1 (0.5 is the default)"},
		{func(s *GridSpec) { s.Linkages = []string{"foo"} }, `linkage "foo": want single, complete, average, weighted, centroid, median, ward, or all`},
		{func(s *GridSpec) { s.Attrs = []string{} }, "attrs: give at least one mode"},
		{func(s *GridSpec) { s.Filters = []string{"bogus"} }, `filters: filter "bogus+cust=CPU_Exec": unknown filter "bogus"`},
	} {
		s := ok
		c.change(&s)
		_, err := s.Grid()
		var pe *param.Error
		if err == nil || !errors.As(err, &pe) || len(err.Error()) < len(c.want) || err.Error()[:len(c.want)] != c.want {
			t.Errorf("got %v, want a parameter's error starting %q", err, c.want)
		}
	}
}
