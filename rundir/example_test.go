package rundir_test

import (
	"fmt"
	"log"
	"os"
	"time"

	"github.com/difftrace/difftrace/rundir"
)

// A recorder writes run.json atomically; a reader reads it back, checked.
func Example() {
	dir, err := os.MkdirTemp("", "run")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := &rundir.Manifest{
		Schema: rundir.ManifestSchema, Tool: "difftrace", Format: "parlot-17",
		Backend: "uftrace", Images: "main", Prefix: rundir.DefaultPrefix,
		Command: []string{"./app"}, Start: start, End: start.Add(time.Second), Size: 2,
		Ranks: []rundir.Rank{
			{Rank: 1, Signal: "SIGTERM", KilledByTimeout: true, Threads: []rundir.Thread{{Thread: 0}}},
			{Rank: 0, Exited: true, Threads: []rundir.Thread{{Thread: 0}, {Thread: 1}}},
		},
	}
	m.Ranks[0].Status = rundir.Status("timeout", m.Ranks[0], "MPI_Recv")
	if err := rundir.WriteManifest(dir, m); err != nil {
		log.Fatal(err)
	}
	got, err := rundir.ReadManifest(dir + "/" + rundir.ManifestName)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range got.Ranks {
		fmt.Printf("rank %d: %s; files %s", r.Rank, r.Ended(), rundir.InfoName(got.Prefix, r.Rank))
		for _, th := range r.Threads {
			fmt.Print(" ", rundir.TraceName(got.Prefix, r.Rank, th.Thread))
		}
		fmt.Println()
	}
	fmt.Println(got.RankList())
	// Output:
	// rank 0: exited 0; files trace.0.info trace.0.0 trace.0.1
	// rank 1: timed out in MPI_Recv; files trace.1.info trace.1.0
	// ranks 0 to 1
}
