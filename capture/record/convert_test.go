package record

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/parlot"
	"github.com/difftrace/difftrace/trace"
	"github.com/difftrace/difftrace/uftrace"
)

// threadsSrc is a small pthread program: nested and recursive calls of its
// own, library calls through the PLT, and two threads created in order.
const threadsSrc = `
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
static char buf[64];
int leaf(int x) { return x + 1; }
int fib(int n) { return n < 2 ? leaf(n) : fib(n - 1) + fib(n - 2); }
void copy(int i) { memcpy(buf, "abcdefgh", 1 + i % 8); }
void *worker(void *arg) {
	long id = (long)arg;
	for (int i = 0; i < 20 + id; i++) { fib(4); copy(i); }
	usleep(1000);
	return NULL;
}
int main(void) {
	pthread_t t[2];
	for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
	printf("%d\n", fib(6));
	return 0;
}
`

// recordThreads records threadsSrc with uftrace and returns the data
// directory and the program.
func recordThreads(t *testing.T) (string, string) {
	dir := t.TempDir()
	bin := compileC(t, dir, "threads", threadsSrc, "-pthread", "-fno-builtin-memcpy")
	data := filepath.Join(dir, "uftrace.data")
	uftraceRecord(t, data, nil, bin)
	return data, bin
}

