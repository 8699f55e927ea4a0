package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCommitAndAbort: until Commit the old file stays whole; Commit replaces
// it with mode 0644; Abort leaves it; neither leaves a temporary file.
func TestCommitAndAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	a.Write([]byte("new contents"))
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("before Commit the file reads %q, want the old one", b)
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new contents" {
		t.Fatalf("after Commit the file reads %q", b)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	if err := a.Commit(); err == nil {
		t.Error("a second Commit succeeded")
	}
	a, err = Create(path)
	if err != nil {
		t.Fatal(err)
	}
	a.Write([]byte("discarded"))
	a.Abort()
	a.Abort()
	if b, _ := os.ReadFile(path); string(b) != "new contents" {
		t.Fatalf("after Abort the file reads %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory holds %d entries, want only out.txt (no temporary file)", len(ents))
	}
	if _, err := Create(filepath.Join(dir, "missing", "x")); err == nil {
		t.Error("Create in a missing directory succeeded")
	}
}
