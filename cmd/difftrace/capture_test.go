package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/difftrace/difftrace/parlot"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/internal/testenv"
)

// These tests record the example programs for real: Open MPI launches the
// difftrace binary, which runs each rank under uftrace.

// The example programs are built once, next to the difftrace binary that
// TestMain builds.
var (
	examplesOnce sync.Once
	examplesDir  string
	examplesErr  error
)

// needE2E fails in CI, or skips loudly elsewhere, when the tools are
// missing, and builds the example programs.
func needE2E(t *testing.T) {
	t.Helper()
	testenv.Tools(t, "this test records real MPI runs", "mpicc", "mpirun", "uftrace", "eu-stack", "make", "gcc", "strip")
	examplesOnce.Do(func() {
		examplesDir = filepath.Dir(difftraceBin)
		if out, err := exec.Command("make", "-s", "-C", "../../examples", "O="+examplesDir).CombinedOutput(); err != nil {
			examplesErr = fmt.Errorf("make examples: %v\n%s", err, out)
		}
	})
	if examplesErr != nil {
		t.Fatal(examplesErr)
	}
}

// mpiEnv is the environment for Open MPI as root on a small machine.
func mpiEnv() []string {
	return append(os.Environ(), "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
		"OMPI_MCA_rmaps_base_oversubscribe=1")
}

// captureMPI runs `mpirun -np N difftrace capture -o dir FLAGS -- PROG ARGS`.
func captureMPI(t *testing.T, np int, dir string, flags []string, prog string, args ...string) (string, error) {
	t.Helper()
	a := []string{"-np", strconv.Itoa(np), "--oversubscribe", difftraceBin, "capture", "-o", dir}
	a = append(append(append(a, flags...), "--", filepath.Join(examplesDir, prog)), args...)
	cmd := exec.Command("mpirun", a...)
	cmd.Env = mpiEnv()
	return runLauncher(t, cmd, dir, np)
}

// launcherGrace is how long mpirun has to exit once every rank of its run
// has recorded its end.
const launcherGrace = 30 * time.Second

// runLauncher runs cmd, an mpirun recording np ranks into dir, and returns
// its combined output. Open MPI's launcher now and then stays after every
// rank it started has ended (its threads wait on each other and its
// children are never reaped); the run is complete then and what the test
// checks does not depend on the launcher. Once run.json records every rank
// ended, runLauncher gives mpirun launcherGrace to exit, then kills it and
// says so in the test's log. The error is then nil when every rank exited
// with status 0, as mpirun's would have been, else an error saying why.
func runLauncher(t *testing.T, cmd *exec.Cmd, dir string, np int) (string, error) {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	var ended time.Time
	for {
		select {
		case err := <-done:
			return out.String(), err
		case <-tick.C:
		}
		m, err := decode.ReadManifest(filepath.Join(dir, "run.json"))
		complete := err == nil && len(m.Ranks) == np && !slices.ContainsFunc(m.Ranks, func(r decode.Rank) bool { return r.End.IsZero() })
		switch {
		case !complete:
			ended = time.Time{}
			continue
		case ended.IsZero():
			ended = time.Now()
			continue
		case time.Since(ended) < launcherGrace:
			continue
		}
		t.Logf("mpirun had not exited %s after every rank of %s ended; killed it (the run is complete)", launcherGrace, dir)
		_ = cmd.Process.Kill()
		<-done
		for _, r := range m.Ranks {
			if !r.Exited || r.ExitStatus != 0 {
				return out.String(), fmt.Errorf("mpirun killed after its ranks ended; rank %d: %s", r.Rank, r.Ended())
			}
		}
		return out.String(), nil
	}
}

// readInfo parses a .info function table into names by ID.
func readInfo(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"}"}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		if lines[i] == "+" {
			i++ // the image
			continue
		}
		names = append(names, lines[i])
	}
	return names
}

