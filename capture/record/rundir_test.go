package record

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/difftrace/difftrace/rundir"
)

func tmplFor(launch string) rundir.Manifest {
	return rundir.Manifest{Schema: 1, Tool: "difftrace", Format: "parlot-17", Backend: "uftrace", Images: "main",
		Prefix: "trace", Command: []string{"/bin/app"}, Launch: launch}
}

// TestClaimRunDirConcurrent has 16 ranks claim and update one run directory
// at once, as mpirun starts them: the manifest ends with all 16, sorted.
func TestClaimRunDirConcurrent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	tm := tmplFor("job=1")
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for r := 0; r < 16; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			start := time.Now()
			rk := rundir.Rank{Rank: r, Host: "h", Start: start}
			if err := claimRunDir(dir, tm, rk, false); err != nil {
				errs <- err
				return
			}
			rk.End = start.Add(time.Duration(r) * time.Millisecond)
			rk.Exited = true
			rk.Threads = []rundir.Thread{{Thread: 0, TID: 100 + r, Events: 10, Bytes: 5}}
			if err := updateRank(dir, tm, rk); err != nil {
				errs <- err
			}
		}(r)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	m, err := rundir.ReadManifest(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Ranks) != 16 {
		t.Fatalf("manifest has %d ranks, want 16", len(m.Ranks))
	}
	for i, r := range m.Ranks {
		if r.Rank != i || !r.Exited || len(r.Threads) != 1 {
			t.Errorf("rank entry %d: %+v", i, r)
		}
	}
	if m.Start.IsZero() || m.End.Before(m.Start) || m.Launch != "job=1" {
		t.Errorf("run start %v end %v launch %q", m.Start, m.End, m.Launch)
	}
}

func TestClaimRunDirRefusesOtherRun(t *testing.T) {
	dir := t.TempDir()
	rk := rundir.Rank{Rank: 0, Start: time.Now()}
	if err := claimRunDir(dir, tmplFor("job=1"), rk, false); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "trace.0.0"), []byte{0}, 0o644)
	os.WriteFile(filepath.Join(dir, "trace.0.info"), []byte("+\n/bin/app\nmain\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	err := claimRunDir(dir, tmplFor("job=2"), rk, false)
	var de *DirError
	if !errors.As(err, &de) || de.Kind != DirOtherRun || !strings.Contains(err.Error(), "already holds another run") || !strings.Contains(err.Error(), "Options.Force") {
		t.Fatalf("second launch into the same directory: %v", err)
	}
	// A command line names its flags.
	de.DirParam, de.ForceParam = "-o", "--force"
	if want := "; choose another -o, or pass --force to replace it"; !strings.HasSuffix(err.Error(), want) {
		t.Errorf("%v: want it to end %q", err, want)
	}
	if err := claimRunDir(dir, tmplFor("job=2"), rk, true); err != nil {
		t.Fatalf("with --force: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "trace.0.0")); !os.IsNotExist(err) {
		t.Error("--force kept the old run's trace")
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Error("--force removed a file that was not part of the run")
	}
	m, _ := rundir.ReadManifest(filepath.Join(dir, "run.json"))
	if m == nil || m.Launch != "job=2" {
		t.Errorf("manifest after --force: %+v", m)
	}
}

func TestClaimRunDirRefusesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "thesis.tex"), []byte("x"), 0o644)
	err := claimRunDir(dir, tmplFor("job=1"), rundir.Rank{}, false)
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("claiming a directory of other files: %v", err)
	}
	// With --force, what a run left is removed and the other files stay.
	for _, name := range []string{"trace.0.0", "trace.0.info"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte{0}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := claimRunDir(dir, tmplFor("job=1"), rundir.Rank{}, true); err != nil {
		t.Fatalf("claiming with force: %v", err)
	}
	for name, want := range map[string]bool{"thesis.tex": true, "trace.0.0": false, "trace.0.info": false, rundir.ManifestName: true} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("after claiming with force, %s exists: %v, want %v", name, err == nil, want)
		}
	}
}

func TestClaimRunDirMixedOptions(t *testing.T) {
	dir := t.TempDir()
	if err := claimRunDir(dir, tmplFor("job=1"), rundir.Rank{Rank: 0}, false); err != nil {
		t.Fatal(err)
	}
	all := tmplFor("job=1")
	all.Images = "all"
	if err := claimRunDir(dir, all, rundir.Rank{Rank: 1}, false); err == nil {
		t.Fatal("a rank recording all images joined a main-image run")
	}
}

// TestWaitRecorded checks that a reader waits while recorders hold the run
// directory and goes on as soon as the last one lets go, and that the run
// directory still counts as empty for a recorder that claims it.
func TestWaitRecorded(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if err := WaitRecorded(dir, time.Second, func() { t.Error("waited for a directory that does not exist") }); err != nil {
		t.Fatal(err)
	}
	rel1, err := holdActive(dir)
	if err != nil {
		t.Fatal(err)
	}
	rel2, err := holdActive(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := claimRunDir(dir, tmplFor("job=1"), rundir.Rank{Rank: 0, Start: time.Now()}, false); err != nil {
		t.Fatalf("claiming a directory its recorders hold: %v", err)
	}
	waited := 0
	err = WaitRecorded(dir, 200*time.Millisecond, func() { waited++ })
	if err == nil || waited != 1 || !strings.Contains(err.Error(), "still writing") {
		t.Fatalf("WaitRecorded with two recorders at work: %v, waited %d times", err, waited)
	}
	rel1()
	go func() {
		time.Sleep(200 * time.Millisecond)
		rel2()
	}()
	begin := time.Now()
	if err := WaitRecorded(dir, time.Minute, nil); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(begin); d < 150*time.Millisecond {
		t.Errorf("WaitRecorded returned after %v, before the last recorder let go", d)
	}
	// Readers do not hold the lock: a new recorder can take the directory.
	rel3, err := holdActive(dir)
	if err != nil {
		t.Fatal(err)
	}
	rel3()
}

// The run directory's locks are never opened through a link planted in
// it: the recorder says so, and nothing is created where the link points.
func TestRunDirLocksFollowNoLink(t *testing.T) {
	for _, name := range []string{lockName, activeName} {
		dir, elsewhere := t.TempDir(), t.TempDir()
		target := filepath.Join(elsewhere, "created")
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		var err error
		if name == lockName {
			_, err = lockRunDir(dir)
		} else {
			_, err = holdActive(dir)
		}
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, name)+" is a symbolic link") {
			t.Errorf("%s a link: %v", name, err)
		}
		if _, err := os.Lstat(target); err == nil {
			t.Errorf("%s: the link's target was created", name)
		}
	}
}
