package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/trace"
)

// The documents of info, stats and decode are pinned byte for byte by the
// files of testdata/golden named after them (what the commands print of
// the committed runs). DIFFTRACE_UPDATE_GOLDEN=1 rewrites them.

// infoGolden writes d in o's format and compares it with the golden file.
func infoGolden(t *testing.T, file string, d Document, o Options) {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, d, o); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	path := filepath.Join("testdata", "golden", file)
	if os.Getenv("DIFFTRACE_UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (DIFFTRACE_UPDATE_GOLDEN=1 writes it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("%s: the output changed:\n%s\nwant:\n%s", file, b.Bytes(), want)
	}
}

// infoOpen opens a committed run (a path under testdata) as the commands
// do.
func infoOpen(t *testing.T, dir string, signatures bool) *decode.Run {
	t.Helper()
	tab := trace.NewTable()
	tab.ShowSignatures(signatures)
	run, err := decode.Open(filepath.Join("..", "testdata", dir), tab, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func TestInfoGolden(t *testing.T) {
	for _, c := range []struct{ dir, file string }{
		{"runs/oddeven-dlbug", "info-oddeven-dlbug.txt"},      // hung: open calls, notes
		{"runs/ilcs-normal", "info-ilcs-normal.txt"},          // threads
		{"runs/stencil-skipbug", "info-stencil-skipbug.txt"},  // C++
		{"parlot/oddeven4", "info-parlot-oddeven4.txt"},       // the original tool's output, no manifest
		{"noise/farm-skipverify", "info-farm-skipverify.txt"}, // another program
	} {
		run := infoOpen(t, c.dir, false)
		stats, err := run.Summarize(run.Traces(), false)
		if err != nil {
			t.Fatal(err)
		}
		infoGolden(t, c.file, NewInfo(run, stats), Options{})
	}
}

// Notes about ranks are shared by the ranks that have the same one; a
// manifest that disagrees with a trace is noted; rank lists are compact.
func TestInfoNotes(t *testing.T) {
	run := infoOpen(t, "runs/oddeven4-normal", false)
	stats, err := run.Summarize(run.Traces(), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, 3} {
		run.Procs[i].Rank.Note = "stopped in MPI_Recv"
	}
	run.Procs[2].Rank.Threads[0].Events = 7
	d := NewInfo(run, stats)
	want := []string{"ranks 0, 1, 3: stopped in MPI_Recv", "trace 2.0 holds 36 events but run.json records 7"}
	if len(d.Notes) != len(want) || d.Notes[0] != want[0] || d.Notes[1] != want[1] {
		t.Errorf("notes %q, want %q", d.Notes, want)
	}
	for _, c := range []struct {
		ranks []int
		want  string
	}{{[]int{3}, "rank 3"}, {[]int{0, 2, 3, 4, 5}, "ranks 0, 2–5"}, {[]int{0, 1}, "ranks 0, 1"}, {[]int{1, 2, 3, 7}, "ranks 1–3, 7"}} {
		if got := RankList(c.ranks); got != c.want {
			t.Errorf("RankList(%v) = %q, want %q", c.ranks, got, c.want)
		}
	}
}

func TestEnded(t *testing.T) {
	for _, c := range []struct {
		r    *decode.Rank
		want string
	}{
		{nil, "no record"},
		{&decode.Rank{Status: "timed out in MPI_Recv", KilledByTimeout: true}, "timed out in MPI_Recv"},
		{&decode.Rank{KilledByTimeout: true, Signal: "SIGTERM"}, "timed out"},
		{&decode.Rank{KilledByTimeout: true}, "timed out"},
		{&decode.Rank{Signal: "SIGSEGV"}, "signal SIGSEGV"},
		{&decode.Rank{Exited: true, ExitStatus: 3}, "exited 3"},
		{&decode.Rank{}, "no record of its end"},
	} {
		if got := Ended(c.r); got != c.want {
			t.Errorf("Ended(%+v) = %q, want %q", c.r, got, c.want)
		}
	}
}
