package capture

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/difftrace/difftrace/parlot"
	"github.com/difftrace/difftrace/parlot/parlottest"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/internal/testenv"
	"github.com/difftrace/difftrace/trace"
)

// The Pin tool (capture/pintool) cannot be built here without an Intel Pin
// kit, but all of it except the Pin glue in parlot.cpp is plain C. These tests
// compile that C with gcc, together with the driver check/parlot_check.c, and
// check it against the Go writer, the reference files and synthetic event
// streams; they also compile it as C++ (the tool's language) with g++.

const pintoolDir = "pintool"

var pintoolSources = []string{
	"parlot_compress.c", "parlot_callstack.c", "parlot_trace.c", "parlot_info.c", "parlot_names.c",
}

// pinCUntested is why a test of the Pin tool's C parts needs a compiler.
const pinCUntested = "the Pin tool's C parts are untested"

// buildCheck compiles the driver with the tool's C files into a temporary
// directory, warnings as errors, with extra flags (e.g. sanitizers).
// fixtureDir holds the reference ParLOT files.
const fixtureDir = "../testdata/parlot"

func buildCheck(t testing.TB, extra ...string) string {
	t.Helper()
	gcc := testenv.Tool(t, "gcc", pinCUntested)
	exe := filepath.Join(t.TempDir(), "parlot_check")
	args := []string{"-std=c99", "-O2", "-g", "-Wall", "-Wextra", "-Werror", "-pedantic", "-pthread"}
	args = append(args, extra...)
	args = append(args, "-o", exe, filepath.Join(pintoolDir, "check", "parlot_check.c"))
	for _, s := range pintoolSources {
		args = append(args, filepath.Join(pintoolDir, s))
	}
	out, err := exec.Command(gcc, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("gcc %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return exe
}

// sanitizers are the run-time checks the drivers are built with.
var sanitizers = []string{"-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"}

func runCheck(t *testing.T, exe string, stdin []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(exe), strings.Join(args, " "), err, stderr.Bytes())
	}
	if stderr.Len() > 0 {
		t.Fatalf("%s %s wrote to stderr:\n%s", filepath.Base(exe), strings.Join(args, " "), stderr.Bytes())
	}
	return out
}

func u16Bytes(vals []uint16) []byte {
	b := make([]byte, 2*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint16(b[2*i:], v)
	}
	return b
}

