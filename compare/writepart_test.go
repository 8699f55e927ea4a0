package compare_test

import (
	"path/filepath"
	"testing"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/summary"
)

// Two processes summarise a run together: each writes its part, and the
// parts together hold every trace, read back as the run they stand for.
func TestWritePart(t *testing.T) {
	run := filepath.Join("..", "testdata", "runs", "oddeven-normal")
	out := filepath.Join(t.TempDir(), "sum")
	if err := summary.Prepare(out, 2); err != nil {
		t.Fatal(err)
	}
	fs := []*filters.Filter{filters.MustParse("mpi")}
	total := 0
	for i := range 2 {
		n, err := compare.WritePart(run, out, i, 2, fs, []int{10}, compare.Options{})
		if err != nil {
			t.Fatal(err)
		}
		total += n
	}
	if total != 16 || !summary.Is(out) {
		t.Fatalf("parts hold %d traces (want 16); a summary: %v", total, summary.Is(out))
	}
	c, err := compare.Open([]string{out}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.IDs) != 16 || !c.Summarized(0) {
		t.Errorf("read back: %d traces, summarized %v", len(c.IDs), c.Summarized(0))
	}
	if _, err := compare.WritePart(filepath.Join(t.TempDir(), "none"), out, 0, 2, fs, []int{10}, compare.Options{}); err == nil {
		t.Error("a run that is not there is summarised")
	}
}
