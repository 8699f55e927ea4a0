package filters

import (
	"strings"
	"testing"
)

// FuzzParse checks that any spec either parses or fails with a one-line
// error naming the spec, and that a parsed filter keeps its spec as name
// and answers for any function name.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"mpi", "mpi+omp.crit+cust=CPU_Exec", "cust=a+b", "plt+ret", "cust=(", "x++y", "all"} {
		f.Add(s, "MPI_Send@plt")
	}
	f.Fuzz(func(t *testing.T, spec, fn string) {
		flt, err := Parse(spec)
		if err != nil {
			if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "filter") {
				t.Fatalf("Parse(%q): malformed error %q", spec, err)
			}
			return
		}
		if flt.Name() != strings.TrimSpace(spec) {
			t.Fatalf("Parse(%q).Name() = %q", spec, flt.Name())
		}
		flt.Keep(fn)
	})
}
