package rank

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/internal/synth"
	"github.com/difftrace/difftrace/trace"
)

// benchRank ranks normal against faulty with the default grid b.N times and
// returns the last ranking. It reports the events decoded per second and
// the peak of live heap seen between GCs (sampled, so a lower bound of what
// the process held).
func benchRank(b *testing.B, normal, faulty string, alsoNormal ...string) *Ranking {
	b.Helper()
	g := defaultGrid(b, "")
	var rk *Ranking
	var events uint64
	peak := heapPeak()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		c, err := compare.Open(append([]string{normal, faulty}, alsoNormal...), compare.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if rk, err = sweep(c, g, nil); err != nil {
			b.Fatal(err)
		}
		events = 0
		for _, run := range c.Runs {
			for _, p := range run.Procs {
				if p.Rank == nil {
					continue
				}
				for _, t := range p.Rank.Threads {
					events += t.Events
				}
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(rk.Rows)), "rows")
	if events > 0 {
		b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
	}
	b.ReportMetric(float64(peak.stop())/(1<<20), "peak-heap-MB")
	return rk
}

// BenchmarkRankExamples ranks the committed example pairs with the default
// grid (the work of "difftrace rank NORMAL FAULTY").
func BenchmarkRankExamples(b *testing.B) {
	for _, pair := range [][2]string{{"oddeven-normal", "oddeven-swapbug"}, {"ilcs-normal", "ilcs-critbug"}} {
		b.Run(pair[1], func(b *testing.B) {
			rk := benchRank(b, filepath.Join(runsDir, pair[0]), filepath.Join(runsDir, pair[1]))
			want := map[string]trace.ID{"oddeven-swapbug": tid(5, 0), "ilcs-critbug": tid(6, 4)}[pair[1]]
			if rk.ThreadVotes[0].ID != want {
				b.Fatalf("consensus %v, want %v first", rk.ThreadVotes[:2], want)
			}
		})
	}
}

// BenchmarkRankNoise ranks the committed task farm (testdata/noise: 8
// ranks, about 1.4 million calls a run) whose worker 3 skips one verify(),
// with one normal run and with a second one given as further normal run
// (what telling noise from the bug costs).
func BenchmarkRankNoise(b *testing.B) {
	dir := filepath.Join(runsDir, "..", "noise")
	b.Run("one-normal", func(b *testing.B) {
		benchRank(b, filepath.Join(dir, "farm-1"), filepath.Join(dir, "farm-skipverify"))
	})
	b.Run("two-normal", func(b *testing.B) {
		rk := benchRank(b, filepath.Join(dir, "farm-1"), filepath.Join(dir, "farm-skipverify"), filepath.Join(dir, "farm-2"))
		if rk.ThreadVotes[0].ID != tid(3, 0) {
			b.Fatalf("consensus %v, want 3.0 first", rk.ThreadVotes[:1])
		}
	})
}

// BenchmarkRankGenerated ranks a generated pair of runs (genSpec) of 1,024
// traces — 256 processes of a master and 3 workers — with at least 100,000
// events each, 204.8 million events in all, with the default grid. The
// faulty run has two planted bugs, and the benchmark fails unless the
// consensus finds both: the master of process 137 runs one more kernel per
// step from mid-run on, and worker 152.2 drops its critical sections from
// mid-run on.
//
// DIFFTRACE_BENCH_SCALE=small runs 64 processes × 4 threads × 20,000 events
// instead, for a quick check.
func BenchmarkRankGenerated(b *testing.B) {
	spec := genSpec(256, 4, 100_000, 137, [2]int{152, 2})
	if os.Getenv("DIFFTRACE_BENCH_SCALE") == "small" {
		spec = genSpec(64, 4, 20_000, 37, [2]int{51, 2})
	}
	normal, faulty := generatedPair(b, spec)
	rk := benchRank(b, normal, faulty)
	checkPlanted(b, rk, spec)
}

// generatedPair writes the normal and the faulty run of spec under a
// temporary directory, once per process (the runs are the same every time).
func generatedPair(b *testing.B, spec synth.Spec) (normal, faulty string) {
	b.Helper()
	key := fmt.Sprintf("%+v", spec)
	genMu.Lock()
	defer genMu.Unlock()
	if dirs, ok := genDirs[key]; ok {
		return dirs[0], dirs[1]
	}
	dir, err := os.MkdirTemp("", "difftrace-rank-bench")
	if err != nil {
		b.Fatal(err)
	}
	genCleanup = append(genCleanup, dir)
	normal, faulty = filepath.Join(dir, "normal"), filepath.Join(dir, "faulty")
	if _, err := synth.Write(normal, spec); err != nil {
		b.Fatal(err)
	}
	spec.Faulty = true
	if _, err := synth.Write(faulty, spec); err != nil {
		b.Fatal(err)
	}
	genDirs[key] = [2]string{normal, faulty}
	return normal, faulty
}

var (
	genMu      sync.Mutex
	genDirs    = map[string][2]string{}
	genCleanup []string
)

// TestMain removes the generated runs after the benchmarks.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range genCleanup {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

// checkPlanted fails unless the consensus puts the two planted traces of
// spec (genSpec) first: between them they take every first place, each at
// least once.
func checkPlanted(tb testing.TB, rk *Ranking, spec synth.Spec) {
	tb.Helper()
	rows, crit := spec.Bugs[0].Trace(), spec.Bugs[1].Trace()
	if len(rk.ThreadVotes) < 2 {
		tb.Fatalf("consensus %v, want the two planted traces", rk.ThreadVotes)
	}
	top := map[trace.ID]bool{rk.ThreadVotes[0].ID: true, rk.ThreadVotes[1].ID: true}
	if !top[rows] || !top[crit] || len(rk.ThreadVotes) > 2 && rk.ThreadVotes[2].First > 0 {
		tb.Fatalf("consensus %v, want %v and %v first, nobody else", rk.ThreadVotes[:min(4, len(rk.ThreadVotes))], rows, crit)
	}
	if len(rk.ProcessVotes) < 2 {
		tb.Fatalf("process consensus %v, want the two planted processes", rk.ProcessVotes)
	}
	ptop := map[trace.ID]bool{rk.ProcessVotes[0].ID: true, rk.ProcessVotes[1].ID: true}
	if !ptop[rows.Process()] || !ptop[crit.Process()] {
		tb.Fatalf("process consensus %v, want %v and %v", rk.ProcessVotes[:min(4, len(rk.ProcessVotes))], rows.Process(), crit.Process())
	}
}

// heapSampler samples the heap in use every 10 ms until stopped: a lower
// bound of the peak (the benchmark's figures in BENCHMARKS.md add the peak
// RSS measured by /usr/bin/time).
type heapSampler struct {
	done chan struct{}
	max  chan uint64
}

// heapPeak starts sampling the heap in use.
func heapPeak() *heapSampler {
	h := &heapSampler{done: make(chan struct{}), max: make(chan uint64)}
	runtime.GC()
	go func() {
		var peak uint64
		var ms runtime.MemStats
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-h.done:
				h.max <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return h
}

func (h *heapSampler) stop() uint64 {
	close(h.done)
	return <-h.max
}
