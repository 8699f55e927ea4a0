package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/difftrace/difftrace/internal/testenv"
)

// other is the uid of the second user the tests plant files as (nobody).
const other = 65534

// needRoot stops a test that must give files to another user: it fails in
// CI, which runs as root, and is skipped elsewhere.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if testenv.InCI() {
		t.Fatal("the test gives files to another user (chown), which needs root: CI runs the tests as root")
	}
	t.Skip("SKIPPING: not root; the test gives files to another user (chown)")
}

// shared makes a directory in a temporary one with mode (sticky and
// writable by all, say), as /tmp or a project's shared directory.
func shared(t *testing.T, mode fs.FileMode) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
	return dir
}

// plantLink makes a symbolic link at path to target owned by the other
// user.
func plantLink(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(path, other, other); err != nil {
		t.Fatal(err)
	}
}

// victim makes a private 0600 file holding "secret" in a private directory.
func victim(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(p, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeAll(path, s string) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write([]byte(s)); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// assertRefused checks err is a refusal whose message holds each of want.
func assertRefused(t *testing.T, err error, want ...string) {
	t.Helper()
	var r *RefusedError
	if !errors.As(err, &r) {
		t.Fatalf("err = %v, want a refusal", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the refusal does not say %q: %v", w, err)
		}
	}
}

// Another user's link in a sticky, world-writable directory (ln -s
// ~victim/secret /tmp/out.svg) is not followed, nor is one in a directory
// its group may write, nor one reached through a link of the user's own,
// nor one on the way to the output's directory; the file it leads to is
// left as it was, and the error names the link, its owner and what to do.
func TestRefusesPlantedLink(t *testing.T) {
	needRoot(t)
	secret := victim(t)
	check := func(name, out string, want ...string) {
		t.Helper()
		err := writeAll(out, "the picture")
		assertRefused(t, err, append(want, "remove the link or write elsewhere")...)
		if b, _ := os.ReadFile(secret); string(b) != "secret" {
			t.Fatalf("%s: the victim's file now holds %q", name, b)
		}
		if st, _ := os.Stat(secret); st.Mode().Perm() != 0o600 {
			t.Errorf("%s: the victim's file is now %v", name, st.Mode())
		}
	}

	tmp := shared(t, 0o777|fs.ModeSticky)
	link := filepath.Join(tmp, "out.svg")
	plantLink(t, secret, link)
	check("sticky", link, link+": a symbolic link owned by ", "uid 65534", tmp+", a directory that everyone may write (drwxrwxrwt)")

	// Relative, from inside the directory.
	wd, _ := os.Getwd()
	if err := os.Chdir(tmp); err != nil {
		t.Fatal(err)
	}
	check("relative", "out.svg", "out.svg: a symbolic link")
	os.Chdir(wd)

	group := shared(t, 0o770)
	plantLink(t, secret, filepath.Join(group, "out.svg"))
	check("group-writable", filepath.Join(group, "out.svg"), group+", a directory that its group may write (drwxrwx---)")

	// The user's own link in their own directory leads to the planted one.
	mine := filepath.Join(t.TempDir(), "mine.svg")
	if err := os.Symlink(link, mine); err != nil {
		t.Fatal(err)
	}
	check("chain", mine, link+": a symbolic link")

	// A planted link to the victim's directory, as the output's directory.
	plantLink(t, filepath.Dir(secret), filepath.Join(tmp, "dir"))
	check("directory", filepath.Join(tmp, "dir", "new.svg"), filepath.Join(tmp, "dir")+": a symbolic link")
	if _, err := os.Lstat(filepath.Join(filepath.Dir(secret), "new.svg")); err == nil {
		t.Error("a file was made in the victim's directory")
	}
	assertNoTemps(t, filepath.Dir(secret))
	assertNoTemps(t, tmp)
}

// What keeps working: the user's own link, even in a sticky directory, and
// another user's link in a directory only its owner may change (as the
// kernel allows); root's links (/dev/stdout). The link stays a link and its
// target gets the output.
func TestFollowsTrustedLinks(t *testing.T) {
	needRoot(t)
	for _, c := range []struct {
		name string
		dir  fs.FileMode
		uid  int
	}{
		{"own link in a sticky directory", 0o777 | fs.ModeSticky, os.Geteuid()},
		{"other's link in a directory others may not write", 0o755, other},
	} {
		dir := shared(t, c.dir)
		target := filepath.Join(t.TempDir(), "target.svg")
		if err := os.WriteFile(target, []byte("old"), 0o640); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(dir, "out.svg")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(link, c.uid, c.uid); err != nil {
			t.Fatal(err)
		}
		if err := writeAll(link, "new"); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if b, _ := os.ReadFile(target); string(b) != "new" {
			t.Errorf("%s: the target holds %q", c.name, b)
		}
		if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s: the link is gone", c.name)
		}
		if st, _ := os.Stat(target); st.Mode().Perm() != 0o640 {
			t.Errorf("%s: the target's mode is now %v, want 0640", c.name, st.Mode().Perm())
		}
	}
}

// Another user's file in a sticky directory is not replaced (root could,
// and would keep the mode that user chose, world-writable here); in a
// directory its group may write, a colleague's file is replaced as before,
// keeping its mode.
func TestRefusesOthersFileInStickyDir(t *testing.T) {
	needRoot(t)
	tmp := shared(t, 0o777|fs.ModeSticky)
	path := filepath.Join(tmp, "out.svg")
	if err := os.WriteFile(path, []byte("planted"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, other, other); err != nil {
		t.Fatal(err)
	}
	assertRefused(t, writeAll(path, "mine"), path+": a file owned by ", "remove it or write elsewhere")
	if b, _ := os.ReadFile(path); string(b) != "planted" {
		t.Errorf("the file now holds %q", b)
	}

	group := shared(t, 0o770)
	path = filepath.Join(group, "out.svg")
	if err := os.WriteFile(path, []byte("colleague's"), 0o664); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o664); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, other, other); err != nil {
		t.Fatal(err)
	}
	if err := writeAll(path, "mine"); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o664 {
		t.Errorf("mode %v, want 0664 as the file replaced", st.Mode().Perm())
	}
	assertNoTemps(t, tmp)
	assertNoTemps(t, group)
}

