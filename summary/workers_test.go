package summary_test

import (
	"runtime"
	"testing"

	"github.com/difftrace/difftrace/summary"
)

// A process's share of the cores follows the launcher's count of
// processes on the node; outside a launcher it is every core (0).
func TestWorkers(t *testing.T) {
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	cores := runtime.GOMAXPROCS(0)
	for _, c := range []struct {
		vars map[string]string
		want int
	}{
		{nil, 0},
		{map[string]string{"OMPI_COMM_WORLD_LOCAL_SIZE": "1"}, cores},
		{map[string]string{"SLURM_NTASKS_PER_NODE": "2"}, max(1, cores/2)},
		{map[string]string{"PMI_LOCAL_SIZE": "100000"}, 1},
		{map[string]string{"MPI_LOCALNRANKS": "0", "OMPI_COMM_WORLD_LOCAL_SIZE": "x"}, 0},
	} {
		if got := summary.Workers(env(c.vars)); got != c.want {
			t.Errorf("Workers under %v = %d, want %d", c.vars, got, c.want)
		}
	}
}