// TestPintoolCompiles compiles every C file of the tool warning-free as C and
// as C++ (the Pin tool is built with g++ and includes the headers).
func TestPintoolCompiles(t *testing.T) {
	t.Parallel()
	gcc := testenv.Tool(t, "gcc", pinCUntested)
	gxx := testenv.Tool(t, "g++", pinCUntested)
	dir := t.TempDir()
	for _, s := range pintoolSources {
		src := filepath.Join(pintoolDir, s)
		for _, c := range [][]string{
			{gcc, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic", "-c", src, "-o", filepath.Join(dir, s+".o")},
			{gxx, "-x", "c++", "-std=c++11", "-O2", "-Wall", "-Wextra", "-Werror", "-c", src, "-o", filepath.Join(dir, s+".cc.o")},
		} {
			if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
				t.Errorf("%s: %v\n%s", strings.Join(c, " "), err, out)
			}
		}
	}
	// The headers, as parlot.cpp includes them.
	tu := filepath.Join(dir, "headers.cpp")
	abs, _ := filepath.Abs(pintoolDir)
	src := "#include \"parlot_callstack.h\"\n#include \"parlot_compress.h\"\n#include \"parlot_info.h\"\n" +
		"#include \"parlot_names.h\"\n#include \"parlot_trace.h\"\n" +
		"int main() { parlot_enc *e = new parlot_enc; parlot_enc_init(e); parlot_enc_put(e, 1);\n" +
		"  parlot_enc_finish(e); int ok = e->len == 3 && e->out[0] == 4 && e->out[1] == 1 && e->out[2] == 2;\n" +
		"  delete e; return ok ? 0 : 1; }\n"
	if err := os.WriteFile(tu, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "headers")
	args := []string{"-std=c++11", "-Wall", "-Wextra", "-Werror", "-I", abs, tu, filepath.Join(dir, "parlot_compress.c.o"), "-o", exe}
	if out, err := exec.Command(gxx, args...).CombinedOutput(); err != nil {
		t.Fatalf("g++ %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if out, err := exec.Command(exe).CombinedOutput(); err != nil {
		t.Fatalf("C++ use of the C compressor failed: %v\n%s", err, out)
	}
}

// pinSequences are value sequences that exercise the compressor: random and
// loop-heavy ones, runs that reach the 65535 count ceiling, and matches that
// reach back across the 65536-entry history wrap.
func pinSequences() map[string][]uint16 {
	r := rand.New(rand.NewPCG(3, 17))
	seqs := map[string][]uint16{}
	for n := 0; n <= 9; n++ {
		s := make([]uint16, n)
		for i := range s {
			s[i] = uint16(r.IntN(3))
		}
		seqs["short"+strconv.Itoa(n)] = s
	}
	rnd := make([]uint16, 50000)
	for i := range rnd {
		rnd[i] = uint16(r.Uint32())
	}
	seqs["random"] = rnd
	small := make([]uint16, 200000)
	for i := range small {
		small[i] = uint16(r.IntN(4))
	}
	seqs["small-alphabet"] = small

	// Nested loops with noise, entries and exits, like a solver's trace.
	var loops []uint16
	for it := 0; it < 300; it++ {
		loops = append(loops, 10, 11, 0)
		for j := 0; j < 1+r.IntN(40); j++ {
			loops = append(loops, 12, 13, 0, 14, 0, 0)
			if r.IntN(25) == 0 {
				loops = append(loops, uint16(100+r.IntN(50)), 0)
			}
		}
		loops = append(loops, 0)
	}
	seqs["loops"] = loops

	// Count ceiling: one period repeated far beyond 65535 values, and zeros.
	var sat []uint16
	for range 150000 {
		sat = append(sat, 1, 2, 3)
	}
	seqs["saturate"] = sat
	seqs["zeros"] = make([]uint16, 300000)
	var sat2 []uint16 // a run that stops exactly at the ceiling, then more
	for range 70000 {
		sat2 = append(sat2, 5, 0)
	}
	sat2 = append(sat2, 9, 9, 9, 5, 0, 5, 0)
	seqs["saturate-then-literal"] = sat2

	// History wrap: a block, more than 65536 other values, the block again
	// (the hash table then points at positions that were overwritten), and a
	// period longer than the history.
	block := make([]uint16, 3000)
	for i := range block {
		block[i] = uint16(1 + r.IntN(200))
	}
	var wrap []uint16
	wrap = append(wrap, block...)
	for range 70000 {
		wrap = append(wrap, uint16(300+r.IntN(100)))
	}
	wrap = append(wrap, block...)
	wrap = append(wrap, block...)
	seqs["wrap-block"] = wrap
	period := make([]uint16, 70001)
	for i := range period {
		period[i] = uint16(1 + r.IntN(6))
	}
	var long []uint16
	for range 3 {
		long = append(long, period...)
	}
	seqs["wrap-period"] = long

	// Time steps of a solver: periods of a few to tens of thousands of
	// values, repeated with a change now and then, so that matches overlap
	// themselves across whole periods.
	for _, p := range []int{1, 2, 5, 17, 300, 15000, 40000} {
		body := make([]uint16, p)
		for i := range body {
			body[i] = uint16(1 + r.IntN(50))
		}
		var steps []uint16
		for len(steps) < 400000 {
			steps = append(steps, body...)
			if r.IntN(3) == 0 {
				body[r.IntN(p)] = uint16(1 + r.IntN(50))
			}
		}
		seqs["steps-"+strconv.Itoa(p)] = steps
	}
	return seqs
}

// TestPintoolCompressorFixtures checks the C compressor byte for byte against
// every reference file, built plainly (-O2) and with sanitizers.
func TestPintoolCompressorFixtures(t *testing.T) {
	t.Parallel()
	for _, variant := range [][]string{nil, sanitizers} {
		exe := buildCheck(t, variant...)
		for _, p := range parlottest.FixturePairs(t, fixtureDir) {
			want, err := os.ReadFile(p[0])
			if err != nil {
				t.Fatal(err)
			}
			in, err := os.ReadFile(p[1])
			if err != nil {
				t.Fatal(err)
			}
			got := runCheck(t, exe, in, "compress")
			if !bytes.Equal(got, want) {
				t.Errorf("%v: C compressor on %s: %d bytes, want %d; first difference at byte %d",
					variant, filepath.Base(p[1]), len(got), len(want), parlottest.FirstDiff(got, want))
			}
		}
	}
}

// TestPintoolCompressorMatchesWriter checks the C compressor against the Go
// writer on generated sequences, and that both decode back.
func TestPintoolCompressorMatchesWriter(t *testing.T) {
	t.Parallel()
	exe := buildCheck(t, sanitizers...)
	for name, vals := range pinSequences() {
		want := parlottest.Encode(t, vals, 1<<30)
		got := runCheck(t, exe, u16Bytes(vals), "compress")
		if !bytes.Equal(got, want) {
			t.Errorf("%s (%d values): C %d bytes, Go %d bytes; first difference at byte %d",
				name, len(vals), len(got), len(want), parlottest.FirstDiff(got, want))
			continue
		}
		back, err := parlot.ReadAll(bytes.NewReader(got), name, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(back, vals) {
			t.Errorf("%s: decoding the C output gives %d values, want %d", name, len(back), len(vals))
		}
	}
}

// TestPintoolCompressorTail checks parlot_enc_tail: the bytes so far plus the
// tail, at any point, are exactly the complete trace of the values so far.
func TestPintoolCompressorTail(t *testing.T) {
	t.Parallel()
	exe := buildCheck(t, sanitizers...)
	seqs := pinSequences()
	r := rand.New(rand.NewPCG(5, 5))
	for _, name := range []string{"short9", "loops", "saturate", "saturate-then-literal", "wrap-block", "small-alphabet"} {
		vals := seqs[name]
		cuts := []int{0, 1, 2, 3, 4, 5, len(vals)}
		for range 12 {
			cuts = append(cuts, r.IntN(len(vals)+1))
		}
		if name == "saturate" {
			cuts = append(cuts, 3+65535, 3+65535+1, 3+65535+2)
		}
		for _, k := range cuts {
			if k > len(vals) {
				continue
			}
			want := parlottest.Encode(t, vals[:k], 1<<30)
			got := runCheck(t, exe, u16Bytes(vals), "compress", "-t", strconv.Itoa(k))
			if !bytes.Equal(got, want) {
				t.Errorf("%s cut at %d: %d bytes, want %d; first difference at byte %d",
					name, k, len(got), len(want), parlottest.FirstDiff(got, want))
			}
		}
	}
}

// pinEvent is one function entry or exit as the Pin glue reports it.
type pinEvent struct {
	exit bool
	id   uint16
	sp   uint64
}

func eventText(evs []pinEvent) []byte {
	var b bytes.Buffer
	for _, e := range evs {
		if e.exit {
			fmt.Fprintf(&b, "x %x\n", e.sp)
		} else {
			fmt.Fprintf(&b, "e %d %x\n", e.id, e.sp)
		}
	}
	return b.Bytes()
}

func parseValues(t *testing.T, out []byte) []uint16 {
	t.Helper()
	var vals []uint16
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		v, err := strconv.ParseUint(sc.Text(), 10, 16)
		if err != nil {
			t.Fatalf("driver output line %q: %v", sc.Text(), err)
		}
		vals = append(vals, uint16(v))
	}
	return vals
}

// TestPintoolCallstackCases checks call-stack correction on small streams
// whose right answer is known.
func TestPintoolCallstackCases(t *testing.T) {
	t.Parallel()
	exe := buildCheck(t, sanitizers...)
	e := func(id uint16, sp uint64) pinEvent { return pinEvent{id: id, sp: sp} }
	x := func(sp uint64) pinEvent { return pinEvent{exit: true, sp: sp} }
	cases := []struct {
		name string
		evs  []pinEvent
		want []uint16
	}{
		{"nested", []pinEvent{e(1, 0x100), e(2, 0xf0), x(0xf0), x(0x100)}, []uint16{1, 2, 0, 0}},
		{"recursion", []pinEvent{e(1, 0x100), e(1, 0xf0), e(1, 0xe0), x(0xe0), x(0xf0), x(0x100)}, []uint16{1, 1, 1, 0, 0, 0}},
		// The exit of 2 was missed; the next call from 1 (same stack
		// pointer) shows that 2 had returned.
		{"missed exit, next call", []pinEvent{e(1, 0x100), e(2, 0xf0), e(3, 0xf0), x(0xf0), x(0x100)}, []uint16{1, 2, 0, 3, 0, 0}},
		// Missed exits of 3 and 2, found when 1 returns.
		{"missed exits, caller returns", []pinEvent{e(1, 0x100), e(2, 0xf0), e(3, 0xe0), x(0x100)}, []uint16{1, 2, 3, 0, 0, 0}},
		// 1 tail-calls 2 (a jump: same stack pointer, no exit of 1).
		{"tail call", []pinEvent{e(1, 0x100), e(2, 0x100), x(0x100)}, []uint16{1, 0, 2, 0}},
		// longjmp from 4 back into 1, which then calls 5.
		{"longjmp", []pinEvent{e(1, 0x100), e(2, 0xf0), e(3, 0xe0), e(4, 0xd0), e(5, 0xf0), x(0xf0), x(0x100)},
			[]uint16{1, 2, 3, 4, 0, 0, 0, 5, 0, 0}},
		// Exits of functions entered before tracing began emit nothing.
		{"unmatched exits", []pinEvent{x(0x200), e(1, 0x100), x(0x100), x(0x200), x(0x300)}, []uint16{1, 0}},
		// An exit deeper than the top frame (its entry was not seen).
		{"exit below top", []pinEvent{e(1, 0x100), x(0xf0), x(0x100)}, []uint16{1, 0}},
		// A killed thread: the open calls stay open.
		{"killed", []pinEvent{e(1, 0x100), e(2, 0xf0), e(7, 0xe0)}, []uint16{1, 2, 7}},
		{"empty", nil, nil},
	}
	for _, c := range cases {
		got := parseValues(t, runCheck(t, exe, eventText(c.evs), "callstack"))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

// simulateProgram runs a random program on a downward-growing stack and
// returns the events Pin would report (with some exits missed, tail calls,
// longjmps and frames entered before tracing began) and, for every entry
// event, the real call stack right after it (IDs, outermost first), plus the
// real stack at the end.
func simulateProgram(r *rand.Rand, steps int) (evs []pinEvent, stacks [][]uint16, final []uint16) {
	type frame struct {
		id       uint16
		sp, size uint64
		hidden   bool // entered before tracing began: no entry event
	}
	stack := []frame{{1000, 0x7fff0000, 0x40, true}, {1001, 0x7ffeffb8, 0x80, true}}
	real := func() []uint16 {
		var ids []uint16
		for _, f := range stack {
			if !f.hidden {
				ids = append(ids, f.id)
			}
		}
		return ids
	}
	for len(evs) < steps {
		top := &stack[len(stack)-1]
		switch k := r.IntN(100); {
		case len(stack) < 60 && k < 48: // call
			f := frame{id: uint16(1 + r.IntN(300)), sp: top.sp - top.size - 8, size: uint64(16 * (1 + r.IntN(8)))}
			stack = append(stack, f)
			evs = append(evs, pinEvent{id: f.id, sp: f.sp})
			stacks = append(stacks, real())
		case k < 90 && len(stack) > 1: // return
			if !(top.hidden && len(stack) == 1) {
				stack = stack[:len(stack)-1]
				evs = append(evs, pinEvent{exit: true, sp: top.sp})
			}
		case k < 94 && len(stack) > 2: // return that Pin does not see
			if !top.hidden {
				stack = stack[:len(stack)-1]
			}
		case k < 97 && !top.hidden: // tail call: jump to another function
			top.id = uint16(1 + r.IntN(300))
			evs = append(evs, pinEvent{id: top.id, sp: top.sp})
			stacks = append(stacks, real())
		case len(stack) > 4: // longjmp to an older frame
			keep := 2 + r.IntN(len(stack)-2)
			stack = stack[:keep]
		}
		if len(stack) == 0 {
			break
		}
	}
	return evs, stacks, real()
}

// TestPintoolCallstackSimulated checks on random programs that the corrected
// trace is well nested and that decoding it gives the real call stack at
// every entry and at the end.
func TestPintoolCallstackSimulated(t *testing.T) {
	t.Parallel()
	exe := buildCheck(t, sanitizers...)
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 99))
		evs, stacks, final := simulateProgram(r, 5000)
		vals := parseValues(t, runCheck(t, exe, eventText(evs), "callstack"))
		var st []uint16
		entry := 0
		for i, v := range vals {
			if v == 0 {
				if len(st) == 0 {
					t.Fatalf("seed %d: value %d is an exit with no open call", seed, i)
				}
				st = st[:len(st)-1]
				continue
			}
			st = append(st, v)
			if entry >= len(stacks) {
				t.Fatalf("seed %d: more entries in the trace than entry events", seed)
			}
			if !slices.Equal(st, stacks[entry]) {
				t.Fatalf("seed %d: after entry %d (value %d) the trace's stack is %v, the real one %v",
					seed, entry, i, st, stacks[entry])
			}
			entry++
		}
		if entry != len(stacks) {
			t.Fatalf("seed %d: %d entries in the trace, %d entry events", seed, entry, len(stacks))
		}
		// At the end the trace may still hold frames whose exits no later
		// event revealed; they must be the real ones or their returned
		// descendants, i.e. the real stack is a prefix.
		if len(st) < len(final) || !slices.Equal(st[:len(final)], final) {
			t.Fatalf("seed %d: final stack %v, real %v", seed, st, final)
		}
	}
}

