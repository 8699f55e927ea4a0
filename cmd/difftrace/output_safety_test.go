package main

import (
	"bytes"
	"context"
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

// nobody is the second user files are planted as.
const nobody = 65534

// asRoot stops a test that plants files as another user (chown): it fails
// in CI, which runs as root, and is skipped elsewhere.
func asRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if testenv.InCI() {
		t.Fatal("the test plants files as another user (chown), which needs root: CI runs the tests as root")
	}
	t.Skip("SKIPPING: not root; the test plants files as another user (chown)")
}

// stickyDir is a directory as /tmp: sticky and writable by everyone.
func stickyDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tmp")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777|fs.ModeSticky); err != nil {
		t.Fatal(err)
	}
	return dir
}

// difftraceWithin runs the binary in dir as difftraceAt does, but fails
// the test if it has not ended within d (it is killed): a command that
// blocks fails instead of hanging the tests.
func difftraceWithin(t *testing.T, d time.Duration, dir string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, difftraceBin, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("difftrace %s still ran after %s: %s", strings.Join(args, " "), d, errb.Bytes())
	}
	r := result{stdout: out.Bytes(), stderr: errb.Bytes()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running difftrace %s: %v", strings.Join(args, " "), err)
	}
	return r
}

func diffnlrArgs(t *testing.T, outs ...string) []string {
	args := []string{"diffnlr", "5", "--normal", absRun(t, "oddeven-normal"), "--faulty", absRun(t, "oddeven-swapbug")}
	for _, o := range outs {
		args = append(args, "-o", o)
	}
	return args
}

// Issue 24, item 2: in a sticky, world-writable directory another user
// plants out.svg -> the victim's 0600 file; diffnlr -o out.svg there
// refuses, naming the link, its owner and what to do, and the victim's
// file is left as it was. The user's own link there is still followed.
func TestOutputRefusesPlantedSymlink(t *testing.T) {
	asRoot(t)
	tmp := stickyDir(t)
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, "out.svg")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	r := difftraceWithin(t, time.Minute, tmp, diffnlrArgs(t, "out.svg")...)
	if r.code == 0 {
		t.Fatalf("diffnlr -o through another user's link succeeded: %s", r.stderr)
	}
	for _, want := range []string{"out.svg: a symbolic link owned by ", "uid 65534", tmp + ", a directory that everyone may write (drwxrwxrwt)", "remove the link or write elsewhere"} {
		if !strings.Contains(string(r.stderr), want) {
			t.Errorf("the error does not say %q:\n%s", want, r.stderr)
		}
	}
	if b := mustRead(t, secret); string(b) != "secret" {
		t.Fatalf("the victim's file now holds %.40q", b)
	}
	assertNoTemps(t, tmp)
	assertNoTemps(t, filepath.Dir(secret))

	// The user's own link in the same directory: followed, and stays a link.
	mine := filepath.Join(t.TempDir(), "mine.dot")
	os.Remove(link)
	if err := os.Symlink(mine, filepath.Join(tmp, "own.dot")); err != nil {
		t.Fatal(err)
	}
	r = difftraceWithin(t, time.Minute, tmp, diffnlrArgs(t, "own.dot")...)
	if r.code != 0 {
		t.Fatalf("diffnlr -o through the user's own link: exit %d: %s", r.code, r.stderr)
	}
	if b := mustRead(t, mine); !bytes.Contains(b, []byte("digraph")) {
		t.Errorf("the link's target holds %.80q", b)
	}
	if st, err := os.Lstat(filepath.Join(tmp, "own.dot")); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the user's link is gone: %v", err)
	}
}

// Issue 24, item 7: -o onto a named pipe nobody reads ends promptly with an
// error that says so; with a reader, the picture arrives through the pipe.
// Another user's pipe in a sticky directory is refused, reader or not.
func TestOutputFifo(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "out.dot")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r := difftraceWithin(t, 20*time.Second, dir, diffnlrArgs(t, "out.dot")...)
	if r.code == 0 || !strings.Contains(string(r.stderr), "out.dot: a named pipe with no reader; start its reader first, or write to a file") {
		t.Errorf("-o onto a pipe with no reader: exit %d:\n%s", r.code, r.stderr)
	}

	got := make(chan []byte, 1)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- b
	}()
	r = difftraceWithin(t, time.Minute, dir, diffnlrArgs(t, "out.dot")...)
	if r.code != 0 {
		t.Fatalf("-o onto a pipe with its reader: exit %d: %s", r.code, r.stderr)
	}
	if b := <-got; !bytes.HasPrefix(b, []byte("digraph")) {
		t.Errorf("the pipe's reader got %.80q", b)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("%s is no longer a named pipe: %v", fifo, err)
	}

	asRoot(t)
	tmp := stickyDir(t)
	planted := filepath.Join(tmp, "out.dot")
	if err := syscall.Mkfifo(planted, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(planted, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	rfd, err := syscall.Open(planted, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(rfd)
	r = difftraceWithin(t, time.Minute, tmp, diffnlrArgs(t, "out.dot")...)
	if r.code == 0 || !strings.Contains(string(r.stderr), "out.dot: a named pipe owned by ") {
		t.Errorf("-o onto another user's pipe: exit %d:\n%s", r.code, r.stderr)
	}
	if n, _ := syscall.Read(rfd, make([]byte, 64)); n > 0 {
		t.Errorf("the planter's reader got %d bytes", n)
	}
}

// -o /dev/null and -o /dev/stdout keep working: the device is not
// replaced, and the table comes out on standard output as without -o.
func TestOutputDevices(t *testing.T) {
	run := absRun(t, "oddeven-normal")
	args := []string{"filter", run, "--filter", "mpi", "--format", "count"}
	want := difftraceWithin(t, time.Minute, "", args...)
	if want.code != 0 || len(want.stdout) == 0 {
		t.Fatalf("filter: exit %d: %s", want.code, want.stderr)
	}
	r := difftraceWithin(t, time.Minute, "", append(args, "-o", "/dev/stdout")...)
	if r.code != 0 || !bytes.Equal(r.stdout, want.stdout) {
		t.Errorf("-o /dev/stdout: exit %d, stdout %q, want %q: %s", r.code, r.stdout, want.stdout, r.stderr)
	}
	r = difftraceWithin(t, time.Minute, "", append(args, "-o", "/dev/null")...)
	if r.code != 0 || len(r.stdout) != 0 {
		t.Errorf("-o /dev/null: exit %d, stdout %q: %s", r.code, r.stdout, r.stderr)
	}
	if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is now %v, %v", st.Mode(), err)
	}
}

// summarize -o DIR through another user's link in a sticky directory is
// refused before the directory is read or cleared: the parts of another
// summary in the directory the link leads to stay.
func TestSummarizeRefusesPlantedSymlink(t *testing.T) {
	asRoot(t)
	tmp := stickyDir(t)
	private := t.TempDir()
	part := filepath.Join(private, "part-0-of-2.dts")
	writeFile(t, part, []byte("another summary's part"))
	link := filepath.Join(tmp, "sum")
	if err := os.Symlink(private, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	r := difftraceWithin(t, time.Minute, tmp, "summarize", absRun(t, "oddeven-normal"), "-o", link)
	if r.code == 0 || !strings.Contains(string(r.stderr), link+": a symbolic link owned by ") {
		t.Errorf("summarize -o through another user's link: exit %d:\n%s", r.code, r.stderr)
	}
	if ents, _ := os.ReadDir(private); len(ents) != 1 || ents[0].Name() != filepath.Base(part) {
		t.Errorf("the directory the link leads to now holds %v", ents)
	}
}
