package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/session"
)

// A task farm (examples/farm.c) varies by itself: the master takes results
// from any worker and polls for them, and which worker does which task, and
// how many, changes from run to run. Recorded for real, three normal runs
// and one where worker W leaves out one verify() call: two normal runs
// against the third name no suspect; against the faulty run, W leads the
// consensus and its suggested diffNLR names the missing call. With only
// one normal run the noise shows.
func TestRankNoise(t *testing.T) {
	needE2E(t)
	dir := t.TempDir()
	const np, w, task = 8, 4, 3
	run := func(name string, args ...string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if out, err := captureMPI(t, np, p, nil, "farm", args...); err != nil {
			t.Fatalf("mpirun: %v\n%s", err, out)
		}
		waitRun(t, p, np)
		return p
	}
	a, b, c := run("a"), run("b"), run("c")
	faulty := run("faulty", "--skip-verify", strconv.Itoa(w), strconv.Itoa(task))

	type ranking struct {
		AlsoNormal []string `json:"also_normal"`
		Threads    []struct {
			ID    string `json:"id"`
			First int    `json:"first"`
		} `json:"consensus_threads"`
	}
	rank := func(args ...string) ranking {
		t.Helper()
		r := difftrace(t, append([]string{"rank", "--format", "json", "--no-session"}, args...)...)
		if r.code != 0 {
			t.Fatalf("rank %v: exit %d\n%s", args, r.code, r.stderr)
		}
		var rk ranking
		if err := json.Unmarshal(r.stdout, &rk); err != nil {
			t.Fatal(err)
		}
		return rk
	}
	first := func(rk ranking) string {
		if len(rk.Threads) == 0 || rk.Threads[0].First == 0 {
			return ""
		}
		return rk.Threads[0].ID
	}

	if got := first(rank(a, c, "--also-normal", b)); got != "" {
		t.Errorf("two normal runs against a third: %s leads the consensus, want no suspect", got)
	}
	rk := rank(a, faulty, "--also-normal", b)
	if got, want := first(rk), strconv.Itoa(w)+".0"; got != want {
		t.Errorf("with worker %d skipping a verify: %q leads the consensus, want %s", w, got, want)
	}
	if len(rk.AlsoNormal) != 1 || rk.AlsoNormal[0] != b {
		t.Errorf("also_normal = %v, want [%s]", rk.AlsoNormal, b)
	}
	// Three normal runs: floors are measured; the faulty worker still
	// leads, and shows its score and floor.
	rk = rank(a, faulty, "--also-normal", b, "--also-normal", c)
	if got, want := first(rk), strconv.Itoa(w)+".0"; got != want {
		t.Errorf("three normal runs: %q leads the consensus, want %s", got, want)
	}

	// The table and the diffNLR it suggests, as a user sees them.
	work := t.TempDir()
	r := difftraceAt(t, work, nil, "rank", a, faulty, "--also-normal", b)
	out := string(r.stdout)
	if r.code != 0 || !strings.Contains(out, "SCORE/FLOOR") || !strings.Contains(out, "(noise floors)") ||
		!strings.Contains(out, "difftrace diffnlr "+strconv.Itoa(w)+"\n") {
		t.Errorf("rank table: exit %d\n%s%s", r.code, out, r.stderr)
	}
	d := difftraceAt(t, work, nil, "diffnlr", strconv.Itoa(w), "--color", "never")
	if d.code != 0 || !regexp.MustCompile(`(?m)^first difference: .*: verify missing(, the \d+(st|nd|rd|th) of its \d+ calls there)?$`).Match(d.stdout) {
		t.Errorf("diffnlr %d: exit %d\n%s%s", w, d.code, d.stdout, d.stderr)
	}

	// One normal run: the farm's own variation shows, and rank says how
	// to tell it from a bug when only loop counts changed.
	r = difftrace(t, "rank", a, c, "--no-session")
	if r.code != 0 || !strings.Contains(string(r.stdout), "consensus, threads: ") {
		t.Errorf("rank of two normal runs: exit %d\n%s", r.code, r.stdout)
	}
	t.Logf("two normal runs, one given as faulty:\n%s", r.stdout)
}