// traceEvents is a long event stream for the trace-file tests: a random
// program (poorly compressible, so the trace drains its buffer by itself
// many times) followed by loop-heavy calls, and the corrected values.
func traceEvents(t *testing.T, exe string, steps int) ([]pinEvent, []uint16) {
	r := rand.New(rand.NewPCG(11, 12))
	evs, _, _ := simulateProgram(r, steps)
	sp := uint64(0x1000)
	for range 2000 {
		evs = append(evs, pinEvent{id: 7, sp: sp}, pinEvent{id: 8, sp: sp - 0x20}, pinEvent{exit: true, sp: sp - 0x20}, pinEvent{exit: true, sp: sp})
	}
	evs = append(evs, pinEvent{id: 9, sp: sp}, pinEvent{id: 10, sp: sp - 0x40})
	vals := parseValues(t, runCheck(t, exe, eventText(evs), "callstack"))
	return evs, vals
}

func decodeFile(t *testing.T, path string) []uint16 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	vals, err := parlot.ReadAll(bytes.NewReader(b), path, 0)
	if err != nil {
		t.Fatalf("%s is not a complete trace: %v", path, err)
	}
	return vals
}

// TestPintoolTraceFile checks a thread's trace file end to end: events in,
// corrected and compressed, and the file is the Go writer's output of the
// corrected values, byte for byte, also while a flusher thread writes it
// concurrently (every copy taken after a flush is a complete trace of a prefix).
func TestPintoolTraceFile(t *testing.T) {
	t.Parallel()
	exe := buildCheck(t, sanitizers...)
	evs, vals := traceEvents(t, exe, 150000)
	want := parlottest.Encode(t, vals, 1<<30)
	in := eventText(evs)
	dir := t.TempDir()

	for _, flush := range []string{"0", "1"} {
		path := filepath.Join(dir, "Hdbg.17.test.0."+flush)
		args := []string{"trace", path, "-f", flush}
		snaps := filepath.Join(dir, "snaps"+flush)
		if flush != "0" {
			if err := os.Mkdir(snaps, 0o755); err != nil {
				t.Fatal(err)
			}
			args = append(args, "-S", snaps)
		}
		out := runCheck(t, exe, in, args...)
		if got := strings.TrimSpace(string(out)); got != fmt.Sprintf("values %d err 0", len(vals)) {
			t.Fatalf("flush %s: driver says %q, want %d values and no error", flush, got, len(vals))
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("flush %s: trace file %d bytes, Go writer %d; first difference at byte %d",
				flush, len(got), len(want), parlottest.FirstDiff(got, want))
		}
		if flush == "0" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(snaps, "snap.*"))
		if len(files) < 3 {
			t.Fatalf("only %d snapshots: the flusher did not run alongside the events", len(files))
		}
		partial := 0
		for _, f := range files {
			s := decodeFile(t, f)
			if !slices.Equal(s, vals[:len(s)]) {
				t.Fatalf("%s decodes to %d values that are not a prefix of the trace", f, len(s))
			}
			if len(s) > 0 && len(s) < len(vals) {
				partial++
			}
		}
		if partial == 0 {
			t.Errorf("no snapshot was taken mid-stream (%d snapshots)", len(files))
		}
	}
}

