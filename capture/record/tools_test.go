package record

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/internal/testenv"
)

// needTools stops the test (testenv.Tools) when a program it runs is
// missing.
func needTools(t testing.TB, tools ...string) {
	t.Helper()
	testenv.Tools(t, "this test records real runs and needs it", tools...)
}

// compileC builds a C program from source into dir and returns its path.
func compileC(t testing.TB, dir, name, src string, flags ...string) string {
	t.Helper()
	needTools(t, "gcc")
	c := filepath.Join(dir, name+".c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, name)
	args := append([]string{"-O0", "-g", "-o", bin, c}, flags...)
	if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return bin
}

// uftraceRecord records a program with uftrace as capture does.
func uftraceRecord(t testing.TB, dataDir string, extra []string, prog ...string) {
	t.Helper()
	needTools(t, "uftrace")
	args := append([]string{"record", "--no-event", "-d", dataDir, "-P", "."}, extra...)
	args = append(append(args, "--"), prog...)
	cmd := exec.Command("uftrace", args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("uftrace record: %v\n%s", err, out)
	}
}

// replayCalls returns uftrace's own reading of a thread: "name" at each
// entry and "}" at each exit, from uftrace replay.
func replayCalls(t testing.TB, dataDir string, tid int) []string {
	t.Helper()
	out, err := exec.Command("uftrace", "replay", "-d", dataDir, "-f", "none", "--no-comment", "--no-pager", "--tid", strconv.Itoa(tid)).Output()
	if err != nil {
		t.Fatalf("uftrace replay: %v", err)
	}
	var seq []string
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasSuffix(l, "() {"):
			seq = append(seq, strings.TrimSuffix(l, "() {"))
		case strings.HasSuffix(l, "();"):
			seq = append(seq, strings.TrimSuffix(l, "();"), "}")
		case l == "}":
			seq = append(seq, "}")
		case l == "":
		default:
			return seq // "uftrace stopped tracing with remaining functions"
		}
	}
	return seq
}

// childOf returns a child process of pid (the program uftrace forked), or 0.
func childOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			c, _ := strconv.Atoi(f[0])
			return c
		}
		return 0
	}
	// Kernels without the children file: scan for a process whose parent
	// is pid.
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		c, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(st)
		if i := strings.LastIndexByte(s, ')'); i >= 0 {
			if f := strings.Fields(s[i+1:]); len(f) > 1 && f[1] == strconv.Itoa(pid) {
				return c
			}
		}
	}
	return 0
}
