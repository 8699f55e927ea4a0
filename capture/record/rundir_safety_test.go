package record

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/difftrace/difftrace/internal/testenv"
	"github.com/difftrace/difftrace/rundir"
)

// A run directory given with -o that is another user's link in a sticky,
// world-writable directory (/tmp/run -> the victim's private directory) is
// refused before anything is made in it; so are lock files planted as
// links in a run directory others may write. The user's own link is
// followed.
func TestRunDirRefusesPlantedLinks(t *testing.T) {
	if os.Geteuid() != 0 {
		if testenv.InCI() {
			t.Fatal("the test plants links as another user (chown), which needs root: CI runs the tests as root")
		}
		t.Skip("SKIPPING: not root; the test plants links as another user (chown)")
	}
	const nobody = 65534
	tmp := filepath.Join(t.TempDir(), "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, 0o777|fs.ModeSticky); err != nil {
		t.Fatal(err)
	}
	private := t.TempDir()
	run := filepath.Join(tmp, "run")
	if err := os.Symlink(private, run); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(run, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	tmpl := tmplFor("job=1")
	for name, try := range map[string]func() error{
		"checkRunDir":         func() error { return checkRunDir(run, tmpl, false) },
		"checkRunDir --force": func() error { return checkRunDir(run, tmpl, true) },
		"holdActive":          func() error { _, err := holdActive(run); return err },
		"claimRunDir":         func() error { return claimRunDir(run, tmpl, rundir.Rank{}, false) },
		"a missing directory under it": func() error {
			return claimRunDir(filepath.Join(run, "sub"), tmpl, rundir.Rank{}, false)
		},
	} {
		err := try()
		if err == nil || !strings.Contains(err.Error(), run+": a symbolic link owned by ") || !strings.Contains(err.Error(), "remove the link or write elsewhere") {
			t.Errorf("%s through another user's link: %v", name, err)
		}
	}
	if ents, _ := os.ReadDir(private); len(ents) != 0 {
		t.Errorf("files were made in the private directory: %v", ents)
	}

	// A run directory others may write, with its lock files planted as
	// links into the private directory.
	open := filepath.Join(tmp, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o777)
	for _, n := range []string{lockName, activeName} {
		l := filepath.Join(open, n)
		if err := os.Symlink(filepath.Join(private, n), l); err != nil {
			t.Fatal(err)
		}
		os.Lchown(l, nobody, nobody)
	}
	if _, err := holdActive(open); err == nil || !strings.Contains(err.Error(), activeName+" is a symbolic link: remove it (difftrace keeps a lock file of the run there)") {
		t.Errorf("holdActive with a planted link: %v", err)
	}
	if err := claimRunDir(open, tmpl, rundir.Rank{}, false); err == nil || !strings.Contains(err.Error(), lockName+" is a symbolic link") {
		t.Errorf("claimRunDir with a planted link: %v", err)
	}
	if ents, _ := os.ReadDir(private); len(ents) != 0 {
		t.Errorf("files were made in the private directory: %v", ents)
	}

	// The user's own link to their own directory.
	mine := filepath.Join(tmp, "mine")
	if err := os.Symlink(private, mine); err != nil {
		t.Fatal(err)
	}
	if err := claimRunDir(mine, tmpl, rundir.Rank{}, false); err != nil {
		t.Fatalf("claiming through the user's own link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(private, rundir.ManifestName)); err != nil {
		t.Errorf("no run.json through the user's own link: %v", err)
	}
}

// A reader of a run waits for its recorders only on capture's own mark, a
// regular file: a named pipe or a link in its place is no mark, and never
// blocks the reader.
func TestWaitRecordedIgnoresPlantedMark(t *testing.T) {
	for _, plant := range []func(p string) error{
		func(p string) error { return syscall.Mkfifo(p, 0o666) },
		func(p string) error { return os.Symlink("/dev/zero", p) },
	} {
		dir := t.TempDir()
		if err := plant(filepath.Join(dir, activeName)); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- WaitRecorded(dir, time.Second, nil) }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("WaitRecorded: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("WaitRecorded blocked on a planted mark")
		}
	}
}