// TestPintoolTraceKilled kills a process whose thread is blocked (like a rank
// in a deadlock) with SIGKILL, which no handler sees: the periodic flush has
// already put every event, open calls included, on disk.
func TestPintoolTraceKilled(t *testing.T) {
	t.Parallel()
	exe := buildCheck(t, sanitizers...)
	evs, vals := traceEvents(t, exe, 20000)
	in := append(eventText(evs), "b\n"...)
	for _, flush := range []string{"20", "0"} {
		path := filepath.Join(t.TempDir(), "Hdbg.17.test.5.0")
		cmd := exec.Command(exe, "trace", path, "-f", flush)
		cmd.Stdin = bytes.NewReader(in)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil || line != "blocked\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("driver said %q (%v), stderr %s", line, err, stderr.Bytes())
		}
		if flush != "0" {
			// Wait for the flusher to write everything (SIGKILL cannot add
			// anything to the file afterwards).
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if got, err := parlot.ReadAll(bytes.NewReader(b), path, 0); err == nil && len(got) == len(vals) {
					break
				}
			}
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err = cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("driver was not killed by SIGKILL: %v", err)
		}
		got := decodeFile(t, path)
		if flush == "0" {
			// No flusher: the file holds what the thread wrote when its
			// buffer filled - a complete trace of a prefix.
			if !slices.Equal(got, vals[:len(got)]) {
				t.Fatalf("without flusher: %d values that are not a prefix", len(got))
			}
			continue
		}
		if !slices.Equal(got, vals) {
			t.Fatalf("killed trace decodes to %d values, want all %d", len(got), len(vals))
		}
		// The hang point: the last two calls are still open.
		if n := len(got); got[n-2] != 9 || got[n-1] != 10 {
			t.Fatalf("killed trace ends with %v, want the open calls 9, 10", got[n-2:])
		}
	}
}

