package mutation

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/difftrace/difftrace/filters"
)

var (
	flagMutations = flag.Int("mutations", 0, "mutations to draw in all for TestAccuracy (0: the default, a few thousand)")
	flagMin       = flag.Float64("mutation.min", 0, "fail TestAccuracy when a check's share of passes (all checks, every op) is below this under the all filter (0: report only; also $DIFFTRACE_MUTATION_MIN)")
	flagSeed      = flag.Uint64("mutation.seed", 1, "seed of TestAccuracy's draws")
	flagMisses    = flag.Int("mutation.misses", 3, "misses listed per mutation kind")
	flagSuggested = flag.Int("mutation.suggested", 0, "also explain this many mutations of each kind per run through run directories, under the view rank suggests (a rank sweep each)")
)

// bases are the normal runs the accuracy is measured on.
var bases = []string{
	"../../testdata/runs/oddeven-normal",
	"../../testdata/runs/ilcs-normal",
	"../../testdata/runs/stencil-normal",
	"../../testdata/noise/farm-1",
	"../../testdata/mutation/particles-1",
	"../../testdata/mutation/heat-1",
	"../../testdata/mutation/hybrid-1",
	"../../testdata/mutation/twolevel-1",
}

var (
	baseOnce sync.Once
	opened   []*Base
	openErr  error
)

func openBases(t testing.TB) []*Base {
	t.Helper()
	baseOnce.Do(func() {
		for _, dir := range bases {
			b, err := OpenBase(dir)
			if err != nil {
				openErr = err
				return
			}
			opened = append(opened, b)
		}
	})
	if openErr != nil {
		t.Fatal(openErr)
	}
	return opened
}

func minRate() float64 {
	if *flagMin > 0 {
		return *flagMin
	}
	if v, err := strconv.ParseFloat(os.Getenv("DIFFTRACE_MUTATION_MIN"), 64); err == nil {
		return v
	}
	return 0
}

// TestAccuracy measures how often the first-difference sentence is right
// about random mutations of real traces, under the filters all and mpi, K
// 10, and reports the table. It fails only below -mutation.min (or
// $DIFFTRACE_MUTATION_MIN).
func TestAccuracy(t *testing.T) {
	bs := openBases(t)
	total := *flagMutations
	if total == 0 {
		total = 3000
	}
	specs := []string{"all", "mpi"}
	perOp := max(1, total/(len(specs)*len(Ops)*len(bs)))
	for _, spec := range specs {
		start := time.Now()
		var score Score
		for _, b := range bs {
			e, err := b.Explainer(View{Filter: filters.MustParse(spec), K: 10})
			if err != nil {
				t.Fatal(err)
			}
			s, err := e.Run(Config{Seed: *flagSeed, PerOp: perOp})
			if err != nil {
				t.Fatal(err)
			}
			score.Merge(s)
		}
		var sb strings.Builder
		score.WriteTable(&sb)
		t.Logf("filter %s, K 10: %d mutations in %d runs, %.1fs\n%s", spec, score.Total(), len(bs), time.Since(start).Seconds(), sb.String())
		var mb strings.Builder
		score.WriteMisses(&mb, *flagMisses)
		t.Logf("misses (a few of each kind):\n%s", mb.String())
		if m := minRate(); m > 0 && spec == "all" {
			if got := score.Min(CheckAll); got < m {
				t.Errorf("filter %s: the sentence is right in %.1f%% of some kind of mutation, below %.1f%%", spec, 100*got, 100*m)
			}
		}
	}
	if *flagSuggested > 0 {
		start := time.Now()
		var score Score
		for _, b := range bs {
			s, err := suggestedScore(t, b, *flagSuggested)
			if err != nil {
				t.Fatal(err)
			}
			score.Merge(s)
		}
		var sb strings.Builder
		score.WriteTable(&sb)
		t.Logf("the view rank suggests: %d mutations in %d runs, %.1fs\n%s", score.Total(), len(bs), time.Since(start).Seconds(), sb.String())
		var mb strings.Builder
		score.WriteMisses(&mb, *flagMisses)
		t.Logf("misses (a few of each kind):\n%s", mb.String())
	}
}

// suggestedScore explains n mutations of each kind of b's traces through
// run directories, under the view rank suggests.
func suggestedScore(t *testing.T, b *Base, n int) (*Score, error) {
	var s Score
	views := map[string]int{}
	for _, op := range Ops {
		for k := range n {
			i := k % len(b.IDs)
			m, err := b.Draw(*flagSeed, i, op, k)
			if errors.Is(err, ErrNoSite) {
				break
			}
			if err != nil {
				return nil, err
			}
			faulty := filepath.Join(t.TempDir(), "faulty")
			if err := b.WriteRun(faulty, i, m); err != nil {
				return nil, err
			}
			ex, err := ExplainRuns(b.Dir, faulty, b.IDs[i], nil)
			if errors.Is(err, errNoView) {
				ex, err = Explanation{View: "none"}, nil
			}
			if err != nil {
				return nil, err
			}
			views[ex.View]++
			got := Read(ex, b.Name)
			s.Add(Outcome{Base: b.Dir, Trace: b.IDs[i], View: ex.View, M: m, Got: got, Text: ex.Text, OK: Compare(m.Want, got), Seed: stream(i, op, k)})
		}
	}
	t.Logf("%s: views suggested %v", b.Dir, views)
	return &s, nil
}
