package record

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTailCaller: a function that ends in a jump to another one, through
// the library's own PLT stub (an exported callee) or directly (a hidden
// one), is named as the caller of a frame found in the callee.
func TestTailCaller(t *testing.T) {
	lib := compileC(t, t.TempDir(), "libtail.so", `
int inner(int x) { return x * 3 + 1; }
__attribute__((visibility("hidden"), noinline)) int hidden(int x) { return x * 7 + 2; }
int outer(int x) { return inner(x + 1); }
int outer_hidden(int x) { return hidden(x + 2); }
int other(int x) { return x + 5; }
`, "-O2", "-fPIC", "-shared")
	for _, c := range []struct {
		names   []string
		callees []string
		want    string
	}{
		{[]string{"other", "outer"}, []string{"inner"}, "outer"},
		{[]string{"other", "outer_hidden"}, []string{"hidden"}, "outer_hidden"},
		{[]string{"other"}, []string{"inner"}, ""},
		{[]string{"outer"}, []string{"nosuch"}, ""},
	} {
		if got := tailCaller(lib, c.names, c.callees); got != c.want {
			t.Errorf("tailCaller(%v, %v) = %q, want %q", c.names, c.callees, got, c.want)
		}
	}
	if got := tailCaller(filepath.Join(t.TempDir(), "missing.so"), []string{"outer"}, []string{"inner"}); got != "" {
		t.Errorf("a missing file named %q", got)
	}
}

// TestTailCallerMPIFinalize: Open MPI's MPI_Finalize reaches
// ompi_mpi_finalize by a tail call, which is where a rank blocked in
// MPI_Finalize is found; the snapshot must name MPI_Finalize.
func TestTailCallerMPIFinalize(t *testing.T) {
	needTools(t, "mpicc")
	out, err := exec.Command("mpicc", "--showme:libdirs").Output()
	if err != nil {
		t.Fatalf("mpicc --showme:libdirs: %v", err)
	}
	var lib string
	for _, dir := range strings.Fields(string(out)) {
		if m, _ := filepath.Glob(filepath.Join(dir, "libmpi.so.*")); len(m) > 0 {
			lib = m[0]
		}
	}
	if lib == "" {
		if m, _ := filepath.Glob("/usr/lib/*/libmpi.so.*"); len(m) > 0 {
			lib = m[0]
		}
	}
	if lib == "" {
		t.Fatalf("no libmpi.so under %q", strings.TrimSpace(string(out)))
	}
	if got := tailCaller(lib, []string{"MPI_Init", "MPI_Recv", "MPI_Finalize"}, []string{"ompi_mpi_finalize"}); got != "MPI_Finalize" {
		t.Errorf("%s: tail caller of ompi_mpi_finalize %q, want MPI_Finalize", lib, got)
	}
}
