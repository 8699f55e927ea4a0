package rank

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/filters"
)

// selective copies the committed run name into a temporary directory and
// marks it, in its run.json, as recorded with capture --only spec.
func selective(t *testing.T, name, spec string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(runsDir, name))); err != nil {
		t.Fatal(err)
	}
	m, err := decode.ReadManifest(filepath.Join(dir, decode.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	m.Recorded = &decode.Recorded{Filter: spec, Calls: []string{"MPI_Init"}, Stack: []string{}}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, decode.ManifestName), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRecordedFilters checks what a comparison does with runs recorded
// with capture --only: a filter that needs other calls is refused, naming
// it, the run and what it recorded; the default grid keeps the filters the
// runs serve and says which it left out; hang's default filter is narrowed
// to what they recorded.
func TestRecordedFilters(t *testing.T) {
	normal := selective(t, "ilcs-normal", "mpi+omp")
	faulty := selective(t, "ilcs-critbug", "omp")
	c, err := compare.Open([]string{normal, faulty}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Recognize([]*filters.Filter{filters.MustParse("omp.crit+mem")}, []int{10})
	if err == nil || !strings.Contains(err.Error(), "filter omp.crit+mem needs calls that "+normal+" did not record: it was recorded keeping only the calls of filter mpi+omp, which leaves out mem") {
		t.Errorf("omp.crit+mem on runs recorded with mpi+omp and omp: %v", err)
	}
	_, err = c.Recognize([]*filters.Filter{filters.MustParse("mpi")}, []int{10})
	if err == nil || !strings.Contains(err.Error(), faulty+" did not record: it was recorded keeping only the calls of filter omp, which leaves out mpi") {
		t.Errorf("mpi on a run recorded with omp: %v", err)
	}
	if _, err := c.Recognize([]*filters.Filter{filters.MustParse("omp.crit")}, []int{10}); err != nil {
		t.Errorf("omp.crit, which both runs recorded: %v", err)
	}

	rk, err := sweep(c, defaultGrid(t, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rk.Filters, []string{"omp", "omp.crit"}) {
		t.Errorf("default grid on runs recorded with mpi+omp and omp: filters %v, want omp, omp.crit", rk.Filters)
	}
	want := "filters left out, needing calls the runs did not record (recorded with capture --only mpi+omp, omp): mpi, mpi.col, mpi.sr, mpi.int, omp.mutex, mem, net, poll, str, all"
	if !slices.Contains(rk.Notes, want) {
		t.Errorf("notes %q, want %q", rk.Notes, want)
	}
	if v := rk.ThreadVotes[0]; v.ID != tid(6, 4) {
		t.Errorf("thread consensus %v, want 6.4 first", rk.ThreadVotes[:min(3, len(rk.ThreadVotes))])
	}
	if got := c.Narrow("mpi+omp+omp.crit+omp.mutex"); got != "omp+omp.crit" {
		t.Errorf("Narrow(hang's default) = %q, want omp+omp.crit", got)
	}

	// A run recorded in full serves every filter.
	full := openRuns(t, compare.Options{}, "ilcs-normal", "ilcs-critbug")
	if err := full.Serves(filters.MustParse("all")); err != nil || full.Narrow("mpi+omp.mutex") != "mpi+omp.mutex" {
		t.Errorf("full runs: Serves(all) = %v, Narrow = %q", err, full.Narrow("mpi+omp.mutex"))
	}
	// A grid of named filters is not pruned: one the runs cannot serve is
	// refused.
	if _, err := sweep(c, namedGrid("omp", "mem"), nil); err == nil || !strings.Contains(err.Error(), "filter mem needs calls") {
		t.Errorf("named grid with mem: %v", err)
	}
}