// TestPintoolTraceWriteError makes writes fail (file size limit, as a full
// disk would): the file keeps the last complete trace and the error is
// reported.
func TestPintoolTraceWriteError(t *testing.T) {
	t.Parallel()
	exe := buildCheck(t, sanitizers...)
	evs, vals := traceEvents(t, exe, 100000)
	path := filepath.Join(t.TempDir(), "Hdbg.17.test.0.0")
	out := strings.TrimSpace(string(runCheck(t, exe, eventText(evs), "trace", path, "-L", "40000")))
	var recorded, errno int
	if _, err := fmt.Sscanf(out, "values %d err %d", &recorded, &errno); err != nil || errno != int(syscall.EFBIG) {
		t.Fatalf("driver says %q, want the error %d (EFBIG)", out, int(syscall.EFBIG))
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > 40000 {
		t.Fatalf("file is %d bytes, above the 40000-byte limit", st.Size())
	}
	got := decodeFile(t, path)
	if len(got) == 0 || len(got) > recorded || recorded >= len(vals) || !slices.Equal(got, vals[:len(got)]) {
		t.Fatalf("after the failure the file decodes to %d values (%d recorded, %d events), want a non-empty prefix of the recorded ones",
			len(got), recorded, len(vals))
	}

	// A file that cannot be created is reported, not a crash.
	cmd := exec.Command(exe, "trace", filepath.Join(t.TempDir(), "missing", "x.0.0"))
	cmd.Stdin = strings.NewReader("")
	msg, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "No such file or directory") {
		t.Fatalf("creating a trace in a missing directory: err %v, output %q", err, msg)
	}
}

// TestPintoolTraceStolenLock checks parlot_trace_close_try, which the tool
// uses at process exit: a trace whose thread died inside an event (its lock
// still taken) is still closed, with every event it recorded.
func TestPintoolTraceStolenLock(t *testing.T) {
	t.Parallel()
	exe := buildCheck(t, sanitizers...)
	evs, vals := traceEvents(t, exe, 5000)
	path := filepath.Join(t.TempDir(), "t.0.0")
	out := strings.TrimSpace(string(runCheck(t, exe, append(eventText(evs), "k\n"...), "trace", path)))
	if out != fmt.Sprintf("values %d err 0", len(vals)) {
		t.Fatalf("driver says %q", out)
	}
	if got := decodeFile(t, path); !slices.Equal(got, vals) {
		t.Fatalf("trace decodes to %d values, want %d", len(got), len(vals))
	}
}

// TestPintoolEmptyTrace checks that a thread with no events leaves the empty
// trace (the single byte 00), not an empty file.
func TestPintoolEmptyTrace(t *testing.T) {
	t.Parallel()
	exe := buildCheck(t)
	path := filepath.Join(t.TempDir(), "t.0.0")
	runCheck(t, exe, nil, "trace", path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, []byte{0}) {
		t.Fatalf("empty trace is % x, want 00", b)
	}
}

