package decode

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// fixtureDir holds the reference ParLOT files (written by the original tool).
const fixtureDir = "../testdata/parlot"

// loadU16 reads a raw little-endian uint16 file.
func loadU16(t testing.TB, path string) []uint16 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v := make([]uint16, len(b)/2)
	for i := range v {
		v[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return v
}

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
			want := loadU16(t, bin[:len(bin)-4]+".u16")
			got, err := ReadAll(bytes.NewReader(raw), bin, 0)
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
		want := loadU16(t, filepath.Join(filepath.Dir(f), "expected", filepath.Base(f)+".u16"))
		got, err := ReadAll(bytes.NewReader(raw), f, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: decoded %v, want %v", f, got, want)
		}
	}
}
