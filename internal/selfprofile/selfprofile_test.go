package selfprofile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"
)

// Both profiles are written, and read by pprof; a path that cannot be
// written is an error, and leaves nothing behind.
func TestProfiles(t *testing.T) {
	dir := t.TempDir()
	cpuPath, heapPath := filepath.Join(dir, "cpu.pb.gz"), filepath.Join(dir, "heap.pb.gz")
	h := WatchHeap(heapPath)
	c, err := StartCPU(cpuPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := h.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{cpuPath, heapPath} {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := profile.Parse(f); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		f.Close()
	}
	missing := filepath.Join(dir, "missing", "p.pb.gz")
	if _, err := StartCPU(missing); err == nil {
		t.Error("a CPU profile in a missing directory")
	}
	if err := WatchHeap(missing).Stop(); err == nil {
		t.Error("a heap profile in a missing directory")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("left %d files", len(ents))
	}
}