// traces decodes the threads of one rank into function names ("}" = exit).
func traces(t *testing.T, dir string, rank int) map[int][]string {
	t.Helper()
	base := filepath.Join(dir, "trace."+strconv.Itoa(rank))
	names := readInfo(t, base+".info")
	files, _ := filepath.Glob(base + ".*")
	out := map[int][]string{}
	for _, p := range files {
		th, err := strconv.Atoi(strings.TrimPrefix(p, base+"."))
		if err != nil {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		vals, err := parlot.ReadAll(bufio.NewReader(f), p, 0)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		seq := make([]string, len(vals))
		for i, v := range vals {
			if int(v) >= len(names) {
				t.Fatalf("%s: ID %d is not in the .info table", p, v)
			}
			seq[i] = names[v]
		}
		out[th] = seq
	}
	return out
}

// waitRun waits until n ranks of the run in dir have ended: when the
// launcher kills the recorders it started, their workers finish writing
// the traces a moment after mpirun returns.
func waitRun(t *testing.T, dir string, n int) *decode.Manifest {
	t.Helper()
	var m *decode.Manifest
	for i := 0; i < 600; i++ {
		var err error
		m, err = decode.ReadManifest(filepath.Join(dir, "run.json"))
		if err == nil && len(m.Ranks) == n && !slices.ContainsFunc(m.Ranks, func(r decode.Rank) bool { return r.End.IsZero() }) {
			return m
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the run in %s did not complete: %+v", dir, m)
	return nil
}

func manifest(t *testing.T, dir string) *decode.Manifest {
	t.Helper()
	m, err := decode.ReadManifest(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// oddevenTrace is the trace rank r of np must record: Table 3.2 of
// seeds/002 with every exit.
func oddevenTrace(r, np int) []string {
	s := []string{"main", "MPI_Init", "}", "MPI_Comm_rank", "}", "MPI_Comm_size", "}", "oddEvenSort"}
	for i := 0; i < np; i++ {
		s = append(s, "findPtr", "}")
		ptr := r - 1
		if (i%2 == 0) == (r%2 == 0) {
			ptr = r + 1
		}
		if ptr < 0 || ptr >= np {
			continue
		}
		if r%2 == 0 {
			s = append(s, "MPI_Send", "}", "MPI_Recv", "}")
		} else {
			s = append(s, "MPI_Recv", "}", "MPI_Send", "}")
		}
	}
	return append(s, "}", "MPI_Finalize", "}", "}")
}

func TestCaptureOddevenNormal(t *testing.T) {
	needE2E(t)
	dir := filepath.Join(t.TempDir(), "run")
	if out, err := captureMPI(t, 4, dir, nil, "oddeven"); err != nil {
		t.Fatalf("mpirun: %v\n%s", err, out)
	}
	m := manifest(t, dir)
	if len(m.Ranks) != 4 || m.Backend != "uftrace" || m.Images != "main" || m.Launch == "" || m.End.Before(m.Start) {
		t.Fatalf("manifest: %+v", m)
	}
	for r := 0; r < 4; r++ {
		rk := m.Ranks[r]
		if rk.Rank != r || !rk.Exited || rk.ExitStatus != 0 || rk.KilledByTimeout || rk.PID == 0 || rk.Host == "" || len(rk.Threads) != 1 {
			t.Errorf("rank %d entry: %+v", r, rk)
		}
		got := traces(t, dir, r)
		if len(got) != 1 {
			t.Errorf("rank %d has %d threads, want 1", r, len(got))
		}
		if want := oddevenTrace(r, 4); !slices.Equal(got[0], want) {
			t.Errorf("rank %d:\n got %v\nwant %v", r, got[0], want)
		}
		if rk.Threads[0].Events != uint64(len(got[0])) {
			t.Errorf("rank %d: manifest counts %d events, the trace holds %d", r, rk.Threads[0].Events, len(got[0]))
		}
	}
}

// TestCaptureOddevenDeadlock is dlBug of seeds/002 §3.2.7: rank 5 deadlocks
// in phase 7 of 16; capture's --timeout kills the run, and rank 5's trace
// must still end inside the MPI_Recv it hung in.
func TestCaptureOddevenDeadlock(t *testing.T) {
	needE2E(t)
	dir := filepath.Join(t.TempDir(), "dlbug")
	out, err := captureMPI(t, 16, dir, []string{"--timeout", "12s"}, "oddeven", "--deadlock-bug", "5", "7")
	if err == nil {
		t.Fatalf("a deadlocked run ended successfully:\n%s", out)
	}
	m := waitRun(t, dir, 16)
	// The ranks share one deadline, and each stops its program before
	// reading its stacks: every rank timed out, inside the call it was
	// blocked in, whichever rank's timer fired first.
	for _, r := range m.Ranks {
		if !r.KilledByTimeout || !strings.HasPrefix(r.Status, "timed out in MPI_") || !strings.Contains(r.Note, "--timeout 12s") {
			t.Errorf("rank %d: status %q, by timeout %v, note %q", r.Rank, r.Status, r.KilledByTimeout, r.Note)
		}
	}
	if s := m.Ranks[5].Status; s != "timed out in MPI_Recv" {
		t.Errorf("rank 5: status %q, want timed out in MPI_Recv", s)
	}
	got := traces(t, dir, 5)[0]
	normal := oddevenTrace(5, 16)
	// Seven full phases (main … oddEvenSort, then 7 × findPtr, Recv, Send),
	// then the eighth phase's findPtr and the MPI_Recv that never returned.
	// Reading "--deadlock-bug 5 7" costs two strcmp and two atoi calls.
	want := []string{"main", "strcmp", "}", "strcmp", "}", "atoi", "}", "atoi", "}"}
	want = append(append(want, normal[1:8+7*6]...), "findPtr", "}", "MPI_Recv")
	if !slices.Equal(got, want) {
		t.Fatalf("rank 5's trace:\n got %v\nwant %v", got, want)
	}
	if !strings.Contains(m.Ranks[5].Note, "MPI_Recv, the call it was blocked in, added from a stack snapshot") {
		t.Errorf("rank 5's note %q does not say where the MPI_Recv came from", m.Ranks[5].Note)
	}
}

// critPairs reports, for a worker thread's trace, how many memcpy calls it
// made inside and outside a GOMP_critical_start … GOMP_critical_end pair.
func critPairs(seq []string) (inside, outside int) {
	in := false
	for _, s := range seq {
		switch s {
		case "GOMP_critical_start":
			in = true
		case "GOMP_critical_end":
			in = false
		case "memcpy":
			if in {
				inside++
			} else {
				outside++
			}
		}
	}
	return
}

// TestCaptureILCS records the hybrid example normal and with the critical
// section bug in worker 4 of process 1, and checks that trace 1.4 — and
// only it — updates its champion without the critical section.
func TestCaptureILCS(t *testing.T) {
	needE2E(t)
	for _, bug := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "ilcs")
		var args []string
		if bug {
			args = []string{"--crit-bug", "1", "4"}
		}
		if out, err := captureMPI(t, 2, dir, nil, "ilcs", args...); err != nil {
			t.Fatalf("mpirun: %v\n%s", err, out)
		}
		for r := 0; r < 2; r++ {
			tr := traces(t, dir, r)
			if len(tr) != 5 {
				t.Fatalf("rank %d has %d threads, want 5 (master and 4 workers)", r, len(tr))
			}
			master := tr[0]
			for _, f := range []string{"MPI_Init", "MPI_Reduce", "MPI_Barrier", "GOMP_parallel", "MPI_Allreduce", "MPI_Bcast", "MPI_Finalize"} {
				if !slices.Contains(master, f) {
					t.Errorf("rank %d master lacks %s", r, f)
				}
			}
			if n, b := count(master, "MPI_Allreduce"), count(master, "MPI_Bcast"); n != 2*b || b == 0 {
				t.Errorf("rank %d master: %d MPI_Allreduce for %d MPI_Bcast, want two per round", r, n, b)
			}
			for w := 1; w <= 4; w++ {
				seq := tr[w]
				if count(seq, "CPU_Exec") == 0 || slices.Contains(seq, "MPI_Allreduce") {
					t.Errorf("rank %d worker %d: %d CPU_Exec calls, MPI calls %v", r, w, count(seq, "CPU_Exec"), slices.Contains(seq, "MPI_Allreduce"))
				}
				in, out := critPairs(seq)
				buggy := bug && r == 1 && w == 4
				switch {
				case in+out == 0:
					t.Errorf("trace %d.%d never updated its champion", r, w)
				case buggy && (in != 0 || slices.Contains(seq, "GOMP_critical_start")):
					t.Errorf("trace %d.%d has the bug but %d of its memcpy calls are in a critical section", r, w, in)
				case !buggy && out != 0:
					t.Errorf("trace %d.%d: %d memcpy calls outside a critical section", r, w, out)
				}
			}
		}
	}
}

func count(seq []string, name string) int {
	n := 0
	for _, s := range seq {
		if s == name {
			n++
		}
	}
	return n
}

// TestCaptureLauncherSignal ends a deadlocked job the way a user's timeout
// does — SIGTERM to mpirun — and checks that the traces still show where
// each rank hung.
func TestCaptureLauncherSignal(t *testing.T) {
	needE2E(t)
	dir := filepath.Join(t.TempDir(), "sig")
	a := []string{"-np", "2", "--oversubscribe", difftraceBin, "capture", "-o", dir, "--",
		filepath.Join(examplesDir, "oddeven"), "--deadlock-bug", "1", "0"}
	cmd := exec.Command("mpirun", a...)
	cmd.Env = mpiEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until both ranks are in the deadlock: both recorded their pid.
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(500 * time.Millisecond)
		if m, err := decode.ReadManifest(filepath.Join(dir, "run.json")); err == nil && len(m.Ranks) == 2 && m.Ranks[0].PID > 0 && m.Ranks[1].PID > 0 {
			break
		}
	}
	time.Sleep(4 * time.Second) // MPI_Init, then the deadlock
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	// mpirun returns before the recorders it killed have written the
	// traces; a command reading the run right away waits for them.
	info := difftrace(t, "info", dir)
	if info.code != 0 || !regexp.MustCompile(`(?m)^1\.0 .* trace\.1\.0$`).Match(info.stdout) ||
		bytes.Count(info.stdout, []byte("killed by the launcher in MPI_Recv\n")) != 2 {
		t.Errorf("info right after mpirun returned: exit %d\n%s%s\nmpirun printed:\n%s", info.code, info.stdout, info.stderr, out.String())
	}
	t.Logf("info's stderr: %s", info.stderr)
	m := waitRun(t, dir, 2)
	for _, r := range m.Ranks {
		if r.Exited || r.KilledByTimeout || r.Signal != "SIGTERM" || r.Status != "killed by the launcher in MPI_Recv" {
			t.Errorf("rank %d: exited %v by timeout %v signal %s status %q note %q", r.Rank, r.Exited, r.KilledByTimeout, r.Signal, r.Status, r.Note)
		}
		seq := traces(t, dir, r.Rank)[0]
		if len(seq) == 0 || seq[len(seq)-1] != "MPI_Recv" {
			t.Errorf("rank %d's trace ends %v, want it inside MPI_Recv\n%s", r.Rank, seq[max(0, len(seq)-6):], out.String())
		}
	}
}

const blockSrc = `
#include <unistd.h>
int step(int x) { return x + 1; }
void wait_forever(void) { step(1); pause(); }
int main(void) { wait_forever(); return 0; }
`

func compile(t *testing.T, name, src string, flags ...string) string {
	t.Helper()
	dir := t.TempDir()
	c := filepath.Join(dir, name+".c")
	os.WriteFile(c, []byte(src), 0o644)
	bin := filepath.Join(dir, name)
	if out, err := exec.Command("gcc", append([]string{"-O0", "-g", "-o", bin, c}, flags...)...).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return bin
}

// TestCapturePeersKeepsOtherTools records a program run with an MPI tool
// of the user's own preloaded (one that counts MPI_Send): capture's MPI
// wrapper forwards each call to the next definition, so the tool still
// sees every send.
func TestCapturePeersKeepsOtherTools(t *testing.T) {
	needE2E(t)
	dir := t.TempDir()
	src, tool := filepath.Join(dir, "tool.c"), filepath.Join(dir, "tool.so")
	os.WriteFile(src, []byte(countSendsSrc), 0o644)
	if out, err := exec.Command("mpicc", "-shared", "-fPIC", "-o", tool, src).CombinedOutput(); err != nil {
		t.Fatalf("mpicc: %v\n%s", err, out)
	}
	run := filepath.Join(dir, "run")
	cmd := exec.Command("mpirun", "-x", "LD_PRELOAD", "-np", "2", "--oversubscribe", difftraceBin, "capture", "-o", run, "--",
		filepath.Join(examplesDir, "oddeven"))
	cmd.Env = append(mpiEnv(), "LD_PRELOAD="+tool)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mpirun: %v\n%s", err, out)
	}
	counted := regexp.MustCompile(`counted ([1-9][0-9]*) sends`).FindAllString(string(out), -1)
	if len(counted) != 2 {
		t.Errorf("the user's tool did not count the sends of both ranks:\n%s", out)
	}
	if seq := traces(t, run, 0)[0]; count(seq, "MPI_Send") == 0 {
		t.Errorf("rank 0's trace has no MPI_Send: %v", seq)
	}
}

const countSendsSrc = `
#include <mpi.h>
#include <stdio.h>
static int sends;
int MPI_Send(const void *b, int c, MPI_Datatype t, int d, int g, MPI_Comm m) { sends++; return PMPI_Send(b, c, t, d, g, m); }
int MPI_Finalize(void) { fprintf(stderr, "counted %d sends\n", sends); return PMPI_Finalize(); }
`

// TestCaptureProgramKilled kills the traced program itself with SIGKILL:
// no snapshot is possible, but the trace up to the last recorded call and
// the manifest's account of the death must be there.
func TestCaptureProgramKilled(t *testing.T) {
	needE2E(t)
	bin := compile(t, "block", blockSrc)
	dir := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(difftraceBin, "capture", "-o", dir, "--", bin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := 0
	for i := 0; i < 100 && pid == 0; i++ {
		time.Sleep(100 * time.Millisecond)
		if m, err := decode.ReadManifest(filepath.Join(dir, "run.json")); err == nil && len(m.Ranks) == 1 {
			pid = m.Ranks[0].PID
		}
	}
	if pid == 0 {
		t.Fatalf("the manifest never named the program's pid\n%s", out.String())
	}
	time.Sleep(500 * time.Millisecond)
	syscall.Kill(pid, syscall.SIGKILL)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+9 {
		t.Errorf("capture exited with %v, want status 137 (128 + SIGKILL)\n%s", err, out.String())
	}
	r := manifest(t, dir).Ranks[0]
	if r.Exited || r.Signal != "SIGKILL" || r.KilledByTimeout || !strings.Contains(r.Note, "from outside capture") || r.PID != pid {
		t.Errorf("rank entry: %+v", r)
	}
	if got, want := traces(t, dir, 0)[0], []string{"main", "wait_forever", "step", "}"}; !slices.Equal(got, want) {
		t.Errorf("trace %v, want the calls recorded before the kill, %v", got, want)
	}
}

// TestCaptureErrors checks that each way capture cannot work says so
// clearly, without traces left behind.
func TestCaptureErrors(t *testing.T) {
	needE2E(t)
	dt := difftraceBin
	block := compile(t, "block", blockSrc)
	stripped := filepath.Join(t.TempDir(), "stripped")
	if out, err := exec.Command("strip", "-o", stripped, block).CombinedOutput(); err != nil {
		t.Fatalf("strip: %v\n%s", err, out)
	}
	script := filepath.Join(t.TempDir(), "run.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nexec true\n"), 0o755)
	ok := compile(t, "ok", "int main(void) { return 0; }")
	run := func(env []string, args ...string) string {
		cmd := exec.Command(dt, args...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("difftrace %v succeeded:\n%s", args, out)
		}
		return string(out)
	}
	for _, c := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"no uftrace", []string{"PATH=" + t.TempDir()}, []string{"capture", "-o", t.TempDir() + "/r", "--", ok}, "uftrace is not installed"},
		{"stripped", nil, []string{"capture", "-o", t.TempDir() + "/r", "--", stripped}, "no symbol table"},
		{"script", nil, []string{"capture", "-o", t.TempDir() + "/r", "--", script}, "not an ELF executable"},
		{"no program", nil, []string{"capture", "-o", t.TempDir() + "/r", "--", "/no/such/program"}, "/no/such/program"},
		{"pin", []string{"PIN_ROOT="}, []string{"capture", "--backend", "pin", "-o", t.TempDir() + "/r", "--", ok}, "Pin not found"},
	} {
		if out := run(c.env, c.args...); !strings.Contains(out, c.want) {
			t.Errorf("%s: output %q lacks %q", c.name, out, c.want)
		}
	}

	// A directory holding another run is refused, then replaced with --force.
	dir := filepath.Join(t.TempDir(), "run")
	if out, err := exec.Command(dt, "capture", "-o", dir, "--", ok).CombinedOutput(); err != nil {
		t.Fatalf("first capture: %v\n%s", err, out)
	}
	first := manifest(t, dir)
	if out := run(nil, "capture", "-o", dir, "--", ok); !strings.Contains(out, "already holds another run") {
		t.Errorf("second capture into %s: %s", dir, out)
	}
	if out, err := exec.Command(dt, "capture", "-o", dir, "--force", "--", ok).CombinedOutput(); err != nil {
		t.Fatalf("capture --force: %v\n%s", err, out)
	}
	if m := manifest(t, dir); m.Launch == first.Launch || len(m.Ranks) != 1 {
		t.Errorf("after --force the manifest is %+v", m)
	}

	// A full disk.
	small := t.TempDir()
	if err := syscall.Mount("tmpfs", small, "tmpfs", 0, "size=4k"); err != nil {
		// An unprivileged container cannot mount; capture/record tests the
		// same error on /dev/full.
		t.Logf("not checking a full disk: cannot mount a small tmpfs (%v)", err)
		return
	}
	defer syscall.Unmount(small, 0)
	os.WriteFile(filepath.Join(small, "ballast"), make([]byte, 4<<10), 0o644)
	if out := run(nil, "capture", "-o", filepath.Join(small, "run"), "--", ok); !strings.Contains(out, "no space left") {
		t.Errorf("capture onto a full disk: %s", out)
	}
}

