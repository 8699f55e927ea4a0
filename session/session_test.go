package session_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/session"
	"github.com/difftrace/difftrace/trace"
)

// ranking is a small ranking of two rows, 5 their top suspect.
func ranking() *rank.Ranking {
	sus := []rank.Suspect{{ID: trace.ID{Proc: 5}, Score: 0.4}, {ID: trace.ID{Proc: 4}, Score: 0.3}}
	return &rank.Ranking{
		Normal: "normal", Faulty: "faulty", Filters: []string{"mpi", "all"}, Ks: []int{10},
		Attrs: []string{"sing.noFreq"}, Links: []string{"ward"},
		Rows: []rank.Row{
			{Filter: "mpi", K: 10, Attrs: "sing.noFreq", Linkage: "ward", BScore: 0.25, Clusters: 2, Threads: sus, Processes: sus},
			{Filter: "all", K: 10, Attrs: "sing.noFreq", Linkage: "ward", BScore: 0.5, Clusters: 2, Threads: sus[:1], Processes: sus[:1]},
		},
		ThreadVotes:  []rank.Vote{{ID: trace.ID{Proc: 5}, First: 2, Listed: 2}},
		ProcessVotes: []rank.Vote{{ID: trace.ID{Proc: 5}, First: 2, Listed: 2}},
		Suggestion:   &rank.View{Trace: trace.ID{Proc: 5}, Filter: "mpi", K: 10, Why: "first"},
	}
}

// inTempDir runs the rest of the test in a directory of its own.
func inTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	return dir
}

// A saved session reads back with its ranking, the runs made absolute.
func TestSaveLoad(t *testing.T) {
	dir := inTempDir(t)
	rk := ranking()
	s, err := session.New("normal", "faulty", []string{"normal-2"}, "CPU_Exec", true, rk)
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if err := session.Save(s, rk, &stderr, "pass --no-session"); err != nil {
		t.Fatal(err)
	}
	got, gotRk, err := session.LoadWithRanking(&stderr, "give --normal and --faulty")
	if err != nil {
		t.Fatal(err)
	}
	if got.Normal != filepath.Join(dir, "normal") || got.Faulty != filepath.Join(dir, "faulty") ||
		len(got.AlsoNormal) != 1 || got.AlsoNormal[0] != filepath.Join(dir, "normal-2") {
		t.Errorf("runs %q %q %q, want them absolute under %s", got.Normal, got.Faulty, got.AlsoNormal, dir)
	}
	if got.Best == nil || got.Best.BScore != 0.25 || got.TopThread != "5.0" || got.Custom != "CPU_Exec" || !got.ExactPolling {
		t.Errorf("session %+v does not hold what was saved", got)
	}
	if len(gotRk.Rows) != 2 || gotRk.Rows[1].Filter != "all" {
		t.Errorf("ranking rows %+v, want the two saved", gotRk.Rows)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr %q, want nothing (no other difftrace waiting)", stderr.String())
	}
	if st, err := os.Stat(session.Dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("%s: %v, %v; want a directory only its user may use", session.Dir, st, err)
	}
}

// With no session, Load says what to do: run rank, or the caller's way
// round it.
func TestLoadMissing(t *testing.T) {
	inTempDir(t)
	_, err := session.Load("give --normal and --faulty")
	if err == nil || !strings.Contains(err.Error(), `run "difftrace rank NORMAL FAULTY" in this directory first, or give --normal and --faulty`) {
		t.Errorf("err = %v", err)
	}
	if err := os.Mkdir(session.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(session.Path, []byte(`{"schema": 7}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := session.Load("x"); err == nil || !strings.Contains(err.Error(), "session schema 7, this difftrace reads 1") {
		t.Errorf("another schema: err = %v", err)
	}
}

// rank saves its session; a later diffnlr of the suggested trace takes
// the suggested view.
func Example() {
	dir, _ := os.MkdirTemp("", "session")
	defer os.RemoveAll(dir)
	back, _ := os.Getwd()
	defer os.Chdir(back)
	os.Chdir(dir)

	rk := ranking()
	if err := session.Keep("normal", "faulty", nil, "", false, rk, os.Stderr, "pass --no-session"); err != nil {
		fmt.Println(err)
		return
	}
	s, rk, err := session.LoadWithRanking(os.Stderr, "give --normal and --faulty")
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := s.Pick(nil, rk, trace.ID{Proc: 5})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("best row: filter %s, B-score %.2f\n", s.Best.Filter, s.Best.BScore)
	fmt.Printf("diffnlr 5.0: filter %s, K %d (%s)\n", p.Filter, p.K, p.Source)
	// Output:
	// best row: filter mpi, B-score 0.25
	// diffnlr 5.0: filter mpi, K 10 (the clearest diff among the ranking's rows where 5.0 is the top suspect)
}
