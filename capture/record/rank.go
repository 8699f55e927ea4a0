package record

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// rankVars are the environment variables MPI launchers set to a process's
// rank, in the order they are consulted: Open MPI, MPICH/Intel MPI (PMI),
// PMIx, Slurm, MVAPICH.
var rankVars = []string{"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", "MV2_COMM_WORLD_RANK"}

// RankFromEnv returns the MPI rank of this process as its launcher set it,
// with the variable it came from; outside a launcher the rank is 0 and the
// variable "".
func RankFromEnv(getenv func(string) string) (int, string, error) {
	for _, v := range rankVars {
		s := getenv(v)
		if s == "" {
			continue
		}
		r, err := strconv.Atoi(s)
		if err != nil || r < 0 {
			return 0, v, fmt.Errorf("%s=%q is not a rank (a non-negative integer)", v, s)
		}
		return r, v, nil
	}
	return 0, "", nil
}

// launchVars identify one launch of a parallel job: every rank of it sees
// the same value.
var launchVars = [][]string{
	{"PMIX_NAMESPACE"},
	{"OMPI_MCA_ess_base_jobid"},
	{"SLURM_JOB_ID", "SLURM_STEP_ID"},
	{"PMI_KVSNAME"},
	{"MPIRUN_ID"},
}

// LaunchID returns an identifier shared by the recorders of one launch
// and different for the next one. Without a launcher it is unique to this
// process.
func LaunchID(getenv func(string) string, host string, pid int, start time.Time) string {
	for _, vs := range launchVars {
		id := ""
		for _, v := range vs {
			if x := getenv(v); x != "" {
				if id != "" {
					id += "."
				}
				id += x
			}
		}
		if id != "" {
			return vs[0] + "=" + id
		}
	}
	if _, v, _ := RankFromEnv(getenv); v != "" {
		// An unknown launcher: its ranks on one host share their parent.
		return fmt.Sprintf("host=%s,ppid=%d", host, os.Getppid())
	}
	return fmt.Sprintf("host=%s,pid=%d,start=%d", host, pid, start.UnixNano())
}
