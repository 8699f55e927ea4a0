package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/internal/testenv"
)

// summaryWork makes a working directory where runs/ names the committed
// runs, as a user's directory holding their runs would.
func summaryWork(t *testing.T) string {
	t.Helper()
	work := t.TempDir()
	runs, err := filepath.Abs("../../testdata/runs")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(runs, filepath.Join(work, "runs")); err != nil {
		t.Fatal(err)
	}
	return work
}

// rankFrom runs rank in work and returns its standard output.
func rankFrom(t *testing.T, work string, args ...string) []byte {
	t.Helper()
	r := difftraceAt(t, work, nil, append([]string{"rank", "--no-session"}, args...)...)
	if r.code != 0 {
		t.Fatalf("difftrace rank %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r.stdout
}

// The summaries two mpirun launches write, two processes each, rank as the
// runs do, byte for byte: a hung faulty run (the hang analysis reads where
// each trace ended from the summary) and a run that differs in its calls.
func TestSummarizeUnderMPIRun(t *testing.T) {
	testenv.Tools(t, "this test summarises under a real MPI launcher", "mpirun")
	work := summaryWork(t)
	for _, run := range []string{"ilcs-normal", "ilcs-dlbug"} {
		cmd := exec.Command("mpirun", "-np", "2", "--oversubscribe", difftraceBin, "summarize", "runs/"+run, "-o", "sum/"+run)
		cmd.Dir, cmd.Env = work, mpiEnv()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("mpirun summarize %s: %v\n%s", run, err, out)
		}
		// Each part says once that it is written, and how fast.
		for i := range 2 {
			said := fmt.Sprintf("part %d of 2 of the summary of runs/%s written", i, run)
			if n := strings.Count(string(out), said); n != 1 || !strings.Contains(string(out), "traces per second") {
				t.Errorf("mpirun summarize %s: %q said %d times\n%s", run, said, n, out)
			}
		}
		parts, _ := filepath.Glob(filepath.Join(work, "sum", run, "*"))
		if len(parts) != 2 || !strings.HasSuffix(parts[0], "part-0-of-2.dts") || !strings.HasSuffix(parts[1], "part-1-of-2.dts") {
			t.Fatalf("sum/%s holds %v, want its two parts", run, parts)
		}
	}
	for _, format := range []string{"json", "table"} {
		want := rankFrom(t, work, "runs/ilcs-normal", "runs/ilcs-dlbug", "--format", format)
		got := rankFrom(t, work, "sum/ilcs-normal", "sum/ilcs-dlbug", "--format", format)
		if !bytes.Equal(got, want) {
			t.Errorf("--format %s: the ranking from the summaries differs from the runs'\nsummaries:\n%s\nruns:\n%s", format, got, want)
		}
		if format == "json" && !bytes.Contains(want, []byte(`"hung": true`)) {
			t.Errorf("the faulty run's hang analysis is missing from the ranking:\n%s", want)
		}
	}
	// A summary and a run mix.
	mixed := rankFrom(t, work, "sum/ilcs-normal", "runs/ilcs-dlbug", "--format", "json")
	if want := rankFrom(t, work, "runs/ilcs-normal", "runs/ilcs-dlbug", "--format", "json"); !bytes.Equal(mixed, want) {
		t.Errorf("a summary against a run ranks otherwise than the runs")
	}
}

// Without a launcher one process summarises the whole run; further normal
// runs may be summaries too.
func TestSummarizeOneProcess(t *testing.T) {
	work := summaryWork(t)
	for _, run := range []string{"oddeven-normal", "oddeven-swapbug"} {
		if r := difftraceAt(t, work, nil, "summarize", "runs/"+run, "-o", "sum/"+run); r.code != 0 {
			t.Fatalf("summarize %s: %s", run, r.stderr)
		}
	}
	want := rankFrom(t, work, "runs/oddeven-normal", "runs/oddeven-swapbug", "--format", "json", "--also-normal", "runs/oddeven-normal")
	got := rankFrom(t, work, "sum/oddeven-normal", "sum/oddeven-swapbug", "--format", "json", "--also-normal", "sum/oddeven-normal")
	if !bytes.Equal(got, want) {
		t.Errorf("the ranking from the summaries differs from the runs'\nsummaries:\n%s\nruns:\n%s", got, want)
	}
	// diffnlr after a ranking of summaries reads the runs summarised for
	// the call stack where the first difference lies ("in main >
	// oddEvenSort").
	diff := func(normal, faulty string) result {
		t.Helper()
		if r := difftraceAt(t, work, nil, "rank", normal, faulty); r.code != 0 {
			t.Fatalf("rank: %s", r.stderr)
		}
		return difftraceAt(t, work, nil, "diffnlr", "5")
	}
	fromRuns := diff("runs/oddeven-normal", "runs/oddeven-swapbug")
	fromSums := diff("sum/oddeven-normal", "sum/oddeven-swapbug")
	if fromSums.code != 0 || !bytes.Equal(fromSums.stdout, fromRuns.stdout) || !bytes.Contains(fromRuns.stdout, []byte("iteration 8 of 16 of the loop over findPtr and 2 more calls, in main > oddEvenSort: the same calls in another order: MPI_Recv, MPI_Send in the normal run, MPI_Send, MPI_Recv in the faulty run")) {
		t.Errorf("diffnlr after a ranking of summaries (exit %d):\n%s%s\nafter a ranking of the runs:\n%s", fromSums.code, fromSums.stdout, fromSums.stderr, fromRuns.stdout)
	}
}

// What can go wrong with a summary says what to do.
func TestSummarizeErrors(t *testing.T) {
	work := summaryWork(t)
	sum := filepath.Join(work, "sum")
	env := []string{"OMPI_COMM_WORLD_SIZE=2"}
	for _, i := range []string{"0", "1"} {
		if r := difftraceAt(t, work, append(env, "OMPI_COMM_WORLD_RANK="+i), "summarize", "runs/oddeven-normal", "-o", "sum"); r.code != 0 {
			t.Fatalf("summarize part %s: %s", i, r.stderr)
		}
	}
	fails := func(want string, args ...string) {
		t.Helper()
		r := difftraceAt(t, work, nil, args...)
		if r.code == 0 || !strings.Contains(string(r.stderr), want) {
			t.Errorf("difftrace %s: exit %d, stderr %q; want an error saying %q", strings.Join(args, " "), r.code, r.stderr, want)
		}
	}
	fails("no filter mpi+cust=foo at K = 10", "rank", "--no-session", "sum", "runs/oddeven-swapbug", "--custom", "foo")
	fails("no filter mpi at K = 20", "rank", "--no-session", "sum", "runs/oddeven-swapbug", "--k", "20")
	fails("is a summary", "info", "sum")
	fails("is a summary", "decode", "sum")
	fails("--exact-polling", "rank", "--no-session", "sum", "runs/oddeven-swapbug", "--exact-polling")
	fails("not part of a summary", "summarize", "runs/oddeven-normal", "-o", "runs/oddeven-swapbug")

	part := filepath.Join(sum, "part-1-of-2.dts")
	b, err := os.ReadFile(part)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x40
	if err := os.WriteFile(part, b, 0o644); err != nil {
		t.Fatal(err)
	}
	fails("part-1-of-2.dts: the file is damaged", "rank", "--no-session", "sum", "runs/oddeven-swapbug")
	if err := os.Remove(part); err != nil {
		t.Fatal(err)
	}
	fails("the name says 2 parts, the directory holds 1 (parts 1 missing)", "rank", "--no-session", "sum", "runs/oddeven-swapbug")
	// Summarising again with another number of processes replaces the
	// parts.
	if r := difftraceAt(t, work, nil, "summarize", "runs/oddeven-normal", "-o", "sum"); r.code != 0 {
		t.Fatalf("summarize again: %s", r.stderr)
	}
	if parts, _ := filepath.Glob(filepath.Join(sum, "*")); len(parts) != 1 {
		t.Errorf("after summarising with one process, sum holds %v", parts)
	}
	rankFrom(t, work, "sum", "runs/oddeven-swapbug")
}
