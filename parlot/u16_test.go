package parlot

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ConvertU16 writes the original tool's files byte for byte from their
// values, and WriteU16 gives the values back.
func TestConvertU16(t *testing.T) {
	edge := filepath.Join("..", "testdata", "parlot", "edge")
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
		if err := WriteU16(&back, NewReader(bytes.NewReader(want), "bin", DefaultMaxEvents)); err != nil {
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

func TestParseU16(t *testing.T) {
	vals := []uint16{3, 0, 65534, 0x0102}
	b := AppendU16(nil, vals)
	if string(b) != "\x03\x00\x00\x00\xfe\xff\x02\x01" {
		t.Fatalf("AppendU16 = %q", b)
	}
	got, err := ParseU16(b, "v.u16")
	if err != nil || !slices.Equal(got, vals) {
		t.Fatalf("ParseU16 = %v, %v", got, err)
	}
	var odd *OddU16Error
	if _, err := ParseU16(b[:7], "v.u16"); !errors.As(err, &odd) || odd.Size != 7 || !strings.Contains(err.Error(), "v.u16: byte 6:") {
		t.Errorf("7 bytes: %v", err)
	}
}
