package record

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// One directory of per-rank recordings stands for them, ranked by the
// numbers that end their names, or by their sorted names; several
// directories are ranked by their names' numbers when they are distinct.
func TestUftraceRecordings(t *testing.T) {
	root := t.TempDir()
	mk := func(parts ...string) string {
		d := filepath.Join(append([]string{root}, parts...)...)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "task.txt"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return d
	}
	r10, r2 := mk("numbered", "uftrace.10"), mk("numbered", "uftrace.2")
	a, b := mk("named", "beta"), mk("named", "alpha")
	for _, c := range []struct {
		paths    []string
		numbered bool
		dirs     []string
		ranks    []int
		byName   bool
	}{
		{[]string{filepath.Join(root, "numbered")}, true, []string{r10, r2}, []int{10, 2}, false},
		{[]string{filepath.Join(root, "numbered")}, false, []string{r10, r2}, nil, false},
		{[]string{filepath.Join(root, "named")}, true, []string{b, a}, []int{0, 1}, true},
		{[]string{r2, r10}, true, []string{r2, r10}, []int{2, 10}, false},
		{[]string{r2, r10}, false, []string{r2, r10}, nil, false},
		{[]string{a, b}, true, []string{a, b}, nil, false},
		{[]string{r2}, true, []string{r2}, nil, false},
	} {
		dirs, ranks, byName, err := UftraceRecordings(c.paths, c.numbered)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(dirs, c.dirs) || !slices.Equal(ranks, c.ranks) || byName != c.byName {
			t.Errorf("UftraceRecordings(%v, %v) = %v, %v, %v; want %v, %v, %v", c.paths, c.numbered, dirs, ranks, byName, c.dirs, c.ranks, c.byName)
		}
	}
}
