package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/internal/testenv"
)

// hangJSON runs `difftrace hang RUN [NORMAL] --format json` and decodes it.
func hangJSON(t *testing.T, args ...string) (rep struct {
	Hung     bool            `json:"hung"`
	Ended    string          `json:"ended"`
	Classes  json.RawMessage `json:"classes"`
	Progress []struct {
		Trace string   `json:"trace"`
		End   []string `json:"end"`
	} `json:"progress"`
	Suspects []struct {
		Trace  string `json:"trace"`
		Reason string `json:"reason"`
	} `json:"suspects"`
	WaitFor *struct {
		Waits []struct {
			Trace string `json:"trace"`
			Call  string `json:"call"`
			For   []int  `json:"for"`
		} `json:"waits"`
		Cycles [][]int `json:"cycles"`
	} `json:"wait_for"`
	Notes []string `json:"notes"`
}) {
	t.Helper()
	out := ok(t, append(append([]string{"hang"}, args...), "--format", "json")...)
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("hang --format json: %v\n%s", err, out)
	}
	return rep
}

// TestHang records hung runs of the examples at ranks and steps other than
// the committed runs', and checks whom hang suspects: the rank that stopped
// sending in the odd/even sort; only the rank that skipped its exchange in
// the stencil; the rank that left out one send although its north
// neighbour is the one stuck in MPI_Waitall. A clean run is no hang.
func TestHang(t *testing.T) {
	needE2E(t)
	dir := t.TempDir()
	run := func(name string, np int, flags []string, prog string, args ...string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		captureMPI(t, np, p, flags, prog, args...)
		waitRun(t, p, np)
		return p
	}
	timeout := []string{"--timeout", "10s"}
	suspects := func(args ...string) []string {
		t.Helper()
		rep := hangJSON(t, args...)
		if !rep.Hung || rep.Suspects == nil {
			t.Fatalf("hang %v: hung %v, suspects %v", args, rep.Hung, rep.Suspects)
		}
		var s []string
		for _, x := range rep.Suspects {
			s = append(s, x.Trace)
			if x.Reason == "" {
				t.Errorf("hang %v: suspect %s without a reason", args, x.Trace)
			}
		}
		return s
	}

	t.Run("oddeven", func(t *testing.T) {
		normal := run("oddeven-normal", 12, nil, "oddeven")
		dl := run("oddeven-dl", 12, timeout, "oddeven", "--deadlock-bug", "3", "4")
		for _, args := range [][]string{{dl, normal}, {dl}} {
			if s := suspects(args...); !slices.Contains(s, "3.0") {
				t.Errorf("hang %v: suspects %v, want rank 3 among them", args, s)
			}
		}
		// Rank 3 receives with the wrong tag, and it and the partner it
		// waits for receive from each other.
		if rep := hangJSON(t, dl, normal); rep.WaitFor == nil || !slices.ContainsFunc(rep.WaitFor.Cycles, func(c []int) bool { return len(c) == 2 && slices.Contains(c, 3) }) {
			t.Errorf("oddeven deadlock: wait-for %+v, want a cycle of rank 3 and its partner", rep.WaitFor)
		}
		clean := hangJSON(t, normal)
		if clean.Hung || clean.Ended != "no hang: every rank exited normally" || clean.Suspects == nil || clean.Progress == nil {
			t.Errorf("a clean run: %+v", clean)
		}
		if out := ok(t, "hang", normal); !strings.Contains(out, "no hang: every rank exited normally") {
			t.Errorf("hang of a clean run:\n%s", out)
		}
	})

	t.Run("threads", func(t *testing.T) {
		src := filepath.Join(dir, "locks.c")
		os.WriteFile(src, []byte(locksSrc), 0o644)
		bin := filepath.Join(dir, "locks")
		if out, err := exec.Command("gcc", "-O0", "-g", "-pthread", "-o", bin, src).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, out)
		}
		capture := func(name string, args ...string) string {
			p := filepath.Join(dir, name)
			exec.Command(difftraceBin, append([]string{"capture", "-o", p, "--timeout", "6s", "--", bin}, args...)...).Run()
			return p
		}
		normal, bad := capture("locks-normal"), capture("locks-bad", "bug")
		rep := hangJSON(t, bad, normal)
		// Thread 0.3 first however far each of the two deadlocked
		// threads got: it alone called update_ba, which its normal run
		// never makes, and stopped inside it.
		if len(rep.Suspects) == 0 || rep.Suspects[0].Trace != "0.3" || !strings.Contains(rep.Suspects[0].Reason, "in worker: update_ba added") ||
			!strings.Contains(rep.Suspects[0].Reason, "and the faulty trace ends inside it") {
			t.Errorf("lock-order deadlock: suspects %+v, want thread 0.3 first, alone in update_ba", rep.Suspects)
		}
		// A worker that got both locks every time may have finished before
		// the others deadlocked: the class of the workers holds those that
		// had not.
		text := ok(t, "hang", bad, normal)
		if !strings.Contains(text, "update_ba > pthread_mutex_lock 0.3") || !strings.Contains(text, "├─ worker 0.[") {
			t.Errorf("hang's classes of threads:\n%s", text)
		}
	})

	// Fortran calls, and waits on a communicator other than
	// MPI_COMM_WORLD: the odd ranks split off; in it, rank 1 waits for
	// rank 3, which went on to the communicator's barrier.
	t.Run("fortran", func(t *testing.T) {
		testenv.Tools(t, "this test records a Fortran MPI program (Debian: gfortran)", "mpif90", "gfortran")
		src := filepath.Join(dir, "split.f90")
		os.WriteFile(src, []byte(splitSrc), 0o644)
		bin := filepath.Join(dir, "split")
		if out, err := exec.Command("mpif90", "-O0", "-g", "-o", bin, src).CombinedOutput(); err != nil {
			t.Fatalf("mpif90: %v\n%s", err, out)
		}
		p := filepath.Join(dir, "split-run")
		cmd := exec.Command("mpirun", "-np", "4", "--oversubscribe", difftraceBin, "capture", "-o", p, "--timeout", "6s", "--", bin)
		cmd.Env = mpiEnv()
		runLauncher(t, cmd, p, 4)
		waitRun(t, p, 4)
		rep := hangJSON(t, p)
		var s []string
		for _, x := range rep.Suspects {
			s = append(s, x.Trace)
		}
		if !slices.Equal(s, []string{"3.0"}) {
			t.Errorf("split communicator: suspects %v, want rank 3 alone: %+v", s, rep.Suspects)
		}
		text := ok(t, "hang", p)
		// Fortran names read as in the source: mpi_recv, not mpi_recv_.
		for _, want := range []string{"rank 1 in mpi_recv for rank 3\n", "rank 3 in mpi_barrier for rank 1, not in it\n", "ranks 0 and 2 in mpi_barrier for ranks 1 and 3, not in it\n", "└─ mpi_recv [1]"} {
			if !strings.Contains(text, want) {
				t.Errorf("hang lacks %q:\n%s", want, text)
			}
		}
	})

	t.Run("stencil", func(t *testing.T) {
		normal := run("stencil-normal", 6, nil, "stencil")
		skip := run("stencil-skip", 6, timeout, "stencil", "--skip-bug", "4", "2")
		if s := suspects(skip, normal); !slices.Equal(s, []string{"4.0"}) {
			t.Errorf("skipped exchange: suspects %v, want rank 4 alone", s)
		}
		send := run("stencil-send", 6, timeout, "stencil", "--skip-send", "2", "3")
		rep := hangJSON(t, send, normal)
		var s []string
		for _, x := range rep.Suspects {
			s = append(s, x.Trace)
		}
		if !slices.Equal(s, []string{"2.0"}) {
			t.Errorf("left-out send: suspects %v, want rank 2 alone", s)
		}
		for _, p := range rep.Progress {
			if p.Trace == "1.0" && (len(p.End) == 0 || p.End[len(p.End)-1] != "MPI_Waitall") {
				t.Errorf("rank 1 ended in %v, want MPI_Waitall", p.End)
			}
		}
		text := ok(t, "hang", send, normal)
		if !strings.Contains(text, "MPI_Waitall [1]") || !strings.Contains(text, "who waited for whom (capture's MPI wrapper):\n") ||
			!strings.Contains(text, "  rank 1 in MPI_Waitall for rank 2\n") || !strings.Contains(text, "suspects:\n  2.0  rank 1 waits in MPI_Waitall for it, but it went on to MPI_Allreduce") {
			t.Errorf("hang's text:\n%s", text)
		}
	})
}