// TestConvertCommand converts the raw uftrace recordings capture kept and
// checks they give the very traces capture wrote.
func TestConvertCommand(t *testing.T) {
	needE2E(t)
	dir := filepath.Join(t.TempDir(), "run")
	if out, err := captureMPI(t, 2, dir, []string{"--keep-uftrace"}, "oddeven"); err != nil {
		t.Fatalf("mpirun: %v\n%s", err, out)
	}
	conv := filepath.Join(t.TempDir(), "conv")
	out, err := exec.Command(difftraceBin, "convert", filepath.Join(dir, "uftrace.0"), filepath.Join(dir, "uftrace.1"), "-o", conv).CombinedOutput()
	if err != nil {
		t.Fatalf("convert: %v\n%s", err, out)
	}
	m := manifest(t, conv)
	if len(m.Ranks) != 2 || m.Backend != "convert" {
		t.Fatalf("converted manifest: %+v", m)
	}
	for r := 0; r < 2; r++ {
		a, b := traces(t, dir, r), traces(t, conv, r)
		if !slices.Equal(a[0], b[0]) {
			t.Errorf("rank %d: captured %v, converted %v", r, a[0], b[0])
		}
		for _, f := range []string{"trace.%d.0", "trace.%d.info"} {
			x, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf(f, r)))
			y, _ := os.ReadFile(filepath.Join(conv, fmt.Sprintf(f, r)))
			if !bytes.Equal(x, y) {
				t.Errorf("%s differs between capture and convert", fmt.Sprintf(f, r))
			}
		}
	}
	// The recordings read directly, one directory per rank, give the same
	// listing as their conversion.
	ranks := t.TempDir()
	for r := 0; r < 2; r++ {
		n := fmt.Sprintf("uftrace.%d", r)
		if err := os.Rename(filepath.Join(dir, n), filepath.Join(ranks, n)); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := ok(t, "decode", ranks, "--format", "flat"), ok(t, "decode", conv, "--format", "flat"); a != b || len(a) == 0 {
		t.Errorf("decode of the uftrace directories differs from decode of their conversion:\n%s\n---\n%s", a, b)
	}
	if out := ok(t, "info", ranks); !strings.Contains(out, "format      uftrace recording") || !strings.Contains(out, "processes   2\n") {
		t.Errorf("info on the uftrace directories:\n%s", out)
	}
	// Ranks come from the directories' names, not from the order a shell
	// glob gives them in (uftrace.10 before uftrace.2), whether the
	// directories are given one by one or as the directory that holds them.
	shuffled := t.TempDir()
	for from, to := range map[string]string{"uftrace.0": "uftrace.10", "uftrace.1": "uftrace.2"} {
		cp := copyDir(t, filepath.Join(ranks, from))
		if err := os.Rename(cp, filepath.Join(shuffled, to)); err != nil {
			t.Fatal(err)
		}
	}
	for i, args := range [][]string{{shuffled}, {filepath.Join(shuffled, "uftrace.10"), filepath.Join(shuffled, "uftrace.2")}} {
		out := filepath.Join(t.TempDir(), "conv")
		ok(t, append(append([]string{"convert"}, args...), "-o", out)...)
		if !slices.Equal(traces(t, out, 10)[0], traces(t, conv, 0)[0]) || !slices.Equal(traces(t, out, 2)[0], traces(t, conv, 1)[0]) {
			t.Errorf("convert %v: ranks 2 and 10 are not the recordings uftrace.2 and uftrace.10", args)
		}
		if m := manifest(t, out); len(m.Ranks) != 2 || m.Ranks[0].Rank != 2 || m.Ranks[1].Rank != 10 {
			t.Errorf("convert %d: manifest ranks %+v", i, m.Ranks)
		}
	}
}

