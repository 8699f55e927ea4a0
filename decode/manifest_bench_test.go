package decode

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/difftrace/difftrace/trace"
)

// BenchmarkManifest reads the run.json of a run of n ranks of 4 threads,
// looks every rank up in it (as Open does for each function table) and
// makes the run's header (as summarize does); ns/op divided by n is the
// cost per rank, which stays flat when no step is quadratic.
func BenchmarkManifest(b *testing.B) {
	for _, n := range []int{25000, 250000} {
		b.Run(fmt.Sprintf("ranks=%d", n), func(b *testing.B) {
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			m := Manifest{Schema: ManifestSchema, Tool: "difftrace", Format: "parlot-17", Backend: "uftrace", Images: "main",
				Prefix: "trace", Command: []string{"/bin/app"}, Start: start, End: start.Add(time.Minute), Size: n}
			for r := range n {
				rk := Rank{Rank: r, Host: "node", PID: 1000 + r, Start: start, End: start.Add(time.Minute), Exited: true}
				for t := range 4 {
					rk.Threads = append(rk.Threads, Thread{Thread: t, TID: 5000 + t, Events: 10000, Bytes: 4000})
				}
				m.Ranks = append(m.Ranks, rk)
			}
			js, err := json.Marshal(&m)
			if err != nil {
				b.Fatal(err)
			}
			path := filepath.Join(b.TempDir(), ManifestName)
			if err := os.WriteFile(path, js, 0o644); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				got, err := ReadManifest(path)
				if err != nil {
					b.Fatal(err)
				}
				r := &Run{Manifest: got, Symbols: trace.NewTable()}
				for i := range n {
					rk, ok := got.Rank(i)
					if !ok {
						b.Fatalf("rank %d not found", i)
					}
					r.Procs = append(r.Procs, &Process{Index: i, Rank: rk})
				}
				if h := r.Header(); len(h.Procs) != n {
					b.Fatal("header")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/rank")
		})
	}
}