// On the committed stencil runs: the classes drawn and the report written
// with -o, the picture naming the wait each class is in.
func TestHangOutputs(t *testing.T) {
	dir := t.TempDir()
	normal, faulty := absRun(t, "stencil-normal"), absRun(t, "stencil-skipbug")
	out := okIn(t, dir, "hang", faulty, normal, "-o", "c.svg", "-o", "c.dot", "-o", "h.json")
	if !strings.Contains(out, "suspects:\n  3.0  parted from its normal run") {
		t.Errorf("hang:\n%s", out)
	}
	svg, dot := string(mustRead(t, filepath.Join(dir, "c.svg"))), string(mustRead(t, filepath.Join(dir, "c.dot")))
	// SVG writes "-" as "&#45;".
	for _, want := range []string{"MPI_Waitall", "[2,4]", "MPI_Allreduce", "[0-1,3,5-7]"} {
		if !strings.Contains(svg, strings.ReplaceAll(want, "-", "&#45;")) || !strings.Contains(dot, want) {
			t.Errorf("the picture lacks %q", want)
		}
	}
	var rep struct {
		Suspects []struct{ Trace string } `json:"suspects"`
		Loops    map[string]string        `json:"loops"`
	}
	if err := json.Unmarshal(mustRead(t, filepath.Join(dir, "h.json")), &rep); err != nil || len(rep.Suspects) != 1 || rep.Suspects[0].Trace != "3.0" || rep.Loops["L0"] == "" {
		t.Errorf("h.json: %v %+v", err, rep)
	}
}