const abortSrc = `
#include <mpi.h>
#include <stdio.h>
static int check(int rank, int step) { return rank == 1 && step == 3; }
static void fail(int code) { fprintf(stderr, "giving up\n"); MPI_Abort(MPI_COMM_WORLD, code); }
static void work(int rank, int step) { if (check(rank, step)) fail(3); }
int main(int argc, char **argv) {
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int s = 0; s < 6; s++) { work(rank, s); MPI_Barrier(MPI_COMM_WORLD); }
	MPI_Finalize();
	return 0;
}
`

// An MPI_Abort deep in one rank: that rank's trace ends inside the calls
// the program left from, MPI_Abort included, run.json says so, and the
// ranks the launcher then killed end inside the MPI_Barrier they waited in.
func TestCaptureAbortKeepsTheEnd(t *testing.T) {
	needE2E(t)
	dir, out := captureC(t, "abort", abortSrc)
	r := manifest(t, dir)
	var aborted *decode.Rank
	for i := range r.Ranks {
		if r.Ranks[i].Rank == 1 {
			aborted = &r.Ranks[i]
		}
	}
	if aborted == nil || !aborted.Exited || aborted.ExitStatus == 0 {
		t.Fatalf("rank 1 of the run: %+v\n%s", aborted, out)
	}
	if aborted.Status != "exited 3 in MPI_Abort" {
		t.Errorf("rank 1's status: %q", aborted.Status)
	}
	if seq := traces(t, dir, 1)[0]; len(seq) < 4 || !slices.Equal(seq[len(seq)-4:], []string{"fail", "fwrite", "}", "MPI_Abort"}) {
		t.Errorf("rank 1's trace ends %v, want it inside fail > MPI_Abort", seq[max(0, len(seq)-6):])
	}
	for _, rk := range r.Ranks {
		if rk.Rank != 1 && rk.Status != "killed by the launcher in MPI_Barrier" {
			t.Errorf("rank %d's status: %q (note %q)", rk.Rank, rk.Status, rk.Note)
		}
	}
	info := ok(t, "info", dir)
	if !regexp.MustCompile(`(?m)^1 .* exited 3 in MPI_Abort$`).MatchString(info) || strings.Contains(info, "may be missing") {
		t.Errorf("info does not say plainly how rank 1 ended:\n%s", info)
	}
}

