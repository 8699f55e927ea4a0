package summary

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/trace"
)

// Prepare makes the directory, removes the parts of a summary made by
// another number of processes, keeps its own and those being written, and
// refuses anything else.
func TestPrepare(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "sum")
	if err := Prepare(dir, 2); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{PartName(0, 3), PartName(1, 2), ".part-0-of-2.dts.tmp1"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Prepare(dir, 2); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var left []string
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if want := []string{".part-0-of-2.dts.tmp1", PartName(1, 2)}; !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644)
	var foreign *ForeignFileError
	if err := Prepare(dir, 2); !errors.As(err, &foreign) || foreign.Name != "notes.txt" || err.Error() != dir+": holds notes.txt, which is not part of a summary" {
		t.Errorf("a foreign file: %v", err)
	}
}

// OpenRun opens the run a summary summarises, and says so when it is gone
// or no longer holds the traces summarised.
func TestOpenRun(t *testing.T) {
	src := filepath.Join("..", "testdata", "runs", "oddeven4-normal")
	run, err := decode.Open(src, trace.NewTable(), decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := run.Header()
	var traces []Trace
	for _, id := range run.Traces() {
		traces = append(traces, Trace{ID: id, Kept: []uint64{0}, Classes: []int32{0}})
	}
	p := &Part{Index: 0, Of: 1, Grid: Grid{Filters: []string{"all"}, Ks: []int{10}}, Run: h,
		Names: len(h.Names), NamesSum: NamesSum(h.Names), Traces: traces, Classes: [][]byte{{}}}
	dir := t.TempDir()
	if err := Write(dir, p); err != nil {
		t.Fatal(err)
	}
	got, err := OpenRun(dir, trace.NewTable(), decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Dir != src || !slices.Equal(got.Traces(), run.Traces()) {
		t.Errorf("opened %s: %v", got.Dir, got.Traces())
	}
	p.Run.Dir = filepath.Join(t.TempDir(), "gone")
	if err := Write(dir, p); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenRun(dir, trace.NewTable(), decode.Options{}); err == nil || !strings.Contains(err.Error(), "the run it summarises is not at") {
		t.Errorf("a run gone: %v", err)
	}
	p.Run.Dir = filepath.Join("..", "testdata", "runs", "oddeven-normal")
	if err := Write(dir, p); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenRun(dir, trace.NewTable(), decode.Options{}); err == nil || !strings.Contains(err.Error(), "no longer holds the traces it summarised") {
		t.Errorf("another run: %v", err)
	}
}
