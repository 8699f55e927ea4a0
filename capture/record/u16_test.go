package record

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/parlot"
)

// ConvertU16 writes the original tool's files byte for byte from their
// values, and decode.WriteU16 gives the values back.
func TestConvertU16(t *testing.T) {
	edge := filepath.Join("..", "..", "testdata", "parlot", "edge")
	raws, _ := filepath.Glob(filepath.Join(edge, "*.u16"))
	if len(raws) == 0 {
		t.Fatal("no u16 files")
	}
	for _, raw := range raws {
		vals, err := os.ReadFile(raw)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(strings.TrimSuffix(raw, ".u16") + ".bin")
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := ConvertU16(&got, "out", bytes.NewReader(vals), raw); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: the ParLOT file differs from the tool's", raw)
		}
		var back bytes.Buffer
		if err := decode.WriteU16(&back, parlot.NewReader(bytes.NewReader(want), "bin", parlot.DefaultMaxEvents)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(back.Bytes(), vals) {
			t.Errorf("%s: WriteU16 does not give the values back", raw)
		}
	}
	var odd *OddU16Error
	err := ConvertU16(&bytes.Buffer{}, "out", bytes.NewReader([]byte{1, 0, 2}), "odd.u16")
	if !errors.As(err, &odd) || odd.Size != 3 || !strings.Contains(err.Error(), "odd.u16: byte 2: the file has an odd number of bytes") {
		t.Errorf("odd input: %v", err)
	}
}

// One directory of per-rank recordings stands for them, ranked by the
// numbers that end their names, or by their sorted names; several
// directories are ranked by their names' numbers when they are distinct.
func TestUftraceRecordings(t *testing.T) {
	root := t.TempDir()
	mk := func(parts ...string) string {
		d := filepath.Join(append([]string{root}, parts...)...)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "task.txt"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return d
	}
	r10, r2 := mk("numbered", "uftrace.10"), mk("numbered", "uftrace.2")
	a, b := mk("named", "beta"), mk("named", "alpha")
	for _, c := range []struct {
		paths    []string
		numbered bool
		dirs     []string
		ranks    []int
		byName   bool
	}{
		{[]string{filepath.Join(root, "numbered")}, true, []string{r10, r2}, []int{10, 2}, false},
		{[]string{filepath.Join(root, "numbered")}, false, []string{r10, r2}, nil, false},
		{[]string{filepath.Join(root, "named")}, true, []string{b, a}, []int{0, 1}, true},
		{[]string{r2, r10}, true, []string{r2, r10}, []int{2, 10}, false},
		{[]string{r2, r10}, false, []string{r2, r10}, nil, false},
		{[]string{a, b}, true, []string{a, b}, nil, false},
		{[]string{r2}, true, []string{r2}, nil, false},
	} {
		dirs, ranks, byName, err := UftraceRecordings(c.paths, c.numbered)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(dirs, c.dirs) || !slices.Equal(ranks, c.ranks) || byName != c.byName {
			t.Errorf("UftraceRecordings(%v, %v) = %v, %v, %v; want %v, %v, %v", c.paths, c.numbered, dirs, ranks, byName, c.dirs, c.ranks, c.byName)
		}
	}
}
