package rank

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/internal/synth"
	"github.com/difftrace/difftrace/summary"
)

// summarizeInto writes the summary of run dir, made by of processes, into
// out, as `mpirun -np OF difftrace summarize DIR -o OUT` does.
func summarizeInto(t *testing.T, dir, out string, of int, g Grid) {
	t.Helper()
	for i := range of {
		c, err := compare.Open([]string{dir}, compare.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.Summarize(0, g.Filters, g.Ks, i, of)
		if err != nil {
			t.Fatal(err)
		}
		if err := summary.Write(out, p); err != nil {
			t.Fatal(err)
		}
	}
}

func rankingJSON(t *testing.T, dirs []string, g Grid) []byte {
	t.Helper()
	c, err := compare.Open(dirs, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rk, err := sweep(c, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rk)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Generated runs with planted bugs rank the same from their summaries,
// made in one part or in three, as from the traces; the summaries store
// identical loops once, so they are smaller than the traces.
func TestSummaryRanksAsRuns(t *testing.T) {
	dir := t.TempDir()
	spec := genSpec(12, 4, 3000, 5, [2]int{7, 2})
	normal, faulty := filepath.Join(dir, "normal"), filepath.Join(dir, "faulty")
	if _, err := synth.Write(normal, spec); err != nil {
		t.Fatal(err)
	}
	spec.Faulty = true
	if _, err := synth.Write(faulty, spec); err != nil {
		t.Fatal(err)
	}
	g := defaultGrid(t, "")
	want := rankingJSON(t, []string{normal, faulty}, g)
	for _, of := range []int{1, 3} {
		sn, sf := filepath.Join(dir, "sum-normal", string(rune('0'+of))), filepath.Join(dir, "sum-faulty", string(rune('0'+of)))
		summarizeInto(t, normal, sn, of, g)
		summarizeInto(t, faulty, sf, of, g)
		if got := rankingJSON(t, []string{sn, sf}, g); !bytes.Equal(got, want) {
			t.Errorf("%d parts: the ranking from the summaries differs from the traces'\nsummaries: %s\ntraces:    %s", of, got, want)
		}
		s, err := summary.Open(sn)
		if err != nil {
			t.Fatal(err)
		}
		traces, classes := 0, 0
		for _, p := range s.Parts {
			traces += len(p.Traces)
			classes += len(p.Classes)
		}
		if traces != 48 || classes >= traces*len(g.Filters) {
			t.Errorf("%d parts: %d traces, %d distinct pass-1 NLRs for %d filters", of, traces, classes, len(g.Filters))
		}
	}
}
