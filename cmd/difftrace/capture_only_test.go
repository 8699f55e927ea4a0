package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/internal/testenv"
)

// These tests record with capture --only and take the runs through rank
// and diffnlr: the committed examples (oddeven, ilcs) and two programs of
// our own, kmeans (C++) and ring (Fortran).

var (
	onlyOnce sync.Once
	onlyErr  error
)

// needOnlyExamples builds the examples and the --only programs.
func needOnlyExamples(t *testing.T) {
	t.Helper()
	needE2E(t)
	testenv.Tools(t, "this test builds MPI programs in C++ and Fortran", "mpicxx", "mpif90")
	onlyOnce.Do(func() {
		if out, err := exec.Command("make", "-s", "-C", "../../examples", "O="+examplesDir, "only").CombinedOutput(); err != nil {
			onlyErr = fmt.Errorf("make only: %v\n%s", err, out)
		}
	})
	if onlyErr != nil {
		t.Fatal(onlyErr)
	}
}

// onlyPair records a normal and a faulty run of prog with --only spec
// (and flags, for the faulty one), ranks them and returns the directory
// they are in (rank's session is there) and rank's report.
func onlyPair(t *testing.T, np int, spec, prog string, normal []string, faultyFlags, faulty []string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	if out, err := captureMPI(t, np, filepath.Join(dir, "normal"), []string{"--only", spec}, prog, normal...); err != nil {
		t.Fatalf("capture --only %s %s: %v\n%s", spec, prog, err, out)
	}
	captureMPI(t, np, filepath.Join(dir, "faulty"), append([]string{"--only", spec}, faultyFlags...), prog, faulty...)
	for _, run := range []string{"normal", "faulty"} {
		m := waitRun(t, filepath.Join(dir, run), np)
		if m.Recorded == nil || m.Recorded.Filter != spec || len(m.Recorded.Calls) == 0 || m.Recorded.Stack == nil || len(m.Recorded.Stack) != 0 {
			t.Fatalf("%s run of %s: run.json's recorded = %+v, want filter %s, its calls and an empty stack", run, prog, m.Recorded, spec)
		}
		// Every call in the traces is one the filter keeps.
		keep := filters.MustParse(spec)
		for r := 0; r < np; r++ {
			for th, seq := range traces(t, filepath.Join(dir, run), r) {
				for _, f := range seq {
					if f != "}" && !keep.Keep(f) {
						t.Fatalf("%s run of %s, trace %d.%d holds %s, which --only %s does not keep", run, prog, r, th, f, spec)
					}
				}
			}
		}
	}
	r := difftraceAt(t, dir, nil, "rank", "normal", "faulty", "--rows", "0")
	if r.code != 0 {
		t.Fatalf("rank %s: exit %d: %s", prog, r.code, r.stderr)
	}
	return dir, string(r.stdout)
}

// consensusTop returns the trace that leads rank's thread consensus.
func consensusTop(t *testing.T, report string) string {
	t.Helper()
	const head = "consensus, threads: "
	i := strings.Index(report, head)
	if i < 0 {
		t.Fatalf("no thread consensus in rank's report:\n%s", report)
	}
	return strings.Fields(report[i+len(head):])[0]
}

// diffNLR runs diffnlr id in dir (rank's session) and returns its text.
func diffNLR(t *testing.T, dir, id string, args ...string) string {
	t.Helper()
	r := difftraceAt(t, dir, nil, append([]string{"diffnlr", id}, args...)...)
	if r.code != 0 {
		t.Fatalf("diffnlr %s: exit %d: %s", id, r.code, r.stderr)
	}
	return string(r.stdout)
}