// captureC builds the MPI C program src as name and records it with 3
// ranks (with a TMPDIR of its own, checked for leftovers afterwards); it
// returns the run directory and what mpirun printed.
func captureC(t *testing.T, name, src string) (dir string, out []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".c")
	os.WriteFile(path, []byte(src), 0o644)
	bin := strings.TrimSuffix(path, ".c")
	if out, err := exec.Command("mpicc", "-O0", "-g", "-o", bin, path).CombinedOutput(); err != nil {
		t.Fatalf("mpicc: %v\n%s", err, out)
	}
	dir, tmp := filepath.Join(t.TempDir(), "run"), t.TempDir()
	cmd := exec.Command("mpirun", "-np", "3", "--oversubscribe", difftraceBin, "capture", "-o", dir, "--timeout", "60s", "--", bin)
	cmd.Env = append(mpiEnv(), "TMPDIR="+tmp)
	o, _ := runLauncher(t, cmd, dir, 3)
	out = []byte(o)
	waitRun(t, dir, 3)
	assertNoWork(t, tmp, dir)
	return dir, out
}

// assertNoWork checks that no recorder left a work directory in tmp or a
// partial trace in the run directory.
func assertNoWork(t *testing.T, tmp, dir string) {
	t.Helper()
	left, _ := filepath.Glob(filepath.Join(tmp, "difftrace-*"))
	partial, _ := filepath.Glob(filepath.Join(dir, ".*partial*"))
	// uftrace's buffers in shared memory, named by thread id: the main
	// thread's is the rank's pid.
	var shm []string
	if m, err := decode.ReadManifest(filepath.Join(dir, "run.json")); err == nil {
		for _, r := range m.Ranks {
			got, _ := filepath.Glob(fmt.Sprintf("/dev/shm/uftrace-*-%d-*", r.PID))
			for _, g := range got {
				// A file from before this run is another process's that
				// had the same PID.
				if st, err := os.Stat(g); err == nil && !st.ModTime().Before(r.Start.Add(-time.Minute)) {
					shm = append(shm, g)
				}
			}
		}
	}
	if len(left)+len(partial)+len(shm) > 0 {
		t.Errorf("left behind: %v %v %v", left, partial, shm)
	}
}

