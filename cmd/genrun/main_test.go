package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/internal/synth"
)

// genrun writes a faulty run with the bugs asked for at places the seed
// picks, lists them in planted.json, and says so; -help documents the bugs
// and the format; a non-empty directory or an unknown bug is refused.
func TestGenrun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "faulty")
	var out, errb bytes.Buffer
	args := []string{"-procs", "9", "-threads", "2", "-events", "1000", "-seed", "3", "-faulty", "-bugs", "race,skip-phase", "-o", dir}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var pl synth.Planted
	b, err := os.ReadFile(filepath.Join(dir, synth.PlantedName))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &pl); err != nil {
		t.Fatal(err)
	}
	if len(pl.Bugs) != 2 || len(pl.Traces) != 2 || len(pl.Processes) != 2 || pl.Bugs[0].Kind != synth.Race || pl.Bugs[0].Thread != 1 {
		t.Errorf("planted.json: %s", b)
	}
	for _, tr := range pl.Traces {
		if !strings.Contains(out.String(), "in "+tr+"\n") {
			t.Errorf("output does not name %s:\n%s", tr, out.String())
		}
	}
	if code := run(args, &out, &errb); code != 1 || !strings.Contains(errb.String(), "not empty") {
		t.Errorf("a second run into %s: exit %d, %s", dir, code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"-faulty", "-bugs", "typo", "-o", t.TempDir()}, &out, &errb); code != 2 || !strings.Contains(errb.String(), `unknown bug "typo"`) {
		t.Errorf("-bugs typo: exit %d, %s", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"-help"}, &out, &errb); code != 0 || !strings.Contains(errb.String(), "planted.json") || !strings.Contains(errb.String(), "skip-phase") {
		t.Errorf("-help: exit %d, %s", code, errb.String())
	}
}
