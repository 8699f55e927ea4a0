package session_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/session"
	"github.com/difftrace/difftrace/trace"
)

// Runs given are shown under the filter and K given, or the defaults.
func TestGiven(t *testing.T) {
	v := session.Given([]string{"n", "f"}, "", 0)
	if v.Filter != session.DefaultFilter || v.K != session.DefaultK || v.Source != "" {
		t.Errorf("given nothing: filter %q K %d source %q, want %s, %d and none", v.Filter, v.K, v.Source, session.DefaultFilter, session.DefaultK)
	}
	v = session.Given([]string{"n", "f"}, "omp", 20)
	if note, err := v.Pick(nil, trace.ID{Proc: 5}); err != nil || note != "" || v.Filter != "omp" || v.K != 20 {
		t.Errorf("given omp and 20, picked: filter %q K %d note %q err %v; want them kept", v.Filter, v.K, note, err)
	}
}

// A session's view is its best row's, picked per trace unless the filter
// or K was fixed; its runs and exact polling come with it.
func TestFollow(t *testing.T) {
	dir := inTempDir(t)
	rk := ranking()
	rk.Rows[0].K = 20 // the best row's K, not the default
	s, err := session.New("normal", "faulty", []string{"normal-2"}, "", true, rk)
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if err := session.Save(s, rk, &stderr, "pass --no-session"); err != nil {
		t.Fatal(err)
	}
	v, err := session.Follow(&stderr, "give --normal and --faulty", "", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "normal"), filepath.Join(dir, "faulty"), filepath.Join(dir, "normal-2")}
	if strings.Join(v.Runs, " ") != strings.Join(want, " ") || !v.ExactPolling {
		t.Errorf("runs %q exact polling %v, want %q and true", v.Runs, v.ExactPolling, want)
	}
	if v.Filter != "mpi" || v.K != 20 {
		t.Errorf("before picking: filter %q K %d, want the best row's, mpi and 20", v.Filter, v.K)
	}
	// The suggestion names 5 under mpi and K 10.
	if note, err := v.Pick(nil, trace.ID{Proc: 5}); err != nil || note != "" || v.K != 10 || !strings.Contains(v.Source, "5.0 is the top suspect") {
		t.Errorf("picked for 5: K %d source %q note %q err %v; want the suggestion's K 10", v.K, v.Source, note, err)
	}

	v, err = session.Follow(&stderr, "give --normal and --faulty", "all", 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if note, err := v.Pick(nil, trace.ID{Proc: 5}); err != nil || note != "" || v.Filter != "all" || v.K != 20 || v.Source != "runs from "+session.Path {
		t.Errorf("fixed filter all: filter %q K %d source %q note %q err %v; want all, the best row's K 20, the runs from the session", v.Filter, v.K, v.Source, note, err)
	}
}

// Without a session, Follow says what to do.
func TestFollowNoSession(t *testing.T) {
	inTempDir(t)
	var stderr bytes.Buffer
	if _, err := session.Follow(&stderr, "give --normal and --faulty", "", 0, false); err == nil || !strings.Contains(err.Error(), "give --normal and --faulty") {
		t.Errorf("no session: %v, want the way round it", err)
	}
}

// The session's suspects come most suspicious first, each once.
func TestSuspects(t *testing.T) {
	p := func(proc int) trace.ID { return trace.ID{Proc: proc, Thread: trace.AllThreads} }
	s := &session.Session{TopThread: "5.1", TopProcess: "5",
		Best: &rank.Row{Threads: []rank.Suspect{{ID: trace.ID{Proc: 5, Thread: 1}}, {ID: trace.ID{Proc: 4}}},
			Processes: []rank.Suspect{{ID: p(5)}, {ID: p(3)}}}}
	var got []string
	for _, x := range s.Suspects() {
		got = append(got, x.ID+" "+x.Why)
	}
	want := []string{
		"5.1 thread most often the top suspect",
		"5 process most often the top suspect",
		"4.0 a suspect thread of the best-ranked row",
		"3 a suspect process of the best-ranked row",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("suspects:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := (&session.Session{}).Suspects(); len(got) != 0 {
		t.Errorf("a session with no suspects lists %v", got)
	}
}

// The NLRs of a view: its values checked before any run is opened, the
// trace looked for in the runs, and the notes said in order.
func TestViewNLR(t *testing.T) {
	runs := []string{"../testdata/runs/oddeven-normal", "../testdata/runs/oddeven-swapbug"}
	opened := 0
	open := func(dirs []string) (*compare.Comparison, error) {
		opened++
		return compare.Open(dirs, compare.Options{})
	}
	var notes []string
	say := func(ns ...string) { notes = append(notes, ns...) }
	var pe *param.Error
	if _, err := session.Given(runs, "bogus", 0).NLR(trace.ID{Proc: 5}, open, say); !errors.As(err, &pe) || pe.Name != "filter" || opened != 0 {
		t.Errorf("filter bogus: %v after opening %d times, want a parameter error of the filter before opening", err, opened)
	}
	if _, err := session.Given(runs, "", 0).NLR(trace.ID{Proc: 99}, open, say); err == nil || !strings.Contains(err.Error(), "not in") {
		t.Errorf("trace 99: %v, want it not found", err)
	}
	n, err := session.Given(runs, "mpi", 4).NLR(trace.ID{Proc: 5}, open, say)
	if err != nil {
		t.Fatal(err)
	}
	if n.Filter.Name() != "mpi" || n.K != 4 || n.Total() == 0 || len(notes) != 0 {
		t.Errorf("5 under mpi, 4: filter %s K %d, %d calls, notes %q", n.Filter.Name(), n.K, n.Total(), notes)
	}
}

// The diffNLR of two traces of one run: the view checked before the run
// is opened, and the diff made under its filter and K.
func TestViewPeerDiff(t *testing.T) {
	runs := []string{"../testdata/outliers/rod-skipsmooth"}
	opened := 0
	open := func(dirs []string) (*compare.Comparison, error) {
		opened++
		return compare.Open(dirs, compare.Options{})
	}
	say := func(...string) {}
	sus, peer := trace.ID{Proc: 3}, trace.ID{Proc: 2}
	var pe *param.Error
	if _, err := session.Given(runs, "bogus", 0).PeerDiff(sus, peer, diffnlr.Full, open, say); !errors.As(err, &pe) || pe.Name != "filter" || opened != 0 {
		t.Errorf("filter bogus: %v after opening %d times, want a parameter error of the filter before opening", err, opened)
	}
	d, err := session.Given(runs, "all", 0).PeerDiff(sus, peer, diffnlr.Full, open, say)
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != sus || d.NLR.Filter.Name() != "all" || d.NLR.K != session.DefaultK || len(d.Partings) != 1 || !strings.Contains(d.Picture.Title, "3.0 against 2.0") {
		t.Errorf("3 against 2 under all: trace %s, filter %s, K %d, %d partings, title %q", d.ID, d.NLR.Filter.Name(), d.NLR.K, len(d.Partings), d.Picture.Title)
	}
	if _, err := session.Given(runs, "all", 0).PeerDiff(sus, sus, diffnlr.Full, open, say); err == nil || !strings.Contains(err.Error(), "against itself") {
		t.Errorf("3 against itself: %v, want it refused", err)
	}
}