const segvSrc = `
#include <mpi.h>
static volatile int sink;
static void crash(int *p) { *p = 1; }
static void work(int rank, int step) { sink += step; if (rank == 1 && step == 3) crash(0); }
int main(int argc, char **argv) {
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int s = 0; s < 6; s++) { work(rank, s); MPI_Barrier(MPI_COMM_WORLD); }
	MPI_Finalize();
	return 0;
}
`

// A segmentation fault in one rank: its trace ends inside the function
// that crashed, run.json names the signal and the function, the other
// ranks end inside the MPI_Barrier they waited in, and no work directory
// is left behind.
func TestCaptureSegfaultKeepsTheCall(t *testing.T) {
	needE2E(t)
	dir, out := captureC(t, "segv", segvSrc)
	for _, rk := range manifest(t, dir).Ranks {
		want := "killed by the launcher in MPI_Barrier"
		if rk.Rank == 1 {
			want = "signal SIGSEGV in crash"
		}
		if rk.Status != want {
			t.Errorf("rank %d's status: %q, want %q (note %q)\n%s", rk.Rank, rk.Status, want, rk.Note, out)
		}
	}
	if seq := traces(t, dir, 1)[0]; len(seq) == 0 || seq[len(seq)-1] != "crash" {
		t.Errorf("rank 1's trace ends %v, want it inside crash", seq[max(0, len(seq)-6):])
	}
	if !strings.Contains(string(out), "rank 1: signal SIGSEGV in crash (uftrace's report of the crash") {
		t.Errorf("capture does not say what uftrace's crash report is about:\n%s", out)
	}
}

