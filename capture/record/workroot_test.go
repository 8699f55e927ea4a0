package record

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// A work directory that stays small goes in /dev/shm when it is a tmpfs
// with room, unless TMPDIR says where; a raw recording never does.
func TestWorkRoot(t *testing.T) {
	var st unix.Statfs_t
	tmpfs := unix.Statfs("/dev/shm", &st) == nil && st.Type == unix.TMPFS_MAGIC &&
		uint64(st.Bavail)*uint64(st.Bsize) >= minShmemFree
	t.Setenv("TMPDIR", "")
	if got := workRoot(false); got != os.TempDir() {
		t.Errorf("a raw recording's work directory goes in %s, want %s", got, os.TempDir())
	}
	if got := workRoot(true); tmpfs && got != "/dev/shm" {
		t.Errorf("a small work directory goes in %s, want /dev/shm", got)
	}
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	if got := workRoot(true); got != dir {
		t.Errorf("with TMPDIR=%s, the work directory goes in %s", dir, got)
	}
	t.Setenv("TMPDIR", "")
	old := shmemRoot
	defer func() { shmemRoot = old }()
	shmemRoot = dir // a directory on disk, or at least not a roomy tmpfs of its own
	if unix.Statfs(dir, &st) == nil && st.Type != unix.TMPFS_MAGIC {
		if got := workRoot(true); got != os.TempDir() {
			t.Errorf("with no tmpfs to use, the work directory goes in %s, want %s", got, os.TempDir())
		}
	}
}
