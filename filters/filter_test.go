package filters

import (
	"errors"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"", "empty spec"},
		{"   ", "empty spec"},
		{"mpii", `unknown filter "mpii"`},
		{"mpi+foo", `unknown filter "foo"`},
		{"mpi++omp", "empty term"},
		{"mpi+", "empty term"},
		{"cust=", "cust= needs a regular expression"},
		{"cust=(", `bad regular expression "("`},
		{"mpi+cust=[a-", `bad regular expression "[a-"`},
		{"MPI", `unknown filter "MPI"`},
	} {
		_, err := Parse(tc.spec)
		if err == nil {
			t.Errorf("Parse(%q): no error", tc.spec)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) {
			t.Errorf("Parse(%q) = %q, want it to say %q", tc.spec, msg, tc.want)
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("Parse(%q): error spans lines: %q", tc.spec, msg)
		}
		if strings.Contains(tc.want, "unknown") || strings.Contains(tc.want, "empty") {
			for _, name := range presetNames() {
				if !strings.Contains(msg, name) {
					t.Errorf("Parse(%q) = %q: does not list the valid term %s", tc.spec, msg, name)
				}
			}
		}
	}
}

func TestNameIsSpec(t *testing.T) {
	for _, spec := range []string{"mpi", "mpi+omp.crit+cust=CPU_Exec", "plt", "cust=a+b", "all+ret"} {
		f, err := Parse(" " + spec + " ")
		if err != nil {
			t.Fatalf("Parse(%q): %v", spec, err)
		}
		if f.Name() != spec || f.String() != spec {
			t.Errorf("Parse(%q).Name() = %q", spec, f.Name())
		}
	}
}

// keeps checks f.Keep for names that must and must not be kept.
func keeps(t *testing.T, spec string, yes, no []string) {
	t.Helper()
	f, err := Parse(spec)
	if err != nil {
		t.Fatalf("Parse(%q): %v", spec, err)
	}
	for _, n := range yes {
		if !f.Keep(n) {
			t.Errorf("%s drops %q, want kept", spec, n)
		}
	}
	for _, n := range no {
		if f.Keep(n) {
			t.Errorf("%s keeps %q, want dropped", spec, n)
		}
	}
}

func TestUnion(t *testing.T) {
	keeps(t, "mpi+omp.crit+cust=CPU_Exec",
		[]string{"MPI_Send", "GOMP_critical_start", "__kmpc_end_critical", "CPU_Exec", "my_CPU_Exec_2"},
		[]string{"GOMP_parallel", "main", "memcpy", "ompi_coll_base_barrier_intra_basic_linear"})
	keeps(t, "mem+str", []string{"memcpy", "strlen"}, []string{"MPI_Send", "printf"})
	keeps(t, "omp+omp", []string{"GOMP_barrier"}, []string{"MPI_Barrier"})
}

func TestCustomPlus(t *testing.T) {
	// A + inside a regexp belongs to it unless what follows is a term.
	keeps(t, "cust=^ab+c$", []string{"abc", "abbbc"}, []string{"ac", "MPI_Send"})
	keeps(t, "cust=^ab$+mpi", []string{"ab", "MPI_Send"}, []string{"abb", "abbmpi", "x"})
	keeps(t, "cust=x+cust=y", []string{"x1", "y1"}, []string{"z"})
	// Custom expressions see the whole name, not the base name.
	keeps(t, "cust=@plt$", []string{"MPI_Send@plt"}, []string{"MPI_Send"})
}

func TestAllPLTAndReturns(t *testing.T) {
	keeps(t, "all", []string{"main", ".plt", "printf@plt", "MPI_Send"}, nil)
	keeps(t, "plt", []string{"main", "MPI_Send", "printf"},
		[]string{".plt", ".plt.got", ".plt.sec", "printf@plt", "MPI_Send@plt", "*ABS*+0x9d6e0@plt"})
	keeps(t, "mpi+plt", []string{"MPI_Send"}, []string{"MPI_Send@plt", "main", ".plt"})
	keeps(t, "ret", []string{"main", "printf@plt"}, nil)
	for spec, want := range map[string]bool{"mpi": false, "mpi+ret": true, "ret": true, "plt": false} {
		if got := MustParse(spec).KeepsReturns(); got != want {
			t.Errorf("%s: KeepsReturns() = %v, want %v", spec, got, want)
		}
	}
}