const longSrc = `
static volatile long sink;
__attribute__((noinline)) void leaf(int i) { sink += i; }
__attribute__((noinline)) void mid(int i) { for (int j = 0; j < 4; j++) leaf(i + j); }
int main(void) {
	for (int i = 0; i < 2500000; i++) mid(i);
	return 0;
}
`

// diskUse is the space the files under dirs take on disk.
func diskUse(dirs ...string) int64 {
	var n int64
	for _, d := range dirs {
		filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				if fi, err := e.Info(); err == nil {
					if st, ok := fi.Sys().(*syscall.Stat_t); ok {
						n += st.Blocks * 512
					}
				}
			}
			return nil
		})
	}
	return n
}

// shmemUsable says capture puts its work directories in /dev/shm here: a
// tmpfs with 256 MB free (record's minShmemFree).
func shmemUsable() bool {
	var st syscall.Statfs_t
	return syscall.Statfs("/dev/shm", &st) == nil && st.Type == 0x01021994 && uint64(st.Bavail)*uint64(st.Bsize) >= 256<<20
}

// shmWork lists the recorders' work directories in /dev/shm, and says
// which of them belong to no live process (left behind).
func shmWork() (all, stale []string) {
	all, _ = filepath.Glob("/dev/shm/difftrace-*")
	for _, d := range all {
		f := strings.Split(filepath.Base(d), "-")
		if len(f) != 5 {
			continue
		}
		if pid, err := strconv.Atoi(f[3]); err == nil && syscall.Kill(pid, 0) == syscall.ESRCH {
			stale = append(stale, d)
		}
	}
	return all, stale
}

// withoutTMPDIR is the environment with TMPDIR unset.
func withoutTMPDIR() []string {
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "TMPDIR=") {
			env = append(env, e)
		}
	}
	return env
}

// A long run streams: 12.5 million calls would be 400 MB of raw uftrace
// records, but at no moment do the recording's files (the work directory,
// in /dev/shm as TMPDIR is unset, and the run directory) take more than a
// few MB, and the traces hold every call.
func TestCaptureStreamsLongRun(t *testing.T) {
	needE2E(t)
	src := filepath.Join(t.TempDir(), "long.c")
	os.WriteFile(src, []byte(longSrc), 0o644)
	bin := filepath.Join(filepath.Dir(src), "long")
	if out, err := exec.Command("gcc", "-O0", "-g", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	dir := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(difftraceBin, "capture", "-o", dir, "--", bin)
	cmd.Env = withoutTMPDIR()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- cmd.Wait() }()
	var peak int64
	inShm := false
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("capture: %v\n%s", err, out.String())
			}
			running = false
		case <-time.After(20 * time.Millisecond):
			work, _ := shmWork()
			inShm = inShm || len(work) > 0
			onDisk, _ := filepath.Glob(filepath.Join(os.TempDir(), "difftrace-uftrace-*"))
			peak = max(peak, diskUse(append(append(work, onDisk...), dir)...))
		}
	}
	if !inShm && shmemUsable() {
		t.Errorf("the recorder's work directory was not in /dev/shm")
	}
	const bound = 64 << 20
	if peak > bound {
		t.Errorf("the recording took %d MB on disk and in /dev/shm at its peak, more than %d MB", peak>>20, bound>>20)
	}
	m := manifest(t, dir)
	calls := m.Ranks[0].Threads[0].Events / 2
	if want := uint64(1 + 2_500_000*5); calls != want {
		t.Errorf("the trace holds %d calls, want %d", calls, want)
	}
	assertNoWork(t, t.TempDir(), dir)
	if _, stale := shmWork(); len(stale) > 0 {
		t.Errorf("left behind in /dev/shm: %v", stale)
	}
	t.Logf("peak %.1f MB on disk and in /dev/shm for %d calls (%d MB of raw records)", float64(peak)/(1<<20), calls, calls*32>>20)
}

