package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A run whose recorders logged their ranks reads whole before it is
// assembled (a run cut short), and the same once assembled into run.json
// alone; a later entry of a rank replaces an earlier one, and a last line
// a killed recorder left half written is left out.
func TestRankLogMergedAndAssembled(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := &Manifest{Schema: 1, Tool: "difftrace", Prefix: "trace", Size: 3, Start: t0.Add(time.Second),
		Ranks: []Rank{{Rank: 1, Host: "a", Start: t0.Add(time.Second), Threads: []Thread{}}}}
	if err := WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	for _, r := range []Rank{
		{Rank: 2, Host: "b", Start: t0, PID: 7},
		{Rank: 1, Host: "a", Start: t0.Add(time.Second), PID: 5},
		{Rank: 2, Host: "b", Start: t0, PID: 7, End: t0.Add(time.Minute), Exited: true},
		{Rank: 1, Host: "a", Start: t0.Add(time.Second), PID: 5, End: t0.Add(2 * time.Minute), Exited: true, ExitStatus: 3},
	} {
		if err := AppendRank(dir, r); err != nil {
			t.Fatal(err)
		}
	}
	// A recorder killed while writing rank 0's entry.
	f, err := os.OpenFile(filepath.Join(dir, RankLogName), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"rank":0,"host":"c","st`)
	f.Close()

	check := func(what string) {
		t.Helper()
		got, err := ReadManifest(filepath.Join(dir, ManifestName))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got.RankList() != "ranks 1 to 2" || got.Ranks[0].Rank != 1 || got.Ranks[0].ExitStatus != 3 || !got.Ranks[1].Exited {
			t.Fatalf("%s: ranks %+v", what, got.Ranks)
		}
		if !got.Start.Equal(t0) || !got.End.Equal(t0.Add(2*time.Minute)) {
			t.Errorf("%s: run from %v to %v, want %v to %v", what, got.Start, got.End, t0, t0.Add(2*time.Minute))
		}
	}
	check("with the log")
	if w, err := ReadWritten(filepath.Join(dir, ManifestName)); err != nil || len(w.Ranks) != 1 {
		t.Fatalf("run.json as written: %v, %v", w, err)
	}
	if err := Assemble(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, RankLogName)); !os.IsNotExist(err) {
		t.Fatalf("the rank log is still there after Assemble (%v)", err)
	}
	if w, err := ReadWritten(filepath.Join(dir, ManifestName)); err != nil || len(w.Ranks) != 2 {
		t.Fatalf("assembled run.json alone: %v, %v", w, err)
	}
	check("assembled")
	if err := Assemble(dir); err != nil { // nothing logged: nothing to do
		t.Fatal(err)
	}
}

// A damaged entry of the rank log is refused with the file, its line and
// byte offset, and what to do.
func TestRankLogDamaged(t *testing.T) {
	dir := t.TempDir()
	if err := WriteManifest(dir, &Manifest{Schema: 1, Prefix: "trace"}); err != nil {
		t.Fatal(err)
	}
	if err := AppendRank(dir, Rank{Rank: 0}); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, RankLogName)
	f, _ := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString("{\"rank\": \"zero\"}\n")
	f.Close()
	_, err := ReadManifest(filepath.Join(dir, ManifestName))
	if err == nil {
		t.Fatal("a damaged rank entry was read")
	}
	for _, want := range []string{log, "line 2", "byte ", "remove the line"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// A run.json whose field has the wrong type is refused at its byte offset.
func TestManifestTypeErrorPosition(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ManifestName)
	os.WriteFile(p, []byte(`{"schema": 1, "ranks": [{"rank": "one"}]}`), 0o644)
	_, err := ReadManifest(p)
	if err == nil || !strings.Contains(err.Error(), "byte ") || !strings.Contains(err.Error(), "ranks.rank") {
		t.Fatalf("error %v names no byte offset or field", err)
	}
}

// A rank log planted as a symbolic link is not written through.
func TestAppendRankRefusesALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(target, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, RankLogName)); err != nil {
		t.Fatal(err)
	}
	if err := AppendRank(dir, Rank{Rank: 1}); err == nil {
		t.Fatal("AppendRank wrote through a symbolic link")
	}
	if b, _ := os.ReadFile(target); string(b) != "kept\n" {
		t.Errorf("the link's target now holds %q", b)
	}
}

// A named pipe planted as run.json or as the rank log of a run being read
// is refused, not waited on for a writer that never comes.
func TestReadRefusesAPlantedFIFO(t *testing.T) {
	for _, name := range []string{ManifestName, RankLogName} {
		dir := t.TempDir()
		if name != ManifestName {
			if err := WriteManifest(dir, &Manifest{Schema: 1, Prefix: "trace"}); err != nil {
				t.Fatal(err)
			}
		}
		fifo := filepath.Join(dir, name)
		if err := syscall.Mkfifo(fifo, 0o666); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := ReadManifest(filepath.Join(dir, ManifestName))
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.HasPrefix(err.Error(), fifo+": cannot read: not a regular file but a named pipe (FIFO)") {
				t.Errorf("%s planted as a FIFO: %v", name, err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("reading the run waits on %s, a FIFO planted in its place", name)
		}
	}
}
