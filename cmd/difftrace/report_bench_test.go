package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/difftrace/difftrace/internal/synth"
)

// BenchmarkReportGenerated times the whole "difftrace report" command, and
// "difftrace rank" beside it, on generated pairs of runs as "genrun -procs
// P -threads 4 -events 10000" writes them (the faulty run with its default
// bugs: a race, a skipped halo exchange, a hang): 1,000 traces and 16,384
// traces a run. It reports the page's size and the command's peak RSS.
//
//	go test ./cmd/difftrace -run '^$' -bench ReportGenerated -benchtime 1x
func BenchmarkReportGenerated(b *testing.B) {
	for _, procs := range []int{250, 4096} {
		b.Run(fmt.Sprintf("traces=%d", procs*4), func(b *testing.B) {
			dir := b.TempDir()
			spec := synth.Spec{Procs: procs, Threads: 4, Events: 10000, Rows: 16, Seed: 1}
			normal, faulty := filepath.Join(dir, "normal"), filepath.Join(dir, "faulty")
			if _, err := synth.Write(normal, spec); err != nil {
				b.Fatal(err)
			}
			spec.Faulty = true
			spec.Bugs = synth.Plant(spec, synth.Race, synth.SkipPhase, synth.Hang)
			if _, err := synth.Write(faulty, spec); err != nil {
				b.Fatal(err)
			}
			for _, what := range []string{"rank", "report"} {
				b.Run(what, func(b *testing.B) {
					out := filepath.Join(dir, what+".out")
					args := []string{what, normal, faulty, "-o", out}
					if what == "rank" {
						args = append(args, "--no-session", "--format", "json")
					}
					var rss int64
					b.ResetTimer()
					for range b.N {
						cmd := exec.Command(difftraceBin, args...)
						cmd.Dir = dir
						if msg, err := cmd.CombinedOutput(); err != nil {
							b.Fatalf("difftrace %s: %v\n%s", what, err, msg)
						}
						if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
							rss = max(rss, ru.Maxrss) // KB on Linux
						}
					}
					b.StopTimer()
					st, err := os.Stat(out)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(float64(st.Size()), "bytes-out")
					b.ReportMetric(float64(rss)/1e6, "peak-RSS-GB")
				})
			}
		})
	}
}