// A recorder killed outright (SIGKILL) leaves its work directory in
// /dev/shm; the next capture on the machine removes it.
func TestCaptureCleansAfterKilledRecorder(t *testing.T) {
	needE2E(t)
	if !shmemUsable() {
		t.Skip("/dev/shm is no tmpfs with 256 MB free here, so capture works in /tmp; TestCaptureStreamsLongRun checks that it leaves nothing there")
	}
	src := filepath.Join(t.TempDir(), "long.c")
	os.WriteFile(src, []byte(longSrc), 0o644)
	bin := filepath.Join(filepath.Dir(src), "long")
	if out, err := exec.Command("gcc", "-O0", "-g", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	before, _ := shmWork()
	cmd := exec.Command(difftraceBin, "capture", "-o", filepath.Join(t.TempDir(), "run"), "--", bin)
	cmd.Env = withoutTMPDIR()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The recorder's work directory is difftrace-uftrace-0-PID-*, PID
	// that of the recorder: kill that process outright.
	var work string
	for deadline := time.Now().Add(20 * time.Second); work == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		now, _ := shmWork()
		for _, d := range now {
			if !slices.Contains(before, d) {
				work = d
			}
		}
	}
	if work == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("no work directory appeared in /dev/shm")
	}
	pid, _ := strconv.Atoi(strings.Split(filepath.Base(work), "-")[3])
	syscall.Kill(pid, syscall.SIGKILL)
	cmd.Wait()
	if _, err := os.Stat(work); err != nil {
		t.Fatalf("the killed recorder's work directory is gone already (%v): nothing to check", err)
	}
	// The next capture.
	next := exec.Command(difftraceBin, "capture", "-o", filepath.Join(t.TempDir(), "run2"), "--", bin)
	next.Env = withoutTMPDIR()
	if out, err := next.CombinedOutput(); err != nil {
		t.Fatalf("the next capture: %v\n%s", err, out)
	}
	if _, err := os.Stat(work); err == nil {
		t.Errorf("the next capture left the killed recorder's %s in place", work)
	}
}

// TestCaptureInterruptedExitStatus interrupts capture itself, as Ctrl-C
// or a kill of the recorder does: capture ends the program with SIGTERM
// whatever it was sent, and yet exits with 128 + the signal it got (130
// for SIGINT, as every other command), not the program's 143, so a shell
// loop of captures stops on Ctrl-C (for SIGINT it is killed by the signal,
// which is what bash looks at).
func TestCaptureInterruptedExitStatus(t *testing.T) {
	needE2E(t)
	bin := compile(t, "block", blockSrc)
	for _, tc := range []struct {
		sig    syscall.Signal
		status string
	}{
		{syscall.SIGINT, "interrupted (SIGINT) in "},
		{syscall.SIGTERM, "killed by the launcher in "},
	} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			cmd := exec.Command(difftraceBin, "capture", "-o", dir, "--", bin)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pid := 0
			for i := 0; i < 100 && pid == 0; i++ {
				time.Sleep(100 * time.Millisecond)
				if m, err := decode.ReadManifest(filepath.Join(dir, "run.json")); err == nil && len(m.Ranks) == 1 {
					pid = m.Ranks[0].PID
				}
			}
			if pid == 0 {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the manifest never named the program's pid\n%s", out.String())
			}
			time.Sleep(500 * time.Millisecond) // into pause()
			cmd.Process.Signal(tc.sig)
			err := cmd.Wait()
			if shellStatus(err) != 128+int(tc.sig) {
				t.Errorf("capture exited with %v, want status %d (128 + %s)\n%s", err, 128+int(tc.sig), tc.sig, out.String())
			}
			if ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus); tc.sig == syscall.SIGINT && !ws.Signaled() {
				t.Errorf("capture exited %v after SIGINT, not killed by it: bash would go on with a loop of captures", err)
			}
			r := manifest(t, dir).Ranks[0]
			if r.Signal != "SIGTERM" || !strings.HasPrefix(r.Status, tc.status) {
				t.Errorf("rank entry: signal %q status %q, want SIGTERM and %q…", r.Signal, r.Status, tc.status)
			}
		})
	}
}