// TestConvertMatchesReplay converts a real uftrace recording and checks,
// thread by thread, that the ParLOT traces hold exactly the calls uftrace
// replay shows.
func TestConvertMatchesReplay(t *testing.T) {
	dataDir, _ := recordThreads(t)
	data, err := uftrace.Open(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	pid := data.Processes()[0]
	tasks := data.Threads(pid)
	if len(tasks) != 3 {
		t.Fatalf("recording has %d threads, want 3 (main and two workers)", len(tasks))
	}
	out := t.TempDir()
	res, err := ConvertUftrace(data, ConvertOptions{Dir: out, Prefix: "trace", Rank: 0})
	if err != nil {
		t.Fatal(err)
	}
	got := readRank(t, out, 0)
	for _, task := range tasks {
		want := replayCalls(t, dataDir, task.TID)
		if len(want) == 0 {
			t.Fatalf("uftrace replay shows nothing for thread %d", task.TID)
		}
		if !slices.Equal(got[task.Thread], want) {
			t.Errorf("thread %d (tid %d): converted %d events, uftrace replay shows %d\nconverted: %v\nreplay:    %v",
				task.Thread, task.TID, len(got[task.Thread]), len(want), head(got[task.Thread]), head(want))
		}
		if res.Threads[task.Thread].Events != uint64(len(want)) {
			t.Errorf("thread %d: manifest says %d events, want %d", task.Thread, res.Threads[task.Thread].Events, len(want))
		}
	}
	// Creation order: the worker given id 1 was created first and makes 21
	// rounds, the second 22.
	for th, rounds := range map[int]int{1: 21, 2: 22} {
		if n := count(got[th], "copy"); n != rounds {
			t.Errorf("thread %d calls copy %d times, want %d (threads numbered out of creation order?)", th, n, rounds)
		}
	}
	names := readInfo(t, filepath.Join(out, "trace.0.info"))
	for _, want := range []string{"main", "fib", "leaf", "worker", "memcpy", "pthread_create", "printf"} {
		if !slices.ContainsFunc(names, func(n trace.Name) bool { return n.Func == want }) {
			t.Errorf(".info lacks %s: %v", want, names)
		}
	}
	// Reading the recording directly gives the converted run: the same
	// symbols in the same order, the same traces.
	direct, converted := trace.NewTable(), trace.NewTable()
	a, err := decode.Open(dataDir, direct, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := decode.Open(out, converted, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if direct.Len() != converted.Len() {
		t.Fatalf("%d symbols read directly, %d from the conversion", direct.Len(), converted.Len())
	}
	for s := 1; s < direct.Len(); s++ {
		if x, y := direct.Name(trace.Symbol(s)), converted.Name(trace.Symbol(s)); x != y {
			t.Errorf("symbol %d: %v read directly, %v from the conversion", s, x, y)
		}
	}
	ta, err := a.Load(a.Traces())
	if err != nil {
		t.Fatal(err)
	}
	tb, err := b.Load(b.Traces())
	if err != nil {
		t.Fatal(err)
	}
	if len(ta) != len(tb) {
		t.Fatalf("%d traces read directly, %d converted", len(ta), len(tb))
	}
	for i := range ta {
		if ta[i].ID != tb[i].ID || !slices.Equal(ta[i].Events, tb[i].Events) {
			t.Errorf("trace %s read directly differs from its conversion %s", ta[i].ID, tb[i].ID)
		}
	}
}

// TestConvertWithoutSymFiles checks the fallback for a recording whose
// recorder died before saving its symbol files: the symbols come from the
// ELF files and the traces are the same.
func TestConvertWithoutSymFiles(t *testing.T) {
	dataDir, _ := recordThreads(t)
	conv := func(dir string) map[int][]string {
		data, err := uftrace.Open(dataDir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ConvertUftrace(data, ConvertOptions{Dir: dir, Prefix: "trace"}); err != nil {
			t.Fatal(err)
		}
		return readRank(t, dir, 0)
	}
	with := conv(t.TempDir())
	syms, _ := filepath.Glob(filepath.Join(dataDir, "*.sym"))
	if len(syms) == 0 {
		t.Fatal("uftrace saved no .sym files")
	}
	for _, s := range syms {
		os.Remove(s)
	}
	without := conv(t.TempDir())
	for th := range with {
		if !slices.Equal(with[th], without[th]) {
			t.Errorf("thread %d differs without .sym files:\n%v\n%v", th, head(with[th]), head(without[th]))
		}
	}
}

// TestConvertDiskFull writes a run into a file system too small for it: the
// error says so, and no partial or temporary file is left behind.
func TestConvertDiskFull(t *testing.T) {
	dataDir, _ := recordThreads(t)
	dir, ok := smallFS(t, "8k")
	if !ok {
		t.Skip("SKIPPING: cannot mount a small tmpfs (TestWriteFullDevice checks the same error on /dev/full)")
	}
	// Fill most of the space first, as other ranks would have.
	os.WriteFile(filepath.Join(dir, "ballast"), make([]byte, 6<<10), 0o644)
	data, err := uftrace.Open(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ConvertUftrace(data, ConvertOptions{Dir: dir, Prefix: "trace"})
	if err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("converting into a full file system: error %v, want one saying no space is left", err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != "ballast" {
			t.Errorf("left behind %s", e.Name())
		}
	}
}

// smallFS mounts a tmpfs of the given size for the test: it needs root
// (or CAP_SYS_ADMIN), which an unprivileged container lacks.
func smallFS(t *testing.T, size string) (string, bool) {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Logf("cannot mount a small tmpfs to test a full disk: %v", err)
		return "", false
	}
	t.Cleanup(func() { syscall.Unmount(dir, 0) })
	return dir, true
}

// TestWriteFullDevice writes a trace to /dev/full, which fails every write
// with ENOSPC as a full disk does: the error must say so.
func TestWriteFullDevice(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("SKIPPING: no /dev/full: %v", err)
	}
	defer f.Close()
	w := parlot.NewWriter(f)
	vals := make([]uint16, 1<<18)
	for i := range vals {
		vals[i] = uint16(i*7919) | 1
	}
	err = w.Write(vals)
	if err == nil {
		err = w.Close()
	}
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("writing to /dev/full: %v, want ENOSPC", err)
	}
	msg := fileError("run/trace.3.0", err).Error()
	if !strings.Contains(msg, "run/trace.3.0") || !strings.Contains(msg, "no space left") || !strings.Contains(msg, "another directory") || !errors.Is(fileError("run/trace.3.0", err), syscall.ENOSPC) {
		t.Errorf("message %q should name the file, say no space is left and what to do", msg)
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

func head(s []string) []string {
	if len(s) > 40 {
		return s[:40]
	}
	return s
}

// TestConvertNoDirs checks that converting no directory is an error, not a
// panic.
func TestConvertNoDirs(t *testing.T) {
	_, err := ConvertUftraceDirs(nil, ConvertDirsOptions{Out: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "no uftrace data directory") {
		t.Fatalf("converting no directory: %v", err)
	}
}
