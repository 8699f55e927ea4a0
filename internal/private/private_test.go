package private

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/difftrace/difftrace/internal/testenv"
)

// nobody is the uid (and gid) of the second user of these tests.
const nobody = 65534

// needRoot skips, loudly, the checks that need another user's files.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("SKIPPING: planting files of another user needs root (to chown them, and setpriv)")
	}
}

// asNobody runs the shell script as uid 65534 in dir.
func asNobody(t *testing.T, dir, script string) {
	t.Helper()
	needRoot(t)
	setpriv := testenv.Tool(t, "setpriv", "it plants files as a second user")
	cmd := exec.Command(setpriv, "--reuid", "65534", "--regid", "65534", "--clear-groups", "sh", "-c", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("as uid 65534: %s: %v\n%s", script, err, out)
	}
}

// sharedDir returns a sticky directory everybody may write, as /tmp is.
func sharedDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	if err := os.Chmod(filepath.Dir(d), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, 0o1777); err != nil {
		t.Fatal(err)
	}
	return d
}

func wantRefused(t *testing.T, err error, path, why string) {
	t.Helper()
	if !errors.Is(err, ErrNotPrivate) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), why) {
		t.Errorf("%s: got %v; want it refused as %q", path, err, why)
	}
}

func TestMkdirAll(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "cache", "difftrace")
	if err := MkdirAll(dir); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if st, err := os.Stat(d); err != nil || st.Mode() != fs.ModeDir|0o700 {
			t.Errorf("%s: %v %v; want a directory of mode 0700", d, st.Mode(), err)
		}
	}
	if err := MkdirAll(dir); err != nil {
		t.Errorf("again: %v", err)
	}

	// Others may write: refused, and left as it is.
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777)
	wantRefused(t, MkdirAll(open), open, "may be written by other users (mode 0777)")
	os.Chmod(open, 0o775)
	wantRefused(t, MkdirAll(open), open, "mode 0775")

	// A symbolic link, even to a directory of one's own: refused.
	link := filepath.Join(base, "link")
	os.Symlink(dir, link)
	wantRefused(t, MkdirAll(link), link, "is a symbolic link")
	// A dangling one: nothing is created where it points.
	dangling := filepath.Join(base, "dangling")
	os.Symlink(filepath.Join(base, "target"), dangling)
	wantRefused(t, MkdirAll(dangling), dangling, "is a symbolic link")
	if _, err := os.Lstat(filepath.Join(base, "target")); err == nil {
		t.Errorf("a directory was made through the link")
	}

	file := filepath.Join(base, "file")
	os.WriteFile(file, nil, 0o600)
	wantRefused(t, MkdirAll(file), file, "is not a directory")

	if err := CheckDir(filepath.Join(base, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("CheckDir of a missing directory: %v; want fs.ErrNotExist", err)
	}
}

// A directory a second user made first in a shared directory (as
// /tmp/difftrace would be): refused, with whose it is, and nothing of ours
// goes in it.
func TestMkdirAllPlantedByAnotherUser(t *testing.T) {
	shared := sharedDir(t)
	asNobody(t, shared, "mkdir -m 755 difftrace && mkdir -m 777 open")
	dir := filepath.Join(shared, "difftrace")
	wantRefused(t, MkdirAll(dir), dir, "belongs to uid 65534, not to this user (uid 0)")
	wantRefused(t, MkdirAll(filepath.Join(shared, "open")), filepath.Join(shared, "open"), "belongs to uid 65534")
	wantRefused(t, WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o600), dir, "belongs to uid 65534")
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("written into another user's directory: %v", ents)
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o700); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "a", "b", "f")
	os.WriteFile(f, []byte("x"), 0o644)
	if err := Check(dir); err != nil {
		t.Fatalf("a private tree: %v", err)
	}
	os.Chmod(f, 0o666)
	wantRefused(t, Check(dir), f, "may be written by other users (mode 0666)")
	os.Chmod(f, 0o600)
	l := filepath.Join(dir, "a", "l")
	os.Symlink("/etc/passwd", l)
	wantRefused(t, Check(dir), l, "is a symbolic link")
	os.Remove(l)
	if os.Getuid() == 0 {
		os.Chown(f, nobody, nobody)
		wantRefused(t, Check(dir), f, "belongs to uid 65534")
	}
}

func TestOpenFile(t *testing.T) {
	dir := t.TempDir()
	own := filepath.Join(dir, "own")
	f, err := OpenFile(own, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("mine")
	f.Close()
	if b, err := ReadFile(own); err != nil || string(b) != "mine" {
		t.Errorf("ReadFile: %q, %v", b, err)
	}
	if _, err := OpenFile(own, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); !errors.Is(err, fs.ErrExist) {
		t.Errorf("O_EXCL on an existing file: %v", err)
	}

	// A link, to a file of ours or to a name not yet made: not followed,
	// the target neither written nor created.
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("secret"), 0o600)
	for _, target := range []string{secret, filepath.Join(filepath.Dir(secret), "new")} {
		link := filepath.Join(dir, "link")
		os.Remove(link)
		os.Symlink(target, link)
		_, err := OpenFile(link, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
		wantRefused(t, err, link, "is a symbolic link")
		_, err = ReadFile(link)
		wantRefused(t, err, link, "is a symbolic link")
	}
	if b, _ := os.ReadFile(secret); string(b) != "secret" {
		t.Errorf("the link's target was written: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(filepath.Dir(secret), "new")); err == nil {
		t.Errorf("the link's target was created")
	}

	// Writable by others: refused, and not truncated.
	os.Chmod(own, 0o622)
	_, err = OpenFile(own, os.O_RDWR|os.O_TRUNC, 0)
	wantRefused(t, err, own, "may be written by other users (mode 0622)")
	if b, _ := os.ReadFile(own); string(b) != "mine" {
		t.Errorf("a refused file was truncated: %q", b)
	}
	os.Chmod(own, 0o600)
	if f, err := OpenFile(own, os.O_RDWR|os.O_TRUNC, 0); err != nil {
		t.Errorf("truncating a file of ours: %v", err)
	} else {
		f.Close()
	}
	if st, _ := os.Stat(own); st.Size() != 0 {
		t.Errorf("O_TRUNC did not truncate the checked file")
	}

	// A named pipe: refused at once, not waited on.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := OpenFile(fifo, os.O_RDONLY, 0); done <- err }()
	select {
	case err := <-done:
		wantRefused(t, err, fifo, "is not a regular file")
	case <-time.After(5 * time.Second):
		t.Fatal("OpenFile blocked on a named pipe")
	}

	if os.Getuid() == 0 {
		os.Chown(own, nobody, nobody)
		_, err := ReadFile(own)
		wantRefused(t, err, own, "belongs to uid 65534, not to this user (uid 0)")
	}
}

// WriteFile replaces a link at the name, never writes through it, and
// leaves no temporary file.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("secret"), 0o600)
	name := filepath.Join(dir, "session.json")
	os.Symlink(secret, name)
	if err := WriteFile(name, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(secret); string(b) != "secret" {
		t.Errorf("written through the link: %q", b)
	}
	st, err := os.Lstat(name)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o600 {
		t.Errorf("%s: %v %v; want a regular file of mode 0600", name, st.Mode(), err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left in the directory: %v", ents)
	}
	os.Chmod(dir, 0o777)
	wantRefused(t, WriteFile(name, []byte("{}"), 0o600), dir, "may be written by other users")
}
