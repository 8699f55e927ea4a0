package summary_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/summary"
)

// A summary is refused to a reader of events, naming it; a run is not.
func TestCheckRun(t *testing.T) {
	if err := summary.CheckRun(filepath.Join("..", "testdata", "runs", "oddeven-normal"), "stats"); err != nil {
		t.Errorf("a run: %v", err)
	}
	dir := t.TempDir()
	if err := summary.Prepare(dir, 1); err != nil {
		t.Fatal(err)
	}
	if err := summary.CheckRun(dir, "stats"); err != nil {
		t.Errorf("a summary without parts yet: %v", err)
	}
	if err := summary.Write(dir, &summary.Part{Index: 0, Of: 1}); err != nil {
		t.Fatal(err)
	}
	err := summary.CheckRun(dir, "stats")
	var nr *summary.NotRunError
	if !errors.As(err, &nr) || nr.Dir != dir || !strings.Contains(err.Error(), "stats reads the run itself") {
		t.Errorf("a summary: %v", err)
	}
}
