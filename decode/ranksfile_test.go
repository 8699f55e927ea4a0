package decode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A run.json without ranks takes them from run.ranks.jsonl, where each
// recorder appended its entry at its start and again at its end: a rank's
// last line is its entry, the run spans every line, a last line still
// being written is left out, and a damaged line is an error naming it. A
// run.json that lists its ranks (the older layout) is read as it is.
func TestReadManifestRanksFile(t *testing.T) {
	dir := t.TempDir()
	head := `{"schema": 1, "tool": "difftrace", "format": "parlot-17", "backend": "uftrace", "images": "main", "prefix": "trace", "size": 2, "launch": "job=1"}`
	lines := `{"rank": 1, "pid": 11, "start": "2026-01-01T00:00:02Z", "exited": false}
{"rank": 0, "pid": 10, "start": "2026-01-01T00:00:01Z", "exited": false}
{"rank": 1, "pid": 11, "start": "2026-01-01T00:00:02Z", "end": "2026-01-01T00:01:00Z", "exited": true, "threads": [{"thread": 0, "events": 8}]}
{"rank": 0, "pid": 10, "start": "2026-01-01T00:00:01Z", "end": "2026-01-01T00:00:50Z", "exi`
	os.WriteFile(filepath.Join(dir, ManifestName), []byte(head), 0o644)
	os.WriteFile(filepath.Join(dir, RanksName), []byte(lines), 0o644)
	m, err := ReadManifest(filepath.Join(dir, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Ranks) != 2 || m.Ranks[0].Rank != 0 || m.Ranks[0].Exited || m.Ranks[1].Rank != 1 || !m.Ranks[1].Exited || len(m.Ranks[1].Threads) != 1 {
		t.Errorf("ranks %+v", m.Ranks)
	}
	if want := time.Date(2026, 1, 1, 0, 0, 1, 0, time.UTC); !m.Start.Equal(want) || !m.End.Equal(want.Add(59*time.Second)) {
		t.Errorf("the run spans %v to %v", m.Start, m.End)
	}
	if rk, ok := m.Rank(1); !ok || rk.PID != 11 {
		t.Errorf("Rank(1) = %+v, %v", rk, ok)
	}

	os.WriteFile(filepath.Join(dir, RanksName), []byte(lines[:40]+"\n"), 0o644)
	if _, err := ReadManifest(filepath.Join(dir, ManifestName)); err == nil || !strings.Contains(err.Error(), RanksName+": line 1: malformed rank entry") {
		t.Errorf("a damaged line: %v", err)
	}

	// The older layout: run.json lists the ranks, the other file is not read.
	old := strings.Replace(head, `"size": 2`, `"size": 2, "ranks": [{"rank": 0, "pid": 7, "exited": true}]`, 1)
	os.WriteFile(filepath.Join(dir, ManifestName), []byte(old), 0o644)
	m, err = ReadManifest(filepath.Join(dir, ManifestName))
	if err != nil || len(m.Ranks) != 1 || m.Ranks[0].PID != 7 {
		t.Errorf("run.json with its ranks: %+v, %v", m, err)
	}
}