// TestPintoolInfo checks the .info function table: format, IDs, sections
// without functions, line breaks in names and the 65534-ID limit.
func TestPintoolInfo(t *testing.T) {
	t.Parallel()
	exe := buildCheck(t, sanitizers...)
	path := filepath.Join(t.TempDir(), "Hdbg.17.test.3.info")
	in := "+ /home/user/oddeven/oddeven\nf main\nf odd\\neven\n+ [vdso]\n" +
		"+ /usr/lib/x86_64-linux-gnu/libmpi.so.40\nf MPI_Send\nf MPI_Recv\n" +
		"+ /big\nn 65529\nf last\nf one-too-many\n"
	out := strings.Fields(string(runCheck(t, exe, []byte(in), "info", path)))
	want := []string{"1", "2", "3", "4", "65533", "65534", "0", "skipped", "1", "err", "0"}
	if !slices.Equal(out, want) {
		t.Fatalf("IDs %v, want %v", out, want)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head := "+\n/home/user/oddeven/oddeven\nmain\nodd?even\n+\n/usr/lib/x86_64-linux-gnu/libmpi.so.40\nMPI_Send\nMPI_Recv\n+\n/big\nf0\nf1\n"
	if !strings.HasPrefix(string(b), head) {
		t.Fatalf(".info starts with %q, want %q", string(b[:min(len(b), len(head))]), head)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if n := len(lines); n != 3*2+4+65530 || lines[n-1] != "last" || lines[n-2] != "f65528" {
		t.Fatalf(".info has %d lines ending %q, want %d ending f65528, last", n, lines[max(0, n-2):], 3*2+4+65530)
	}
	// The reference fixture's format: IDs follow the names across sections.
	ref, err := os.ReadFile(filepath.Join(fixtureDir, "oddeven4", "Hdbg.17.node01.3208.info"))
	if err != nil {
		t.Fatal(err)
	}
	var script strings.Builder
	image := false
	for _, l := range strings.Split(strings.TrimSuffix(string(ref), "\n"), "\n") {
		switch {
		case l == "+":
			image = true
		case image:
			script.WriteString("+ " + l + "\n")
			image = false
		default:
			script.WriteString("f " + l + "\n")
		}
	}
	path2 := filepath.Join(t.TempDir(), "ref.info")
	runCheck(t, exe, []byte(script.String()), "info", path2)
	if got, _ := os.ReadFile(path2); !bytes.Equal(got, ref) {
		t.Fatalf("rewriting the reference table gives\n%s\nwant\n%s", got, ref)
	}

	// Names that would break the table: empty ones, "+".
	path3 := filepath.Join(t.TempDir(), "odd.info")
	runCheck(t, exe, []byte("+ \nf \nf +\nf ok\n"), "info", path3)
	got, _ := os.ReadFile(path3)
	if want := "+\n(unnamed image)\n(anonymous)\n?+\nok\n"; string(got) != want {
		t.Fatalf("odd names: %q, want %q", got, want)
	}
	ft, err := parlot.ReadFuncTable(path3)
	if err != nil || len(ft.Names) != 3 || ft.Names[2].Func != "ok" {
		t.Fatalf("the project's reader on the odd table: %+v, %v", ft, err)
	}
}

// TestPintoolRunReadable writes a two-process run the way the tool does
// (function tables and thread traces named <prefix>.<rank>.info and
// <prefix>.<rank>.<thread>) and opens it with the project's decoder.
func TestPintoolRunReadable(t *testing.T) {
	t.Parallel()
	exe := buildCheck(t, sanitizers...)
	dir := t.TempDir()
	name := func(rank int, suffix string) string {
		out := runCheck(t, exe, nil, "names", dir, "Hdbg.17.test", strconv.Itoa(rank), suffix)
		for _, l := range strings.Split(string(out), "\n") {
			if p, ok := strings.CutPrefix(l, "path "); ok {
				return p
			}
		}
		t.Fatalf("names gave no path: %q", out)
		return ""
	}
	table := "+ /home/user/app\nf main\nf work\n+ /usr/lib/libmpi.so.40\nf MPI_Recv\n"
	e := func(id uint16, sp uint64) pinEvent { return pinEvent{id: id, sp: sp} }
	x := func(sp uint64) pinEvent { return pinEvent{exit: true, sp: sp} }
	threads := map[[2]int][]pinEvent{
		// Rank 0 hangs in MPI_Recv; its exit of work was missed.
		{0, 0}: {e(1, 0x100), e(2, 0xf0), e(3, 0xf0)},
		{0, 1}: {e(2, 0x200), x(0x200)},
		{1, 0}: {e(1, 0x100), e(3, 0xf0), x(0xf0), x(0x100)},
	}
	for rank := range 2 {
		runCheck(t, exe, []byte(table), "info", name(rank, "info"))
	}
	for k, evs := range threads {
		runCheck(t, exe, eventText(evs), "trace", name(k[0], strconv.Itoa(k[1])))
	}
	run, err := decode.Open(dir, trace.NewTable(), decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Procs) != 2 {
		t.Fatalf("%d processes, want 2", len(run.Procs))
	}
	traces, err := run.Load(run.Traces())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"0.0": "main work <return> MPI_Recv",
		"0.1": "work <return>",
		"1.0": "main MPI_Recv <return> <return>",
	}
	if len(traces) != len(want) {
		t.Fatalf("%d traces, want %d", len(traces), len(want))
	}
	for _, tr := range traces {
		var names []string
		for _, s := range tr.Events {
			names = append(names, run.Symbols.Name(s).Func)
		}
		if got := strings.Join(names, " "); got != want[tr.ID.String()] {
			t.Errorf("trace %s: %q, want %q", tr.ID, got, want[tr.ID.String()])
		}
	}
}

// TestPintoolNames checks rank detection from the launchers' environment
// variables, the default prefix (the same as the Go side's) and file paths.
func TestPintoolNames(t *testing.T) {
	t.Parallel()
	exe := buildCheck(t, sanitizers...)
	cases := []struct {
		env  []string
		want string
	}{
		{nil, "rank -1 -"},
		{[]string{"OMPI_COMM_WORLD_RANK=3"}, "rank 3 OMPI_COMM_WORLD_RANK"},
		{[]string{"SLURM_PROCID=0", "PMI_RANK=7"}, "rank 7 PMI_RANK"},
		{[]string{"OMPI_COMM_WORLD_RANK=x", "PMIX_RANK=2"}, "rank 2 PMIX_RANK"},
		{[]string{"SLURM_PROCID=4"}, "rank 4 SLURM_PROCID"},
		{[]string{"MV2_COMM_WORLD_RANK=9"}, "rank 9 MV2_COMM_WORLD_RANK"},
		{[]string{"PMI_RANK= 3", "MV2_COMM_WORLD_RANK=99999999999"}, "rank -1 -"},
		{[]string{"OMPI_COMM_WORLD_RANK=", "PMI_RANK=15"}, "rank 15 PMI_RANK"},
	}
	for _, c := range cases {
		cmd := exec.Command(exe, "names", "/out", "Hdbg.17.n1", "5", "info")
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, c.env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", c.env, err, out)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != 4 {
			t.Fatalf("%v: output %q", c.env, out)
		}
		if lines[0] != c.want {
			t.Errorf("%v: %q, want %q", c.env, lines[0], c.want)
		}
		if want := "prefix " + DefaultPinPrefix(); lines[1] != want {
			t.Errorf("C default prefix %q, Go %q", lines[1], want)
		}
		if lines[2] != "path /out/Hdbg.17.n1.5.info" || lines[3] != "short -1" {
			t.Errorf("paths: %q", lines[2:])
		}
	}
	out := runCheck(t, exe, nil, "names", "", "P", "12", "3")
	if !strings.Contains(string(out), "path P.12.3\n") {
		t.Errorf("path without directory: %q", out)
	}
}