func TestCaptureOnlyOddeven(t *testing.T) {
	needOnlyExamples(t)
	dir, rk := onlyPair(t, 8, "mpi", "oddeven", nil, nil, []string{"--swap-bug", "5", "3"})
	if top := consensusTop(t, rk); top != "5.0" {
		t.Errorf("oddeven --swap-bug 5 3 recorded with --only mpi: consensus leader %s, want 5.0\n%s", top, rk)
	}
	if !strings.Contains(rk, "left out, needing calls the runs did not record (recorded with capture --only mpi): mpi.int, omp,") {
		t.Errorf("rank does not say which filters the runs cannot serve:\n%s", rk)
	}
	if d := diffNLR(t, dir, "5"); !strings.Contains(d, "first difference: iteration 4 of ") || !strings.Contains(d, "MPI_Send") {
		t.Errorf("diffnlr 5 does not show the swap from the fourth phase:\n%s", d)
	}
	r := difftraceAt(t, dir, nil, "rank", "normal", "faulty", "--filters", "mpi,str")
	if r.code == 0 || !strings.Contains(string(r.stderr), "filter str needs calls that normal did not record: it was recorded with capture --only mpi, which leaves out str") {
		t.Errorf("rank --filters mpi,str on --only mpi runs: exit %d, %s", r.code, r.stderr)
	}
	r = difftraceAt(t, dir, nil, "diffnlr", "5", "--filter", "all")
	if r.code == 0 || !strings.Contains(string(r.stderr), "filter all needs calls that") {
		t.Errorf("diffnlr --filter all on --only mpi runs: exit %d, %s", r.code, r.stderr)
	}
}

func TestCaptureOnlyILCS(t *testing.T) {
	needOnlyExamples(t)
	dir, rk := onlyPair(t, 4, "mpi+omp", "ilcs", nil, nil, []string{"--crit-bug", "2", "4"})
	if top := consensusTop(t, rk); top != "2.4" {
		t.Errorf("ilcs --crit-bug 2 4 recorded with --only mpi+omp: consensus leader %s, want 2.4\n%s", top, rk)
	}
	if d := diffNLR(t, dir, "2.4"); !strings.Contains(d, "GOMP_critical_start") {
		t.Errorf("diffnlr 2.4 does not show the critical sections the bug left out:\n%s", d)
	}
	// Every worker is there, and calls nothing the filter leaves out.
	if tr := traces(t, filepath.Join(dir, "normal"), 1); len(tr) != 5 || slices.Contains(tr[1], "CPU_Exec") || slices.Contains(tr[1], "memcpy") {
		t.Errorf("rank 1 of the normal run: %d threads, worker 1 %v; want 5 threads and no CPU_Exec or memcpy", len(tr), tr[1])
	}
}

func TestCaptureOnlyCxxHang(t *testing.T) {
	needOnlyExamples(t)
	dir, rk := onlyPair(t, 4, "mpi", "kmeans", nil, []string{"--timeout", "4s"}, []string{"--stop-bug", "1", "6"})
	if !strings.Contains(rk, "1.0  parted from its normal run before it stopped") {
		t.Errorf("kmeans --stop-bug 1 6: the hang analysis does not suspect 1.0 first:\n%s", rk)
	}
	d := diffNLR(t, dir, "1")
	if !strings.Contains(d, "L0 ×40 → ×14") || !strings.Contains(d, "L0 = [MPI_Allreduce]") {
		t.Errorf("diffnlr 1 does not show rank 1 leaving after 7 iterations of 2 MPI_Allreduce calls:\n%s", d)
	}
}

func TestCaptureOnlyFortran(t *testing.T) {
	needOnlyExamples(t)
	dir, rk := onlyPair(t, 4, "mpi", "ring", nil, nil, []string{"--swap-bug", "2", "5"})
	if top := consensusTop(t, rk); top != "2.0" {
		t.Errorf("ring --swap-bug 2 5 recorded with --only mpi: consensus leader %s, want 2.0\n%s", top, rk)
	}
	d := diffNLR(t, dir, "2")
	if !strings.Contains(d, "first difference: iteration 5 of 12") || !strings.Contains(d, "L1 = [mpi_recv, mpi_send, mpi_allreduce]") {
		t.Errorf("diffnlr 2 does not show rank 2's calls reordered from round 5:\n%s", d)
	}
}

// TestCaptureOnlyErrors: --only refuses what it cannot record, before
// anything runs.
func TestCaptureOnlyErrors(t *testing.T) {
	needE2E(t)
	prog := filepath.Join(examplesDir, "oddeven")
	out := filepath.Join(t.TempDir(), "run")
	fails(t, []string{"--only omp: oddeven neither calls nor defines a function this filter keeps", "MPI_Init"}, "capture", "-o", out, "--only", "omp", "--", prog)
	fails(t, []string{"--only: filter \"mpi+bogus\": unknown filter \"bogus\""}, "capture", "-o", out, "--only", "mpi+bogus", "--", prog)
	fails(t, []string{"give one or the other"}, "capture", "-o", out, "--only", "mpi", "--all-images", "--", prog)
}
