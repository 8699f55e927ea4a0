package decode

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/difftrace/difftrace/parlot"
)

// ConvertU16File writes a ParLOT trace that decodes back to the values it
// read, and refuses a file of an odd size without writing anything.
func TestConvertU16File(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "t.u16"), filepath.Join(dir, "t.parlot")
	vals := []byte{1, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0}
	if err := os.WriteFile(in, vals, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ConvertU16File(in, out); err != nil {
		t.Fatal(err)
	}
	var back bytes.Buffer
	if err := WriteU16(&back, out, parlot.DefaultMaxEvents); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Bytes(), vals) {
		t.Errorf("decoded back % x, want % x", back.Bytes(), vals)
	}

	odd, out2 := filepath.Join(dir, "odd.u16"), filepath.Join(dir, "odd.parlot")
	if err := os.WriteFile(odd, []byte{1, 0, 2}, 0o600); err != nil {
		t.Fatal(err)
	}
	var oe *parlot.OddU16Error
	if err := ConvertU16File(odd, out2); !errors.As(err, &oe) || oe.Size != 3 {
		t.Errorf("odd-sized input: got %v, want an OddU16Error of size 3", err)
	}
	if _, err := os.Stat(out2); !os.IsNotExist(err) {
		t.Errorf("odd-sized input left %s behind (%v)", out2, err)
	}
}
