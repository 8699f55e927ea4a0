package record

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// A recorder killed outright leaves its work directory behind; the next
// recorder removes it, and leaves those of recorders still running and
// everything else alone.
func TestRemoveStaleWork(t *testing.T) {
	tmp := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	mk := func(name string) string {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Join(p, "received"), 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := mk("difftrace-uftrace-3-" + strconv.Itoa(dead.Process.Pid) + "-123456")
	live := mk("difftrace-uftrace-4-" + strconv.Itoa(os.Getpid()) + "-654321")
	older := mk("difftrace-uftrace-5-987654") // no pid in the name
	other := mk("somebody-else-1-" + strconv.Itoa(dead.Process.Pid) + "-1")
	removeStaleWork(tmp)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the dead recorder's directory is still there (%v)", err)
	}
	for _, p := range []string{live, older, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed", filepath.Base(p))
		}
	}
}
