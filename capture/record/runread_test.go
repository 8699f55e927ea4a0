package record

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/parlot"

	"github.com/difftrace/difftrace/trace"
)

// readInfo reads a .info function table with the reader difftrace itself
// uses, so a table it refuses fails the test.
func readInfo(t testing.TB, path string) []trace.Name {
	t.Helper()
	ft, err := parlot.ReadFuncTable(path)
	if err != nil {
		t.Fatal(err)
	}
	return ft.Names
}

// readRank decodes every thread of one rank of a run directory into
// function names, an exit being "}".
func readRank(t testing.TB, dir string, rank int) map[int][]string {
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
		vals, err := parlot.ReadAll(f, p, 0)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		seq := make([]string, len(vals))
		for i, v := range vals {
			if v == 0 {
				seq[i] = "}"
			} else if int(v) <= len(names) {
				seq[i] = names[v-1].Func
			} else {
				t.Fatalf("%s: value %d at %d is not in the .info table (%d functions)", p, v, i, len(names))
			}
		}
		out[th] = seq
	}
	return out
}
