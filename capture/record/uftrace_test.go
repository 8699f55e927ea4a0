package record

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/rundir"
	"github.com/difftrace/difftrace/trace"
)

// firstCallsProg starts 8 threads that make their first call of each of
// six libm functions at the same moment: a barrier before every call. In
// the OpenMP reduction of examples/ilcs every thread calls
// GOMP_atomic_start once, concurrently, and with lazy binding uftrace lost
// some of those calls (about every other recording lost one of 8 calls of
// a function); six functions make a recording with a lost call near
// certain when the remedy is missing.
const firstCallsProg = `#include <math.h>
#include <pthread.h>
#define N 8
static pthread_barrier_t bar;
static volatile double sink;
static void *work(void *a) {
	double x = 1.5 + (long)a;
	pthread_barrier_wait(&bar);
	sink = cbrt(x);
	pthread_barrier_wait(&bar);
	sink = expm1(x);
	pthread_barrier_wait(&bar);
	sink = log1p(x);
	pthread_barrier_wait(&bar);
	sink = asinh(x);
	pthread_barrier_wait(&bar);
	sink = atanh(1 / x);
	pthread_barrier_wait(&bar);
	sink = erf(x);
	return 0;
}
int main(void) {
	pthread_t t[N];
	pthread_barrier_init(&bar, 0, N);
	for (long i = 0; i < N; i++)
		pthread_create(&t[i], 0, work, (void *)i);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], 0);
	return 0;
}
`

// TestRecordConcurrentFirstCalls records, as capture does, a program whose
// threads all make their first call of library functions at once, and
// checks every thread's trace has every call.
func TestRecordConcurrentFirstCalls(t *testing.T) {
	needTools(t, "gcc", "uftrace")
	bin := compileC(t, t.TempDir(), "firstcalls", firstCallsProg, "-fno-builtin", "-lpthread", "-lm")
	funcs := []string{"cbrt", "expm1", "log1p", "asinh", "atanh", "erf"}
	for rec := range 3 {
		dir := filepath.Join(t.TempDir(), "run")
		var out bytes.Buffer
		code, err := Run(Options{
			Dir: dir, Command: []string{bin}, Stdout: &out, Stderr: &out,
			Getenv: func(string) string { return "" },
		})
		if err != nil || code != 0 {
			t.Fatalf("recording %d: status %d, %v\n%s", rec, code, err, out.String())
		}
		run, err := decode.Open(dir, trace.NewTable(), decode.Options{})
		if err != nil {
			t.Fatal(err)
		}
		traces, err := run.Load(run.Traces())
		if err != nil {
			t.Fatal(err)
		}
		if len(traces) != 9 {
			t.Fatalf("recording %d: %d traces, want the main thread and 8 workers", rec, len(traces))
		}
		var lost []string
		for _, tr := range traces[1:] {
			calls := map[string]int{}
			for _, s := range tr.Events {
				if s != trace.Return {
					calls[run.Symbols.Name(s).Func]++
				}
			}
			for _, f := range funcs {
				if calls[f] != 1 {
					lost = append(lost, fmt.Sprintf("%s calls %s %d times", tr.ID, f, calls[f]))
				}
			}
		}
		if len(lost) > 0 {
			t.Errorf("recording %d: every worker calls each function once, but %s", rec, strings.Join(lost, ", "))
		}
	}
}

func TestBindNow(t *testing.T) {
	env := []string{"PATH=/bin", "HOME=/root"}
	got := bindNow(env)
	if !slices.Equal(got, []string{"PATH=/bin", "HOME=/root", "LD_BIND_NOW=1"}) || len(env) != 2 {
		t.Errorf("bindNow(%v) = %v", env, got)
	}
	// A value the user chose stays, even empty (lazy binding).
	for _, kv := range []string{"LD_BIND_NOW=", "LD_BIND_NOW=1"} {
		env := []string{"PATH=/bin", kv}
		if got := bindNow(env); !slices.Equal(got, env) {
			t.Errorf("bindNow(%v) = %v", env, got)
		}
	}
}

// leafProg has a small optimised leaf function whose first instruction
// addresses memory relative to itself, which uftrace cannot patch, and one
// too short to patch.
const leafProg = `#include <stdio.h>
static double refine(double x) { return x * 0.5 + 1.0 / (x + 1.0); }
__attribute__((noinline)) static int next(int i) { return i + 1; }
__attribute__((noinline)) double compute(int t) {
	double x = t;
	for (int i = 0; i < 3; i = next(i))
		x = refine(x);
	return x;
}
int main(void) {
	double s = 0;
	for (int i = 0; i < 3; i++)
		s += compute(i);
	printf("%f\n", s);
	return 0;
}
`

