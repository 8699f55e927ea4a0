package summary

import (
	"runtime"
	"strconv"
)

// localSizeVars name, per launcher, how many of its processes run on this
// node.
var localSizeVars = []string{"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMI_LOCAL_SIZE", "MV2_COMM_WORLD_LOCAL_SIZE", "SLURM_NTASKS_PER_NODE"}

// Workers returns how many goroutines a process writing one part of a
// summary decodes traces on: under a launcher whose environment (getenv)
// says how many of its processes share the node, the process's share of
// the cores it may run on (as an MPI rank uses its own, not all of the
// node's); otherwise 0, every core.
func Workers(getenv func(string) string) int {
	for _, v := range localSizeVars {
		if n, err := strconv.Atoi(getenv(v)); err == nil && n > 0 {
			return max(1, runtime.GOMAXPROCS(0)/n)
		}
	}
	return 0
}
