package parlot_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/difftrace/difftrace/parlot"

	"github.com/difftrace/difftrace/parlot/parlottest"
)

// fixtureDir holds the reference ParLOT files (written by the original tool).
const fixtureDir = "../testdata/parlot"

func TestReaderFixtures(t *testing.T) {
	bins, _ := filepath.Glob(filepath.Join(fixtureDir, "edge", "*.bin"))
	if len(bins) == 0 {
		t.Fatalf("no fixtures under %s", fixtureDir)
	}
	for _, bin := range bins {
		t.Run(filepath.Base(bin), func(t *testing.T) {
			raw, err := os.ReadFile(bin)
			if err != nil {
				t.Fatal(err)
			}
			want := parlottest.LoadU16(t, bin[:len(bin)-4]+".u16")
			got, err := parlot.ReadAll(bytes.NewReader(raw), bin, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("decoded %d values, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
			}
		})
	}
}

func firstDiff(a, b []uint16) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestReaderOddEven4(t *testing.T) {
	traces, _ := filepath.Glob(filepath.Join(fixtureDir, "oddeven4", "Hdbg.*.0"))
	if len(traces) != 4 {
		t.Fatalf("want 4 oddeven4 traces, found %d", len(traces))
	}
	for _, f := range traces {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := parlottest.LoadU16(t, filepath.Join(filepath.Dir(f), "expected", filepath.Base(f)+".u16"))
		got, err := parlot.ReadAll(bytes.NewReader(raw), f, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: decoded %v, want %v", f, got, want)
		}
	}
}