func TestBaseName(t *testing.T) {
	for in, want := range map[string]string{
		"MPI_Send@plt":                "MPI_Send",
		"omp_set_lock@@OMP_3.0":       "omp_set_lock",
		"memcpy.part.0":               "memcpy",
		"main._omp_fn.0":              "main",
		"operator new(unsigned long)": "operator new",
		".plt.got":                    ".plt.got",
		"MPI_Send":                    "MPI_Send",
	} {
		if got := baseName(in); got != want {
			t.Errorf("baseName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPresetsListed(t *testing.T) {
	want := []string{"all", "mpi", "mpi.col", "mpi.sr", "mpi.int", "omp", "omp.crit", "omp.mutex",
		"mem", "net", "poll", "str", "plt", "ret", "cust=REGEXP"}
	got := Presets()
	if len(got) != len(want) {
		t.Fatalf("Presets() lists %d terms, want %d", len(got), len(want))
	}
	for i, p := range got {
		if p[0] != want[i] || p[1] == "" {
			t.Errorf("Presets()[%d] = %q, want %q with a description", i, p, want[i])
		}
		if _, err := Parse(strings.Replace(p[0], "REGEXP", "x", 1)); err != nil {
			t.Errorf("listed term %q does not parse: %v", p[0], err)
		}
	}
}

// A C++ function is kept by a custom regexp written with its name as in the
// source, with or without parameters, and by one written with the symbol as
// linked, so specs written before names were demangled keep working.
func TestKeepDemangled(t *testing.T) {
	step := trace.Name{Image: trace.Program, Func: "mesh::Grid::step(double)", Short: "mesh::Grid::step", Linked: "_ZN4mesh4Grid4stepEd"}
	other := trace.Name{Image: trace.Program, Func: "mesh::Grid::rank() const", Short: "mesh::Grid::rank", Linked: "_ZNK4mesh4Grid4rankEv"}
	for _, c := range []struct {
		spec        string
		step, other bool
	}{
		{`cust=^mesh::Grid::step$`, true, false},
		{`cust=Grid::step\(double\)`, true, false},
		{`cust=_ZN4mesh4Grid4stepEd`, true, false},
		{`cust=^mesh::`, true, true},
		{`cust=const$`, false, true},
		{`mpi`, false, false},
		{`all`, true, true},
	} {
		f := MustParse(c.spec)
		if got := f.KeepName(step); got != c.step {
			t.Errorf("%s keeps %s: %v, want %v", c.spec, step.Func, got, c.step)
		}
		if got := f.KeepName(other); got != c.other {
			t.Errorf("%s keeps %s: %v, want %v", c.spec, other.Func, got, c.other)
		}
	}
}

// A spec that cannot be parsed says which term is at fault, and a bad
// regular expression keeps regexp's own error.
func TestSpecError(t *testing.T) {
	for _, c := range []struct {
		spec, term string
		syntax     bool
	}{
		{"mpi+bogus", "bogus", false},
		{"mpi+cust=", "cust=", false},
		{"omp+cust=a(b", "cust=a(b", true},
		{"mpi++omp", "", false},
		{"  ", "", false},
	} {
		_, err := Parse(c.spec)
		var se *SpecError
		if !errors.As(err, &se) || se.Term != c.term {
			t.Errorf("Parse(%q): %v; want a *SpecError at term %q", c.spec, err, c.term)
			continue
		}
		var re *syntax.Error
		if errors.As(err, &re) != c.syntax {
			t.Errorf("Parse(%q): %v; *syntax.Error kept: %v, want %v", c.spec, err, !c.syntax, c.syntax)
		}
	}
}
