package rundir

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkReadManifest reads the run.json of n ranks of 4 threads each,
// alone (assembled) and as a run cut short leaves it: the first rank's
// entry in run.json, every rank's start and end in the rank log.
// ns/rank that stays flat as n grows says the reading is linear.
func BenchmarkReadManifest(b *testing.B) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rank := func(r int, end bool) Rank {
		rk := Rank{Rank: r, Host: "node", PID: 1000 + r, Start: t0}
		if end {
			rk.End, rk.Exited = t0.Add(time.Minute), true
			for t := range 4 {
				rk.Threads = append(rk.Threads, Thread{Thread: t, TID: 5000 + t, Events: 10000, Bytes: 4000})
			}
		}
		return rk
	}
	for _, n := range []int{25_000, 250_000} {
		for _, logged := range []bool{false, true} {
			name := fmt.Sprintf("ranks=%d/assembled", n)
			if logged {
				name = fmt.Sprintf("ranks=%d/logged", n)
			}
			b.Run(name, func(b *testing.B) {
				dir := b.TempDir()
				m := &Manifest{Schema: 1, Tool: "difftrace", Prefix: "trace", Size: n, Start: t0}
				if logged {
					m.Ranks = []Rank{rank(0, false)}
				} else {
					for r := range n {
						m.Ranks = append(m.Ranks, rank(r, true))
					}
				}
				if err := WriteManifest(dir, m); err != nil {
					b.Fatal(err)
				}
				if logged {
					for r := range n {
						if err := AppendRank(dir, rank(r, false)); err != nil {
							b.Fatal(err)
						}
						if err := AppendRank(dir, rank(r, true)); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ResetTimer()
				for b.Loop() {
					got, err := ReadManifest(filepath.Join(dir, ManifestName))
					if err != nil || len(got.Ranks) != n {
						b.Fatalf("%v, %d ranks read", err, len(got.Ranks))
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/rank")
			})
		}
	}
}