// Resolve resolves links one at a time as the kernel does: relative links,
// "..", links to links, a dangling link (its target is to be made), and
// stops at a loop; links in /proc are left to the kernel.
func TestResolve(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(filepath.Join(dir, "a"), 0o700))
	must(os.Mkdir(filepath.Join(dir, "b"), 0o700))
	must(os.Symlink("../b", filepath.Join(dir, "a", "up")))
	must(os.Symlink("up/file", filepath.Join(dir, "a", "l1")))
	must(os.Symlink(filepath.Join(dir, "a", "l1"), filepath.Join(dir, "l2")))
	must(os.Symlink("loop", filepath.Join(dir, "loop")))
	for _, c := range []struct{ in, want string }{
		{filepath.Join(dir, "l2"), filepath.Join(dir, "b", "file")},
		{dir + "/a/up/../a/up/x/y", filepath.Join(dir, "b", "x", "y")},
		{filepath.Join(dir, "a", ".", "up") + "/", filepath.Join(dir, "b")},
		{"/proc/self/fd/1", "/proc/self/fd/1"},
		{"/dev/stdout", "/proc/self/fd/1"},
	} {
		got, err := Resolve(c.in)
		if err != nil || got != c.want {
			t.Errorf("Resolve(%s) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	wd, _ := os.Getwd()
	must(os.Chdir(filepath.Join(dir, "a")))
	defer os.Chdir(wd)
	for _, c := range []struct{ in, want string }{
		{"l1", filepath.Join("..", "b", "file")},
		{"up/../../x", filepath.Join("..", "..", "x")}, // up/.. is a's parent, not a
		{"new.svg", "new.svg"},
		{".", "."},
	} {
		got, err := Resolve(c.in)
		if err != nil || got != c.want {
			t.Errorf("in a: Resolve(%s) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, err := Resolve(filepath.Join(dir, "loop")); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("a link to itself: err = %v, want ELOOP", err)
	}
}

// createWithin runs Create on path, failing the test if it has not
// returned within d: a regression blocks instead of hanging the tests.
func createWithin(t *testing.T, path string, d time.Duration) (*File, error) {
	t.Helper()
	type res struct {
		f   *File
		err error
	}
	done := make(chan res, 1)
	go func() {
		f, err := Create(path)
		done <- res{f, err}
	}()
	select {
	case r := <-done:
		return r.f, r.err
	case <-time.After(d):
		t.Fatalf("Create(%s) still blocks after %s", path, d)
		return nil, nil
	}
}

// A named pipe nobody reads is an error within about a second, not a
// command that waits for ever; one whose reader comes soon after is
// written; nothing replaces the pipe.
func TestFifoWithoutReader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.dot")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := createWithin(t, path, 10*time.Second)
	assertRefused(t, err, path+": a named pipe with no reader; start its reader first, or write to a file")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the refusal took %s", d)
	}
	// The reader starts a moment after the writer.
	got := make(chan string, 1)
	go func() {
		time.Sleep(100 * time.Millisecond)
		b, _ := os.ReadFile(path)
		got <- string(b)
	}()
	f, err := createWithin(t, path, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("late reader"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b := <-got; b != "late reader" {
		t.Errorf("the reader got %q", b)
	}
	if st, err := os.Lstat(path); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("%s is no longer a named pipe: %v", path, err)
	}
}

// Writes to a pipe whose reader is slow wait for it (the descriptor is made
// blocking once open): more than a pipe holds arrives whole.
func TestFifoSlowReader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan int, 1)
	go func() {
		r, err := os.Open(path)
		if err != nil {
			got <- -1
			return
		}
		defer r.Close()
		time.Sleep(200 * time.Millisecond)
		n, _ := io.Copy(io.Discard, r)
		got <- int(n)
	}()
	f, err := createWithin(t, path, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 1<<20)
	if n, err := f.Write(big); n != len(big) || err != nil {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := <-got; n != len(big) {
		t.Errorf("the reader got %d bytes, want %d", n, len(big))
	}
}

// A named pipe another user made in a sticky directory is refused, even
// with its reader waiting: the output would go to that user. The user's
// own pipe there is written.
func TestRefusesPlantedFifo(t *testing.T) {
	needRoot(t)
	tmp := shared(t, 0o777|fs.ModeSticky)
	path := filepath.Join(tmp, "out.dot")
	if err := syscall.Mkfifo(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, other, other); err != nil {
		t.Fatal(err)
	}
	// The planter's reader, open without blocking.
	rfd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(rfd)
	_, err = createWithin(t, path, 10*time.Second)
	assertRefused(t, err, path+": a named pipe owned by ", "uid 65534", "remove it or write elsewhere")
	if n, _ := syscall.Read(rfd, make([]byte, 10)); n > 0 {
		t.Errorf("the planter's reader got %d bytes", n)
	}

	if err := os.Chown(path, os.Geteuid(), os.Getegid()); err != nil {
		t.Fatal(err)
	}
	f, err := createWithin(t, path, 10*time.Second)
	if err != nil {
		t.Fatalf("the user's own pipe: %v", err)
	}
	f.Write([]byte("mine"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 10)
	if n, _ := syscall.Read(rfd, b); string(b[:n]) != "mine" {
		t.Errorf("the reader got %q", b[:n])
	}
}

// Devices and the process's own descriptors are written as they are:
// /dev/null stays a device, /dev/fd/N of a pipe (as bash's >(cmd)) gets the
// bytes, and a file given as /dev/fd/N (-o /dev/stdout >> log) is added
// to, not replaced.
func TestDevicesAndDescriptors(t *testing.T) {
	if err := writeAll("/dev/null", "nothing"); err != nil {
		t.Errorf("/dev/null: %v", err)
	}
	if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is now %v, %v", st.Mode(), err)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	if err := writeAll("/dev/fd/"+strconv.Itoa(int(w.Fd())), "substituted"); err != nil {
		t.Fatalf("/dev/fd/N of a pipe: %v", err)
	}
	w.Close()
	if b := <-got; b != "substituted" {
		t.Errorf("the pipe's reader got %q", b)
	}

	log := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(log, []byte("before\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	lf, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	before, _ := os.Stat(log)
	if err := writeAll("/dev/fd/"+strconv.Itoa(int(lf.Fd())), "output\n"); err != nil {
		t.Fatalf("/dev/fd/N of a file: %v", err)
	}
	after, _ := os.Stat(log)
	if b, _ := os.ReadFile(log); string(b) != "before\noutput\n" || !os.SameFile(before, after) {
		t.Errorf("the file given as /dev/fd/N holds %q (same file: %v)", b, os.SameFile(before, after))
	}
}

func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left in %s", e.Name(), dir)
		}
	}
}