// locksSrc: four worker threads update under two locks, always a then b;
// with an argument, worker 2 (thread 3) takes them once in the other
// order, and the program deadlocks.
const locksSrc = `
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static volatile long sink;
static int bug;
__attribute__((noinline)) void work(int n) { for (int i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void update_ab(void) { pthread_mutex_lock(&a); usleep(1000); pthread_mutex_lock(&b); work(100); pthread_mutex_unlock(&b); pthread_mutex_unlock(&a); }
__attribute__((noinline)) void update_ba(void) {
	pthread_mutex_lock(&b);
	/* wait until another thread holds a (and so waits for b): the deadlock, whatever the timing */
	while (pthread_mutex_trylock(&a) == 0) { pthread_mutex_unlock(&a); usleep(200); }
	pthread_mutex_lock(&a); work(100); pthread_mutex_unlock(&a); pthread_mutex_unlock(&b);
}
void *worker(void *arg) {
	long id = (long)arg;
	for (int i = 0; i < 20; i++) {
		if (bug && id == 2 && i == 5) update_ba(); else update_ab();
		work(1000);
	}
	return NULL;
}
int main(int argc, char **argv) {
	bug = argc > 1;
	pthread_t t[4];
	for (long i = 0; i < 4; i++) pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
	printf("%ld\n", sink);
	return 0;
}
`

// splitSrc: the odd ranks split off into a communicator of their own, in
// which rank 1 receives from rank 3; rank 3 never sends.
const splitSrc = `
program split
  use mpi
  implicit none
  integer :: rank, sub, srank, ierr, x, st(MPI_STATUS_SIZE)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub, ierr)
  call MPI_Comm_rank(sub, srank, ierr)
  if (mod(rank, 2) == 1 .and. srank == 0) then
    call MPI_Recv(x, 1, MPI_INTEGER, 1, 0, sub, st, ierr)
  end if
  call MPI_Barrier(sub, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program
`