// TestPintoolTraceThreadSanitizer runs the concurrent flush test under the
// thread sanitizer, which checks the trace's lock.
func TestPintoolTraceThreadSanitizer(t *testing.T) {
	t.Parallel()
	exe := buildCheck(t, "-fsanitize=thread")
	// Thread sanitizer runtimes refuse some kernels' randomized memory
	// layouts; without randomization (setarch -R) they run.
	var prefix []string
	probe := func() ([]byte, error) {
		args := append(append([]string(nil), prefix...), exe, "compress")
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Stdin = strings.NewReader("")
		return cmd.CombinedOutput()
	}
	if _, err := probe(); err != nil {
		prefix = []string{"setarch", "-R"}
		if out, err := probe(); err != nil {
			if testenv.InCI() {
				t.Fatalf("the thread sanitizer does not run here, even with setarch -R: %v\n%s", err, out)
			}
			t.Skipf("SKIPPING: the thread sanitizer does not run here: %v\n%s", err, out)
		}
	}
	evs, vals := traceEvents(t, buildCheck(t), 100000)
	path := filepath.Join(t.TempDir(), "t.0.0")
	args := append(append([]string(nil), prefix...), exe, "trace", path, "-f", "1")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin = bytes.NewReader(eventText(evs))
	raw, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%q: %v\n%s", args, err, raw)
	}
	out := strings.TrimSpace(string(raw))
	if out != fmt.Sprintf("values %d err 0", len(vals)) {
		t.Fatalf("driver says %q", out)
	}
	if got := decodeFile(t, path); !slices.Equal(got, vals) {
		t.Fatalf("trace decodes to %d values, want %d", len(got), len(vals))
	}
}

