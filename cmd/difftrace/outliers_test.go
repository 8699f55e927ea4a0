package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/session"
)

const outlierRuns = "../../testdata/outliers"

// TestRankOneRun follows the one-run route as a user would: rank one run,
// read the suspect and its roles, then run the diff rank suggests.
func TestRankOneRun(t *testing.T) {
	run := filepath.Join(outlierRuns, "rod-skipsmooth")
	out := ok(t, "rank", run, "--rows", "3")
	for _, w := range []string{
		"(alone: its traces are compared with one another)",
		"class of 1: [0] — rank 0, the first: calls printf, read_input, write_checkpoint",
		"(one neighbour fewer)",
		"class of 1: [3] — alone among its peers",
		"consensus: 3 was the first apart from its peers in 24 of 24 combinations",
		"first difference from 2: iteration 5 of 12",
		"smooth missing",
		"nobody lags behind its peers",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("rank output lacks %q:\n%s", w, out)
		}
	}
	// The suggested command, as printed.
	var suggested []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "difftrace diffnlr 3 --against") {
			suggested = strings.Fields(l)[1:]
		}
	}
	if suggested == nil {
		t.Fatalf("no diffnlr command suggested:\n%s", out)
	}
	diff := ok(t, suggested...)
	for _, w := range []string{"diffNLR(3 against 2): filter all, K 10", "smooth missing", "--- 2", "+++ 3"} {
		if !strings.Contains(diff, w) {
			t.Errorf("%v lacks %q:\n%s", suggested, w, diff)
		}
	}
	if _, err := os.Stat(session.Dir); err == nil {
		t.Errorf("rank of one run left a session in %s", session.Dir)
	}

	// JSON has every row and the suspects; CSV one line per row and suspect.
	var rep struct {
		Rows     []json.RawMessage `json:"rows"`
		Suspects []struct {
			ID      string `json:"id"`
			Peer    string `json:"peer"`
			Command string `json:"command"`
		} `json:"suspects"`
		Classes []struct {
			Role string `json:"role"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(ok(t, "rank", run, "--format", "json")), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 120 || len(rep.Suspects) != 1 || rep.Suspects[0].ID != "3" || rep.Suspects[0].Peer != "2" {
		t.Errorf("json: %d rows, suspects %+v", len(rep.Rows), rep.Suspects)
	}
	csv := ok(t, "rank", run, "--format", "csv")
	if !strings.HasPrefix(csv, "filter,k,attrs,linkage,classes,roles,position,suspect,score,peer,similarity\n") || !strings.Contains(csv, ",1,3,") {
		t.Errorf("csv:\n%s", csv)
	}

	// The diff as data and as a picture's source.
	dir := t.TempDir()
	js, dot := filepath.Join(dir, "d.json"), filepath.Join(dir, "d.dot")
	ok(t, "diffnlr", "3", "--against", "2", "--faulty", run, "--filter", "all", "-o", js, "-o", dot)
	var d struct {
		Trace   string `json:"trace"`
		Against string `json:"against"`
		First   struct {
			Kind  string   `json:"kind"`
			Calls []string `json:"calls"`
		} `json:"first_difference"`
	}
	if err := json.Unmarshal(mustRead(t, js), &d); err != nil {
		t.Fatal(err)
	}
	if d.Trace != "3" || d.Against != "2" || d.First.Kind != "missing" || len(d.First.Calls) != 1 || d.First.Calls[0] != "smooth.constprop.0" {
		t.Errorf("diff json: %+v", d)
	}
	if b := mustRead(t, dot); !strings.Contains(string(b), "digraph") {
		t.Errorf("dot: %s", b)
	}
}

// TestRankOneRunErrors checks what the one-run route refuses.
func TestRankOneRunErrors(t *testing.T) {
	run := filepath.Join(outlierRuns, "rod-skipsmooth")
	fails(t, []string{"--also-normal goes with a normal and a faulty run"}, "rank", run, "--also-normal", run)
	fails(t, []string{"--against needs the run", "--faulty RUN"}, "diffnlr", "3", "--against", "2")
	fails(t, []string{"name it with --faulty, not --normal"}, "diffnlr", "3", "--against", "2", "--normal", run)
	fails(t, []string{"against itself"}, "diffnlr", "3", "--against", "3", "--faulty", run)
	fails(t, []string{"trace 42: not in", "the traces are 0.0 … 7.0"}, "diffnlr", "3", "--against", "42", "--faulty", run)
	fails(t, []string{"--against", "P.T"}, "diffnlr", "3", "--against", "x", "--faulty", run)
}
