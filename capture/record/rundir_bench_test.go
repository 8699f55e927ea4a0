package record

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/difftrace/difftrace/decode"
)

// BenchmarkRecordManifest has the recorders of a run of n ranks each claim
// the run directory and then write their end (into the rank log), one
// after the other, as a launch's recorders do under the directory's lock,
// and the last one assemble run.json; ns/op is the whole run's. A cost that grows with n² shows as ns/op growing 4×
// per doubling of n.
func BenchmarkRecordManifest(b *testing.B) {
	for _, n := range []int{250, 1000, 4000, 16000, 64000, 250000} {
		b.Run(fmt.Sprintf("ranks=%d", n), func(b *testing.B) {
			tm := tmplFor("job=1")
			tm.Size = n
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			for b.Loop() {
				dir := filepath.Join(b.TempDir(), "run")
				for r := range n {
					rk := decode.Rank{Rank: r, Host: "node", PID: 1000 + r, Start: start}
					if err := claimRunDir(dir, tm, rk, false); err != nil {
						b.Fatal(err)
					}
				}
				for r := range n {
					rk := decode.Rank{Rank: r, Host: "node", PID: 1000 + r, Start: start, End: start.Add(time.Minute), Exited: true}
					for t := range 4 {
						rk.Threads = append(rk.Threads, decode.Thread{Thread: t, TID: 5000 + t, Events: 10000, Bytes: 4000})
					}
					if err := updateRank(dir, tm, rk); err != nil {
						b.Fatal(err)
					}
				}
				if err := assemble(dir); err != nil { // as the last recorder does
					b.Fatal(err)
				}
				m, err := decode.ReadManifest(filepath.Join(dir, decode.ManifestName))
				if err != nil || len(m.Ranks) != n {
					b.Fatalf("%d ranks read back (%v)", len(m.Ranks), err)
				}
			}
		})
	}
}