// TestRecordUnpatchedFunctions records a program built at -O2, where
// uftrace cannot patch a leaf function and skips one too short to patch,
// and checks that run.json, capture's stderr and the run directory's
// unpatched.txt say which are missing from the traces (--verbose names each
// on stderr); built with -pg, every function is recorded and nothing is
// said.
func TestRecordUnpatchedFunctions(t *testing.T) {
	needTools(t, "gcc", "uftrace")
	for _, c := range []struct {
		flags   []string
		refines int
		note    string
	}{
		{[]string{"-O2", "-fno-inline"}, 0, "uftrace could not patch 2 functions of the program (refine, next, 1 of them too short to patch; unpatched.txt lists them all): calls to them are not in the traces; a build with -pg"},
		{[]string{"-O2", "-fno-inline", "-pg"}, 9, ""},
	} {
		bin := compileC(t, t.TempDir(), "leaf", leafProg, c.flags...)
		dir := filepath.Join(t.TempDir(), "run")
		var out, errb bytes.Buffer
		code, err := Run(Options{
			Dir: dir, Command: []string{bin}, Stdout: &out, Stderr: &errb, Verbose: true,
			Getenv: func(string) string { return "" },
		})
		if err != nil || code != 0 {
			t.Fatalf("%v: status %d, %v\n%s", c.flags, code, err, errb.String())
		}
		list, err := os.ReadFile(filepath.Join(dir, UnpatchedName))
		switch {
		case c.note == "" && err == nil:
			t.Errorf("%v: %s written though every function was patched: %q", c.flags, UnpatchedName, list)
		case c.note != "":
			want := "refine\tits first instructions cannot be moved (they address memory relative to themselves, or a jump leads back into them)\nnext\ttoo short to patch (4 bytes)\n"
			if string(list) != want {
				t.Errorf("%v: %s = %q, %v; want %q", c.flags, UnpatchedName, list, err, want)
			}
			if !strings.Contains(errb.String(), "rank 0: not patched: next: too short to patch") {
				t.Errorf("%v: --verbose did not name next on stderr: %q", c.flags, errb.String())
			}
		}
		m, err := rundir.ReadManifest(filepath.Join(dir, rundir.ManifestName))
		if err != nil {
			t.Fatal(err)
		}
		calls := readRank(t, dir, 0)[0]
		if n := count(calls, "refine"); n != c.refines || count(calls, "compute") != 3 {
			t.Errorf("%v: %d calls of refine and %d of compute, want %d and 3: %v", c.flags, n, count(calls, "compute"), c.refines, calls)
		}
		if note := m.Ranks[0].Note; c.note == "" && strings.Contains(note, "could not patch") || !strings.Contains(note, c.note) {
			t.Errorf("%v: run.json's note %q, want %q", c.flags, note, c.note)
		}
		if c.note != "" && !strings.Contains(errb.String(), "difftrace capture: rank 0: "+c.note) {
			t.Errorf("%v: capture's stderr %q lacks the note", c.flags, errb.String())
		}
	}
}

func TestPatchNote(t *testing.T) {
	log := "dynamic: dynamic patch type: prog: 0 (none)\ndynamic: force patch normal func: main (patch size: 8)\ndynamic:   >> FAIL: refine\ndynamic:   >> FAIL: a\n" +
		"dynamic:   >> FAIL: b\ndynamic:   >> FAIL: c\ndynamic:   >> FAIL: d\ndynamic:   >> FAIL: e\ndynamic:   >> FAIL: a\n"
	fns := unpatchedFuncs([]byte(log), "/no/such/prog", nil)
	if len(fns) != 6 || fns[0].name != "refine" || fns[5].name != "e" {
		t.Fatalf("unpatchedFuncs = %v, want refine, a, b, c, d, e", fns)
	}
	want := "uftrace could not patch 6 functions of the program (refine, a, b, c, d, 1 more; unpatched.txt lists them all)"
	if got := patchNote(fns); !strings.HasPrefix(got, want) {
		t.Errorf("patchNote = %q, want it to begin %q", got, want)
	}
	if got := patchNote(unpatchedFuncs([]byte("dynamic: patched all (4) functions in 'leaf'\n"), "/no/such/prog", nil)); got != "" {
		t.Errorf("patchNote of a full patch = %q", got)
	}
}
