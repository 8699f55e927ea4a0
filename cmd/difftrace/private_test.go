package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/internal/testenv"
)

// asNobody runs the shell script as uid 65534, a second user, in dir; the
// test is skipped (loudly) when not run as root.
func asNobody(t *testing.T, dir, script string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("SKIPPING: planting files as a second user needs root (setpriv)")
	}
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
	os.Chmod(filepath.Dir(d), 0o755)
	if err := os.Chmod(d, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	return d
}

// rank makes .difftrace 0700 and its files 0600; a link found at
// session.json in it is replaced, not written through, and diffnlr refuses
// to read one.
func TestSessionIsPrivate(t *testing.T) {
	dir := t.TempDir()
	normal, faulty := absRun(t, "oddeven-normal"), absRun(t, "oddeven-swapbug")
	if r := difftraceAt(t, dir, nil, "rank", normal, faulty, "--filters", "mpi"); r.code != 0 {
		t.Fatalf("rank: exit %d: %s", r.code, r.stderr)
	}
	sdir := filepath.Join(dir, ".difftrace")
	for p, want := range map[string]os.FileMode{sdir: os.ModeDir | 0o700, filepath.Join(sdir, "session.json"): 0o600, filepath.Join(sdir, "lock"): 0o600} {
		if st, err := os.Lstat(p); err != nil || st.Mode() != want {
			t.Errorf("%s: %v, %v; want %v", p, st.Mode(), err, want)
		}
	}

	secret := filepath.Join(t.TempDir(), "secret")
	writeFile(t, secret, []byte("secret"))
	session := filepath.Join(sdir, "session.json")
	os.Remove(session)
	os.Symlink(secret, session)
	r := difftraceAt(t, dir, nil, "diffnlr", "5")
	if r.code == 0 || !strings.Contains(string(r.stderr), ".difftrace/session.json is a symbolic link: remove it, or give --normal and --faulty") {
		t.Errorf("diffnlr with session.json a link: exit %d: %s", r.code, r.stderr)
	}
	if r := difftraceAt(t, dir, nil, "rank", normal, faulty, "--filters", "mpi"); r.code != 0 {
		t.Fatalf("rank with session.json a link: exit %d: %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(secret); string(b) != "secret" {
		t.Errorf("rank wrote through the link: %.40q", b)
	}
	if st, err := os.Lstat(session); err != nil || !st.Mode().IsRegular() {
		t.Errorf("session.json is not a file of its own: %v %v", st.Mode(), err)
	}
	if r := difftraceAt(t, dir, nil, "diffnlr", "5"); r.code != 0 {
		t.Errorf("diffnlr: exit %d: %s", r.code, r.stderr)
	}
}

// A .difftrace another user planted in a shared directory, or one that
// others may write, with its lock and session.json linked into another
// directory: rank and diffnlr refuse it, saying where, why and what to do,
// change nothing in it, and create or write nothing where its links point.
func TestPlantedSessionIsRefused(t *testing.T) {
	normal, faulty := absRun(t, "oddeven-normal"), absRun(t, "oddeven-swapbug")
	for _, c := range []struct {
		name string
		// plant makes .difftrace in dir, holding links to lock and
		// session, and returns what the refusal says.
		plant func(t *testing.T, dir, lock, session string) string
	}{
		{"world-writable", func(t *testing.T, dir, lock, session string) string {
			sdir := filepath.Join(dir, ".difftrace")
			os.Mkdir(sdir, 0o700)
			os.Chmod(sdir, 0o777)
			os.Symlink(lock, filepath.Join(sdir, "lock"))
			os.Symlink(session, filepath.Join(sdir, "session.json"))
			return ".difftrace may be written by other users (mode 0777): remove it"
		}},
		{"made by another user", func(t *testing.T, dir, lock, session string) string {
			asNobody(t, dir, "mkdir -m 777 .difftrace && ln -s "+lock+" .difftrace/lock && ln -s "+session+" .difftrace/session.json")
			return ".difftrace belongs to uid 65534, not to this user (uid 0): remove it"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := sharedDir(t)
			// The targets: a file of the victim's (0600), and a name
			// in a directory of theirs that nobody else may write.
			victim := t.TempDir()
			session, lock := filepath.Join(victim, "secret"), filepath.Join(victim, "created")
			writeFile(t, session, []byte("secret"))
			os.Chmod(session, 0o600)
			why := c.plant(t, dir, lock, session)
			before := snapshot(t, dir)

			r := difftraceAt(t, dir, nil, "rank", normal, faulty, "--filters", "mpi")
			if r.code == 0 || !strings.Contains(string(r.stderr), why+", or pass --no-session") {
				t.Errorf("rank: exit %d: %s; want it to say %q", r.code, r.stderr, why)
			}
			r = difftraceAt(t, dir, nil, "diffnlr", "5")
			if r.code == 0 || !strings.Contains(string(r.stderr), why+", or give --normal and --faulty") {
				t.Errorf("diffnlr: exit %d: %s; want it to say %q", r.code, r.stderr, why)
			}
			if b, _ := os.ReadFile(session); string(b) != "secret" {
				t.Errorf("the session link's target was written: %.40q", b)
			}
			if _, err := os.Lstat(lock); err == nil {
				t.Errorf("the lock link's target was created")
			}
			after := snapshot(t, dir)
			if len(after) != len(before) {
				t.Errorf("the planted directory changed: %d entries before, %d after", len(before), len(after))
			}
			for p, v := range before {
				if after[p] != v {
					t.Errorf("%s changed", p)
				}
			}
			// --no-session goes round it.
			if r := difftraceAt(t, dir, nil, "rank", normal, faulty, "--filters", "mpi", "--no-session"); r.code != 0 {
				t.Errorf("rank --no-session: exit %d: %s", r.code, r.stderr)
			}
		})
	}
}

// plantedLibSrc is a library another user plants where capture keeps its
// MPI peers library: loaded, its constructor creates the file MARKER.
const plantedLibSrc = `
#include <stdio.h>
__attribute__((constructor)) static void planted(void) { FILE *f = fopen(MARKER, "w"); if (f) fclose(f); }
`

// A peers library planted by another user in a cache directory of theirs
// (XDG_CACHE_HOME pointing at a shared directory), under the very name
// capture would use: capture records the run all the same, says why it
// did not use the cache, never loads the planted library, and leaves
// nothing behind.
func TestCaptureIgnoresPlantedPeersLibrary(t *testing.T) {
	needE2E(t)
	capture := func(cache, tmp string) (string, []byte) {
		t.Helper()
		run := filepath.Join(t.TempDir(), "run")
		cmd := exec.Command("mpirun", "-np", "2", "--oversubscribe", difftraceBin, "capture", "-o", run, "--", filepath.Join(examplesDir, "oddeven"))
		cmd.Env = append(mpiEnv(), "XDG_CACHE_HOME="+cache, "TMPDIR="+tmp)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("mpirun: %v\n%s", err, out)
		}
		waitRun(t, run, 2)
		return run, out
	}
	// The name capture gives the library, from a capture with a cache of
	// our own.
	own := t.TempDir()
	capture(own, t.TempDir())
	built, _ := filepath.Glob(filepath.Join(own, "difftrace", "peers-*.so"))
	if len(built) != 1 {
		t.Fatalf("libraries built in the cache: %v", built)
	}

	marker := filepath.Join(t.TempDir(), "planted-code-ran")
	lib := compile(t, "planted.so", plantedLibSrc, "-shared", "-fPIC", `-DMARKER="`+marker+`"`)
	shared := sharedDir(t)
	os.Chmod(lib, 0o755)
	os.Chmod(filepath.Dir(lib), 0o755)
	why := "may be written by other users"
	if os.Getuid() == 0 {
		asNobody(t, shared, "mkdir -m 777 difftrace && cp "+lib+" difftrace/"+filepath.Base(built[0]))
		why = "belongs to uid 65534, not to this user (uid 0): remove it, or set XDG_CACHE_HOME to a directory of your own"
	} else {
		os.Mkdir(filepath.Join(shared, "difftrace"), 0o777)
		os.Chmod(filepath.Join(shared, "difftrace"), 0o777)
		writeFile(t, filepath.Join(shared, "difftrace", filepath.Base(built[0])), mustRead(t, lib))
	}
	before := snapshot(t, shared)
	tmp := t.TempDir()
	run, out := capture(shared, tmp)
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the planted library was loaded")
	}
	if !strings.Contains(string(out), "not using the cache for the MPI peers library: "+filepath.Join(shared, "difftrace")+" "+why) {
		t.Errorf("capture does not say why it did not use the cache:\n%s", out)
	}
	if m := manifest(t, run); len(m.Ranks) != 2 {
		t.Errorf("run.json has %d ranks", len(m.Ranks))
	}
	after := snapshot(t, shared)
	if len(after) != len(before) {
		t.Errorf("the planted cache changed: %d entries before, %d after", len(before), len(after))
	}
	assertNoWork(t, tmp, run)
}
