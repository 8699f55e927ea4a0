package record

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCountEvents checks the event count the Pin backend records for a
// trace against the reference files' decoded values (2 bytes each).
func TestCountEvents(t *testing.T) {
	bins, _ := filepath.Glob("../../testdata/parlot/edge/*.bin")
	if len(bins) == 0 {
		t.Fatal("no reference traces in testdata/parlot/edge")
	}
	for _, bin := range bins {
		u16, err := os.Stat(bin[:len(bin)-len(".bin")] + ".u16")
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(bin)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		n, size, err := countEvents(f, bin)
		f.Close()
		if err != nil || n != uint64(u16.Size()/2) || size != st.Size() {
			t.Errorf("%s: %d events, %d bytes, %v; want %d events, %d bytes", bin, n, size, err, u16.Size()/2, st.Size())
		}
	}
	// A damaged trace is an error, not a count.
	bad := filepath.Join(t.TempDir(), "t.0.0")
	if err := os.WriteFile(bad, []byte{1, 2, 3}, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(bad)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, _, err := countEvents(f, bad); err == nil {
		t.Error("a damaged trace was counted without an error")
	}
}
