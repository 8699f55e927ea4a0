package compare

import (
	"slices"
	"testing"

	"github.com/difftrace/difftrace/filters"
)

func TestMissingTerms(t *testing.T) {
	for _, c := range []struct {
		filter, recorded string
		missing          []string
	}{
		{"mpi", "", nil},
		{"all", "all", nil},
		{"mem", "mpi+all", nil},
		{"mpi", "mpi+omp", nil},
		{"mpi.sr+omp.crit", "mpi+omp", nil},
		{"mpi.col+plt+ret", "mpi", nil},
		{"mpi", "mpi.sr", []string{"mpi"}},
		{"all", "mpi+omp", []string{"all"}},
		{"omp.mutex+mem", "mpi+omp", []string{"omp.mutex", "mem"}},
		{"mpi+cust=^solve$", "mpi+cust=^solve$", nil},
		{"cust=a+b", "mpi+cust=a+b", nil},
		{"cust=a", "mpi+cust=a+b", []string{"cust=a"}},
		{"cust=MPI_Send", "mpi", []string{"cust=MPI_Send"}},
	} {
		if got := missingTerms(filters.MustParse(c.filter), c.recorded); !slices.Equal(got, c.missing) {
			t.Errorf("filter %s on a run recorded with %q: missing %q, want %q", c.filter, c.recorded, got, c.missing)
		}
	}
}
