package decode_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/internal/synth"
	"github.com/difftrace/difftrace/trace"
)

// The parts of a run, opened by as many processes, hold every trace once
// between them, each only its own processes; a part with no process of
// the run is empty, not an error. Which ranks of run.json left no traces
// is said once, by part 0; a trace file without its function table is an
// error in every part.
func TestOpenPart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := synth.Write(dir, synth.Spec{Procs: 5, Threads: 2, Events: 200, Rows: 2, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	// Rank 3 left no files.
	files, _ := filepath.Glob(filepath.Join(dir, "trace.3.*"))
	for _, f := range files {
		os.Remove(f)
	}
	whole, err := decode.Open(dir, trace.NewTable(), decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p, n := whole.Part(); p != 0 || n != 1 {
		t.Errorf("a run opened whole says it is part %d of %d", p, n)
	}
	for _, of := range []int{2, 3, 8} {
		var all []trace.ID
		notes := 0
		for i := range of {
			r, err := decode.Open(dir, trace.NewTable(), decode.Options{Part: i, Parts: of})
			if err != nil {
				t.Fatalf("part %d of %d: %v", i, of, err)
			}
			if p, n := r.Part(); p != i || n != of {
				t.Errorf("part %d of %d says it is part %d of %d", i, of, p, n)
			}
			all = append(all, r.Traces()...)
			for _, n := range r.Notes {
				if strings.Contains(n, "rank 3 is in run.json but left no traces") {
					notes++
					if i != 0 {
						t.Errorf("part %d of %d says %q", i, of, n)
					}
				}
			}
			if of == 8 && i == 0 && len(r.Traces()) != 0 {
				t.Errorf("part 0 of 8 of 4 processes holds %v", r.Traces())
			}
		}
		slices.SortFunc(all, trace.ID.Compare)
		if !slices.Equal(all, whole.Traces()) {
			t.Errorf("%d parts hold %v, the run %v", of, all, whole.Traces())
		}
		if notes != 1 {
			t.Errorf("%d parts: the missing rank is noted %d times", of, notes)
		}
	}
	os.WriteFile(filepath.Join(dir, "trace.9.0"), []byte("x"), 0o644)
	for i := range 2 {
		_, err := decode.Open(dir, trace.NewTable(), decode.Options{Part: i, Parts: 2})
		if err == nil || !strings.Contains(err.Error(), "trace.9.0: trace file without its function table") {
			t.Errorf("part %d of 2 with a stray trace file: %v", i, err)
		}
	}
	if _, err := decode.Open(dir, trace.NewTable(), decode.Options{Part: 2, Parts: 2}); err == nil {
		t.Error("part 2 of 2 opened")
	}
}
