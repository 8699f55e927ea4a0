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

// sizeVars pair each variable of rankVars with the one its launcher sets
// to the number of processes ("" where the launcher sets none).
var sizeVars = map[string]string{
	"OMPI_COMM_WORLD_RANK": "OMPI_COMM_WORLD_SIZE",
	"PMI_RANK":             "PMI_SIZE",
	"PMIX_RANK":            "",
	"SLURM_PROCID":         "SLURM_NTASKS",
	"MV2_COMM_WORLD_RANK":  "MV2_COMM_WORLD_SIZE",
}

// LaunchFromEnv returns this process's rank and the number of processes
// its launcher started, as the launcher's environment says; outside a
// launcher, rank 0 of 1.
func LaunchFromEnv(getenv func(string) string) (rank, size int, err error) {
	rank, v, err := RankFromEnv(getenv)
	if err != nil || v == "" {
		return rank, 1, err
	}
	sv := sizeVars[v]
	if sv == "" || getenv(sv) == "" {
		return 0, 0, fmt.Errorf("the launcher set %s but not how many processes it started (%s)", v, map[bool]string{true: "no variable for it", false: sv}[sv == ""])
	}
	size, err = strconv.Atoi(getenv(sv))
	if err != nil || size < 1 || rank >= size {
		return 0, 0, fmt.Errorf("%s=%q with %s=%q: not a rank among that many processes", sv, getenv(sv), v, getenv(v))
	}
	return rank, size, nil
}
