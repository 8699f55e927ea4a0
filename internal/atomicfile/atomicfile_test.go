package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
)

// TestCommitAndAbort: until Commit the old file stays whole; Commit replaces
// it, keeping its mode (0600); Abort leaves it; neither leaves a temporary
// file.
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
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600, the mode of the file it replaced", st.Mode().Perm())
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

// New files get the mode the umask allows; under umask 077 nobody else may
// read them.
func TestModeHonoursUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	umask = sync.OnceValue(func() fs.FileMode { return 0o077 }) // as the process would read it
	defer func() {
		umask = sync.OnceValue(func() fs.FileMode { m := syscall.Umask(0); syscall.Umask(m); return fs.FileMode(m) })
	}()
	path := filepath.Join(t.TempDir(), "new.txt")
	a, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	a.Write([]byte("x"))
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("new file under umask 077: mode %v, want 0600", st.Mode().Perm())
	}
}

// A temporary file a killed process left is removed by the next Create of
// the same file; one of a live process stays. RemoveTemps removes this
// process's own and refuses new ones.
func TestTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	// A pid that is not running: a child that has exited.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(dir, ".out.txt.tmp-"+strconv.Itoa(cmd.Process.Pid)+"-123")
	alive := filepath.Join(dir, ".out.txt.tmp-1-456") // init is always running
	for _, p := range []string{dead, alive} {
		if err := os.WriteFile(p, []byte("left"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	a, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); err == nil {
		t.Error("the dead process's temporary file is still there")
	}
	if _, err := os.Stat(alive); err != nil {
		t.Error("a running process's temporary file was removed")
	}
	a.Write([]byte("partial"))
	if n, err := RemoveTemps(); n != 1 || err != nil {
		t.Errorf("RemoveTemps = %d, %v; want 1, nil", n, err)
	}
	defer func() { live.Lock(); live.closed = false; live.Unlock() }()
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != filepath.Base(alive) {
		t.Errorf("after RemoveTemps the directory holds %v, want only the live process's file", ents)
	}
	if _, err := Create(path); !errors.Is(err, ErrInterrupted) {
		t.Errorf("Create after RemoveTemps: %v, want ErrInterrupted", err)
	}
}

// A pipe or a device (-o /dev/null) is written as it is, not replaced by a
// file: a named pipe stays a pipe, and its reader gets the bytes.
func TestCreatePipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte)
	go func() {
		b, _ := os.ReadFile(path)
		got <- b
	}()
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("%s is now %v, not a named pipe", path, st.Mode())
	}
	if b := <-got; string(b) != "through the pipe" {
		t.Errorf("the reader got %q", b)
	}
}

// Writing through a symbolic link writes the file it names; the link stays.
func TestCreateSymlink(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target"), filepath.Join(dir, "link")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("target", link); err != nil {
		t.Fatal(err)
	}
	f, err := Create(link)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("new"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link is gone: %v, %v", st, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target holds %q", b)
	}
}

// Replace puts a new file of the mode asked in place of a symbolic link,
// and of a named pipe, never writing through them or waiting on them.
func TestReplace(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("secret"), 0o600)
	link, fifo := filepath.Join(dir, "session.json"), filepath.Join(dir, "fifo")
	os.Symlink(secret, link)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, fifo} {
		a, err := Replace(p, 0o640)
		if err != nil {
			t.Fatal(err)
		}
		a.Write([]byte("{}"))
		if err := a.Commit(); err != nil {
			t.Fatal(err)
		}
		st, err := os.Lstat(p)
		if err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o640 {
			t.Errorf("%s: %v %v; want a regular file of mode 0640", p, st.Mode(), err)
		}
	}
	if b, _ := os.ReadFile(secret); string(b) != "secret" {
		t.Errorf("written through the link: %q", b)
	}
}