// TestFindPin checks how the Pin backend finds Pin and the tool, and its
// errors when they are missing.
func TestFindPin(t *testing.T) {
	t.Parallel()
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	empty := t.TempDir()

	_, err := FindPin(env("PATH", empty))
	if !errors.Is(err, ErrPinNotFound) {
		t.Fatalf("no Pin anywhere: %v", err)
	}
	if !strings.HasPrefix(err.Error(), "Pin not found: set PIN_ROOT to an Intel Pin kit and build capture/pintool with make PIN_ROOT=") {
		t.Fatalf("error %q", err)
	}
	_, err = FindPin(env("PIN_ROOT", empty, "PATH", empty))
	if !errors.Is(err, ErrPinNotFound) || !strings.Contains(err.Error(), "PIN_ROOT="+empty) {
		t.Fatalf("PIN_ROOT without pin: %v", err)
	}

	// A kit: an executable named pin. The tool is not built yet.
	kit := t.TempDir()
	pin := filepath.Join(kit, "pin")
	if err := os.WriteFile(pin, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	toolDir := t.TempDir()
	_, err = FindPin(env("PIN_ROOT", kit), toolDir)
	if !errors.Is(err, ErrPinToolNotBuilt) || !strings.Contains(err.Error(), filepath.Join(toolDir, "obj-intel64", "parlot.so")) {
		t.Fatalf("tool not built: %v", err)
	}
	tool := filepath.Join(toolDir, "obj-intel64", "parlot.so")
	if err := os.MkdirAll(filepath.Dir(tool), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tool, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := FindPin(env("PIN_ROOT", kit), toolDir)
	if err != nil || p.Launcher != pin || p.Tool != tool {
		t.Fatalf("FindPin = %+v, %v; want %s and %s", p, err, pin, tool)
	}
	// pin on PATH, the tool named by the environment.
	p, err = FindPin(env("PATH", empty+string(filepath.ListSeparator)+kit, PinToolEnv, tool))
	if err != nil || p.Launcher != pin || p.Tool != tool {
		t.Fatalf("FindPin via PATH = %+v, %v", p, err)
	}
	_, err = FindPin(env("PIN_ROOT", kit, PinToolEnv, filepath.Join(empty, "nope.so")))
	if !errors.Is(err, ErrPinToolNotBuilt) {
		t.Fatalf("%s naming a missing file: %v", PinToolEnv, err)
	}
	// A file named pin that is not executable is not Pin.
	if err := os.Chmod(pin, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := FindPin(env("PIN_ROOT", kit), toolDir); !errors.Is(err, ErrPinNotFound) {
		t.Fatalf("non-executable pin: %v", err)
	}
}

// TestPinArgs checks the command line the Pin backend runs.
func TestPinArgs(t *testing.T) {
	t.Parallel()
	p := &Pin{Launcher: "/opt/pin/pin", Tool: "/src/capture/pintool/obj-intel64/parlot.so"}
	r := PinRun{Dir: "/runs/normal", Prefix: "Hdbg.17.node01", Rank: 5}
	got := p.Args(r, "./oddeven", "--swap-bug", "5", "7")
	want := []string{"/opt/pin/pin", "-t", "/src/capture/pintool/obj-intel64/parlot.so",
		"-o", "/runs/normal", "-prefix", "Hdbg.17.node01", "-rank", "5", "--", "./oddeven", "--swap-bug", "5", "7"}
	if !slices.Equal(got, want) {
		t.Fatalf("Args =\n%q\nwant\n%q", got, want)
	}
	r = PinRun{Rank: -1, AllImages: true, FlushEvery: 50 * time.Millisecond}
	got = p.Args(r, "./ilcs")
	want = []string{"/opt/pin/pin", "-t", p.Tool, "-o", ".", "-prefix", DefaultPinPrefix(),
		"-all_images", "1", "-flush_ms", "50", "--", "./ilcs"}
	if !slices.Equal(got, want) {
		t.Fatalf("Args =\n%q\nwant\n%q", got, want)
	}
	if got := p.Args(PinRun{Rank: 0, FlushEvery: time.Microsecond}, "a"); !slices.Contains(got, "-rank") || got[slices.Index(got, "-flush_ms")+1] != "1" {
		t.Fatalf("rank 0 and a sub-millisecond flush period: %q", got)
	}
	cmd := p.Command(context.Background(), PinRun{Dir: "d", Prefix: "P", Rank: 2}, "./app", "x")
	if cmd.Path != "/opt/pin/pin" || !slices.Equal(cmd.Args, p.Args(PinRun{Dir: "d", Prefix: "P", Rank: 2}, "./app", "x")) {
		t.Fatalf("Command: %s %q", cmd.Path, cmd.Args)
	}
	r = PinRun{Dir: "/runs/x", Prefix: "Hdbg.17.n", Rank: 12}
	if r.InfoPath() != "/runs/x/Hdbg.17.n.12.info" || r.TracePath(3) != "/runs/x/Hdbg.17.n.12.3" {
		t.Fatalf("paths %s %s", r.InfoPath(), r.TracePath(3))
	}
}

// BenchmarkPintoolCompressor measures the tool's C compressor (built -O2, run
// as a process on a file of values) and the Go writer on the same loop-heavy
// sequence of 2^24 values; the figure is ns per value.
func BenchmarkPintoolCompressor(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]uint16, 0, 1<<24)
	for len(vals) < cap(vals)-64 {
		vals = append(vals, 10, 11, 0)
		for range 1 + r.IntN(40) {
			vals = append(vals, 12, 13, 0, 14, 0, 0)
			if r.IntN(25) == 0 {
				vals = append(vals, uint16(100+r.IntN(50)), 0)
			}
		}
		vals = append(vals, 0)
	}
	in := filepath.Join(b.TempDir(), "vals.u16")
	if err := os.WriteFile(in, u16Bytes(vals), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("C", func(b *testing.B) {
		exe := buildCheck(b)
		for b.Loop() {
			f, err := os.Open(in)
			if err != nil {
				b.Fatal(err)
			}
			cmd := exec.Command(exe, "compress")
			cmd.Stdin = f
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(vals)), "ns/value")
	})
	b.Run("Go", func(b *testing.B) {
		for b.Loop() {
			w := parlot.NewWriter(io.Discard)
			if err := w.Write(vals); err != nil {
				b.Fatal(err)
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(vals)), "ns/value")
	})
}
