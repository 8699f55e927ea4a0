package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/trace"
)

// checkGolden compares got with testdata/golden/name;
// DIFFTRACE_UPDATE_GOLDEN=1 writes it instead.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if os.Getenv("DIFFTRACE_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (DIFFTRACE_UPDATE_GOLDEN=1 writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s:\n%s", name, path, got)
	}
}

// write writes d in o's format and returns it.
func write(t *testing.T, d Document, o Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, d, o); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// diffNLRDoc is the document "difftrace diffnlr ID --filter SPEC" writes
// for a committed pair of runs (abridged as diffnlr does by default).
func diffNLRDoc(t *testing.T, normal, faulty, spec, id, view string) *DiffNLR {
	t.Helper()
	c, err := compare.Open([]string{filepath.Join(runsDir, normal), filepath.Join(runsDir, faulty)}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Recognize([]*filters.Filter{filters.MustParse(spec)}, []int{10})
	if err != nil {
		t.Fatal(err)
	}
	x, err := trace.ParseID(id)
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.DiffNLR(res[0], x, diffnlr.Abridge{Context: 3, Changed: 8, Changes: 20})
	if err != nil {
		t.Fatal(err)
	}
	return NewDiffNLR(d, view)
}

// The diffNLR's text (plain and coloured) and JSON are pinned for a trace
// (swapBug's rank 5), a hung trace (dlBug's) and a process whose threads
// changed in different ways (ilcs critBug's rank 6).
func TestDiffNLRGolden(t *testing.T) {
	for _, c := range []struct {
		name, normal, faulty, spec, id, view string
	}{
		{"swapbug-5", "oddeven-normal", "oddeven-swapbug", "mpi", "5", ""},
		{"dlbug-5", "oddeven-normal", "oddeven-dlbug", "all", "5", "best-ranked, B-score 0.500"},
		{"critbug-6", "ilcs-normal", "ilcs-critbug", "mem+omp.crit+cust=CPU_Exec", "6", ""},
		{"dlbug-ilcs-4", "ilcs-normal", "ilcs-dlbug", "mpi", "4", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := diffNLRDoc(t, c.normal, c.faulty, c.spec, c.id, c.view)
			checkGolden(t, "diffnlr-"+c.name+".txt", write(t, d, Options{}))
			checkGolden(t, "diffnlr-"+c.name+".color.txt", write(t, d, Options{Format: Text, Color: true}))
			checkGolden(t, "diffnlr-"+c.name+".json", write(t, d, Options{Format: JSON}))
		})
	}
}

// A diffNLR has no CSV or HTML form.
func TestDiffNLRFormats(t *testing.T) {
	d := diffNLRDoc(t, "oddeven-normal", "oddeven-swapbug", "mpi", "5", "")
	for _, f := range []Format{CSV, HTML} {
		err := Write(&bytes.Buffer{}, d, Options{Format: f})
		if err == nil || !strings.Contains(err.Error(), "diffNLR: no "+string(f)+" form") {
			t.Errorf("%s: %v", f, err)
		}
	}
}
