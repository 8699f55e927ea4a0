package capture

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

const fixtureDir = "../testdata/parlot"

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

func encode(t testing.TB, vals []uint16, chunk int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for len(vals) > 0 {
		k := min(chunk, len(vals))
		if err := w.Write(vals[:k]); err != nil {
			t.Fatal(err)
		}
		vals = vals[k:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fixturePairs lists (compressed file, decoded .u16) pairs of the reference
// files.
func fixturePairs(t testing.TB) [][2]string {
	var pairs [][2]string
	bins, _ := filepath.Glob(filepath.Join(fixtureDir, "edge", "*.bin"))
	for _, b := range bins {
		pairs = append(pairs, [2]string{b, b[:len(b)-4] + ".u16"})
	}
	traces, _ := filepath.Glob(filepath.Join(fixtureDir, "oddeven4", "Hdbg.*.0"))
	for _, f := range traces {
		pairs = append(pairs, [2]string{f, filepath.Join(filepath.Dir(f), "expected", filepath.Base(f)+".u16")})
	}
	if len(pairs) < 20 {
		t.Fatalf("found only %d fixture pairs under %s", len(pairs), fixtureDir)
	}
	return pairs
}

func TestWriterFixtures(t *testing.T) {
	for _, p := range fixturePairs(t) {
		want, err := os.ReadFile(p[0])
		if err != nil {
			t.Fatal(err)
		}
		vals := loadU16(t, p[1])
		// Whole, and in awkward chunks: the output must not depend on how
		// the values arrive.
		for _, chunk := range []int{1 << 30, 1, 7} {
			got := encode(t, vals, chunk)
			if !bytes.Equal(got, want) {
				t.Errorf("%s (chunks of %d): encoded %d bytes, want %d; first difference at byte %d",
					filepath.Base(p[0]), chunk, len(got), len(want), firstDiff(got, want))
			}
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
