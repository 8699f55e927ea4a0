package rank

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/decode"
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

// readCalls returns the read system calls the process made so far, and the
// bytes they read (Linux's /proc/self/io), or ok false where it cannot tell.
func readCalls() (calls, bytes int64, ok bool) {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		n, _ := strconv.ParseInt(v, 10, 64)
		switch k {
		case "syscr":
			calls = n
		case "rchar":
			bytes = n
		}
	}
	return calls, bytes, true
}

// A summarize process's work grows with its share of the run, not with
// the run: one part of 4 processes of runs 4, 16 and 64 times as large
// reads the same processes' function tables and traces, interns the same
// names, makes as many read calls and reads as many bytes, apart from
// run.json, which every part reads whole.
func TestSummarizePartWorkPerTrace(t *testing.T) {
	if _, _, ok := readCalls(); !ok {
		t.Skip("needs /proc/self/io to count read calls")
	}
	g := defaultGrid(t, "")
	type work struct {
		traces, procs, names int
		calls, bytes         int64
	}
	var got []work
	for _, procs := range []int{16, 64, 256} {
		dir := filepath.Join(t.TempDir(), "run")
		spec := synth.Spec{Procs: procs, Threads: 2, Events: 400, Rows: 4, Seed: 1}
		if _, err := synth.Write(dir, spec); err != nil {
			t.Fatal(err)
		}
		manifest, err := os.Stat(filepath.Join(dir, decode.ManifestName))
		if err != nil {
			t.Fatal(err)
		}
		of := procs / 4
		calls0, bytes0, _ := readCalls()
		c, err := compare.OpenPart(dir, 1, of, compare.Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.Summarize(0, g.Filters, g.Ks, 1, of)
		if err != nil {
			t.Fatal(err)
		}
		calls1, bytes1, _ := readCalls()
		w := work{traces: len(p.Traces), procs: len(c.Runs[0].Procs), names: c.Symbols.Len(),
			calls: calls1 - calls0, bytes: bytes1 - bytes0 - manifest.Size()}
		got = append(got, w)
		if w.traces != 8 || w.procs != 4 {
			t.Errorf("%d processes, part 1 of %d: summarised %d traces of %d processes, want 8 of 4", procs, of, w.traces, w.procs)
		}
	}
	for _, w := range got[1:] {
		// The traces of a part are not the same ones at every size (a
		// process's neighbours on the grid differ), so their lengths
		// differ a little.
		if w.names != got[0].names || w.calls > got[0].calls*5/4+4 || w.bytes > got[0].bytes*5/4 {
			t.Errorf("the work of a part grows with the run: %+v, at the smallest size %+v", w, got[0])
		}
	}
	t.Logf("per part of 8 traces, runs of 32, 128 and 512 traces: %+v", got)
}

// At a size where folding opens the distinct pass-1 NLRs in several
// batches (2,048 traces a run, most of them distinct under the filter
// that keeps every call), the summaries, made by two processes, still
// rank exactly as the traces do, with the default bugs planted.
func TestSummaryRanksAsRunsLarger(t *testing.T) {
	if testing.Short() {
		t.Skip("ranks 2 × 2,048 generated traces twice")
	}
	dir := t.TempDir()
	spec := synth.Spec{Procs: 512, Threads: 4, Events: 1500, Rows: 8, Seed: 3}
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
	sn, sf := filepath.Join(dir, "sum-normal"), filepath.Join(dir, "sum-faulty")
	summarizeInto(t, normal, sn, 2, g)
	summarizeInto(t, faulty, sf, 2, g)
	if got := rankingJSON(t, []string{sn, sf}, g); !bytes.Equal(got, want) {
		t.Errorf("the ranking from the summaries differs from the traces'\nsummaries: %s\ntraces:    %s", got, want)
	}
	s, err := summary.Open(sn)
	if err != nil {
		t.Fatal(err)
	}
	classes := 0
	for _, p := range s.Parts {
		classes += len(p.Classes)
	}
	if classes < 1024 {
		t.Errorf("%d distinct pass-1 NLRs in the normal run: too few to fold in several batches", classes)
	}
}