// The farm with an OpenMP schedule(dynamic) loop in each task (4 ranks × 4
// threads): which thread takes how many chunks changes every time, down to
// none or one. Given two normal runs, the thread that once left out its
// critical section leads the consensus, and its diffNLR names the pair of
// calls no normal run makes. A program that varies this much can, rarely,
// vary in a way two normal runs did not show (examples/noise-trials.sh
// tallies it: the faulty thread led in every one of 32 trials), so a
// trial that misses (in the consensus or in the diffNLR's first
// difference) is recorded again, once.
func TestRankNoiseOpenMP(t *testing.T) {
	needE2E(t)
	const np, w, task = 4, 2, 3
	var msgs []string
	for trial := range 2 {
		dir := t.TempDir()
		run := func(name string, args ...string) string {
			t.Helper()
			p := filepath.Join(dir, name)
			args = append([]string{"--threads", "4", "--tasks", "60"}, args...)
			if out, err := captureMPI(t, np, p, nil, "farm", args...); err != nil {
				t.Fatalf("mpirun: %v\n%s", err, out)
			}
			waitRun(t, p, np)
			return p
		}
		a, b := run("a"), run("b")
		faulty := run("faulty", "--skip-critical", strconv.Itoa(w), strconv.Itoa(task))
		work := t.TempDir()
		r := difftraceAt(t, work, nil, "rank", a, faulty, "--also-normal", b)
		want := strconv.Itoa(w) + ".0"
		if r.code != 0 {
			t.Fatalf("rank: exit %d\n%s", r.code, r.stderr)
		}
		if !strings.Contains(string(r.stdout), "consensus, threads: "+want+" was the most suspicious") {
			msgs = append(msgs, "trial "+strconv.Itoa(trial)+": "+want+" does not lead:\n"+string(r.stdout))
			continue
		}
		d := difftraceAt(t, work, nil, "diffnlr", want, "--color", "never")
		line := regexp.MustCompile(`(?m)^first difference: .*$`).Find(d.stdout)
		if d.code != 0 {
			t.Fatalf("diffnlr %s: exit %d\n%s", want, d.code, d.stderr)
		}
		if !regexp.MustCompile(`then \S+ .*which no normal run does \(after \S+ they call GOMP_critical_start`).Match(line) {
			msgs = append(msgs, "trial "+strconv.Itoa(trial)+": diffnlr "+want+" names another first difference: "+string(line))
			continue
		}
		t.Logf("%s", line)
		return
	}
	t.Error(strings.Join(msgs, "\n"))
}

// Two committed normal runs of the task farm, one given as faulty: the
// farm's own variation puts a worker first in a few combinations, with
// only its loop counts changed. rank says there is no clear suspect and
// why, suggests no diff, and leaves no suggestion in the session; diffnlr
// of a trace named still shows its diff.
func TestRankNoClearSuspect(t *testing.T) {
	a, err := filepath.Abs("../../testdata/noise/farm-1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := filepath.Abs("../../testdata/noise/farm-2")
	work := t.TempDir()
	r := difftraceAt(t, work, nil, "rank", a, b)
	out := string(r.stdout)
	if r.code != 0 {
		t.Fatalf("rank: exit %d\n%s", r.code, r.stderr)
	}
	if !regexp.MustCompile(`(?m)^how it changed: no clear suspect: \S+ was the most suspicious in only \d+ of \d+ combinations, .*only in how many times loops ran`).MatchString(out) {
		t.Errorf("rank of two normal runs does not say there is no clear suspect:\n%s", out)
	}
	if strings.Contains(out, "difftrace diffnlr") {
		t.Errorf("rank of two normal runs suggests a diff:\n%s", out)
	}
	var s struct {
		Suggestion *json.RawMessage `json:"suggestion"`
		TopThread  string           `json:"top_thread"`
	}
	data, err := os.ReadFile(filepath.Join(work, session.Path))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if s.Suggestion != nil || s.TopThread == "" {
		t.Errorf("session: %s\nwant no suggestion and the consensus leader", data)
	}
	d := difftraceAt(t, work, nil, "diffnlr", s.TopThread, "--color", "never")
	if d.code != 0 || !strings.Contains(string(d.stdout), "first difference: ") {
		t.Errorf("diffnlr %s: exit %d\n%s%s", s.TopThread, d.code, d.stdout, d.stderr)
	}
}
