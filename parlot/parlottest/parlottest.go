// Package parlottest helps tests that check ParLOT files against the
// reference files under testdata/parlot: it reads the decoded sequences,
// encodes with the project's writer and lists the reference pairs.
package parlottest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/difftrace/difftrace/parlot"
)

// LoadU16 reads a raw little-endian uint16 file (a decoded sequence).
func LoadU16(t testing.TB, path string) []uint16 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := parlot.ParseU16(b, path)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Encode compresses vals with parlot.Writer, handing them over chunk
// values at a time.
func Encode(t testing.TB, vals []uint16, chunk int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parlot.NewWriter(&buf)
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

// FixturePairs lists the (compressed file, decoded .u16) pairs of the
// reference files under dir (testdata/parlot).
func FixturePairs(t testing.TB, dir string) [][2]string {
	t.Helper()
	var pairs [][2]string
	bins, _ := filepath.Glob(filepath.Join(dir, "edge", "*.bin"))
	for _, b := range bins {
		pairs = append(pairs, [2]string{b, b[:len(b)-4] + ".u16"})
	}
	traces, _ := filepath.Glob(filepath.Join(dir, "oddeven4", "Hdbg.*.0"))
	for _, f := range traces {
		pairs = append(pairs, [2]string{f, filepath.Join(filepath.Dir(f), "expected", filepath.Base(f)+".u16")})
	}
	if len(pairs) < 20 {
		t.Fatalf("found only %d fixture pairs under %s", len(pairs), dir)
	}
	return pairs
}

// FirstDiff returns the index of the first byte where a and b differ.
func FirstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
