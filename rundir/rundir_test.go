package rundir

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestNames(t *testing.T) {
	if got := InfoName("trace", 12); got != "trace.12.info" {
		t.Errorf("InfoName = %q", got)
	}
	if got := TraceName("Hdbg.17.node01", 3208, 2); got != "Hdbg.17.node01.3208.2" {
		t.Errorf("TraceName = %q", got)
	}
	for _, c := range []struct {
		name   string
		stem   string
		thread int
		ok     bool
	}{
		{"trace.3.1", "trace.3", 1, true},
		{"Hdbg.17.node01.3208.0", "Hdbg.17.node01.3208", 0, true},
		{"trace.3.info", "", 0, false},
		{"trace.3", "", 0, false}, // a stem alone: "trace" is no number
		{"trace.3.-1", "", 0, false},
		{"trace.3.+1", "", 0, false},
		{".3.1", "", 0, false},
	} {
		stem, th, ok := SplitTrace(c.name)
		if stem != c.stem || th != c.thread || ok != c.ok {
			t.Errorf("SplitTrace(%q) = %q, %d, %v; want %q, %d, %v", c.name, stem, th, ok, c.stem, c.thread, c.ok)
		}
	}
	if p, n, ok := SplitStem("Hdbg.17.node01.3208"); p != "Hdbg.17.node01" || n != 3208 || !ok {
		t.Errorf("SplitStem = %q, %d, %v", p, n, ok)
	}
}

func TestStatusAndEnded(t *testing.T) {
	for _, c := range []struct {
		by, in string
		r      Rank
		want   string
	}{
		{"", "", Rank{Exited: true}, "exited 0"},
		{"", "MPI_Abort", Rank{Exited: true, ExitStatus: 3}, "exited 3 in MPI_Abort"},
		{"", "crash_here", Rank{Signal: "SIGSEGV"}, "signal SIGSEGV in crash_here"},
		{"SIGTERM", "MPI_Allreduce", Rank{Signal: "SIGTERM"}, "killed by the launcher in MPI_Allreduce"},
		{"SIGINT", "", Rank{Signal: "SIGINT"}, "interrupted (SIGINT)"},
		{"timeout", "MPI_Recv", Rank{Signal: "SIGTERM", KilledByTimeout: true}, "timed out in MPI_Recv"},
	} {
		if got := Status(c.by, c.r, c.in); got != c.want {
			t.Errorf("Status(%q, %+v, %q) = %q, want %q", c.by, c.r, c.in, got, c.want)
		}
		r := c.r
		r.Status = c.want
		if got := r.Ended(); got != c.want {
			t.Errorf("Ended with Status %q = %q", c.want, got)
		}
	}
	// Manifests written before Status: the same words from the fields.
	for r, want := range map[*Rank]string{
		{Exited: true, ExitStatus: 2}:              "exited 2",
		{Signal: "SIGKILL"}:                        "signal SIGKILL",
		{Signal: "SIGTERM", KilledByTimeout: true}: "timed out",
		{}: "no record of its end",
	} {
		if got := r.Ended(); got != want {
			t.Errorf("Ended(%+v) = %q, want %q", *r, got, want)
		}
	}
}

func TestWriteManifestReplacesAtomically(t *testing.T) {
	dir := t.TempDir()
	m := &Manifest{Schema: ManifestSchema, Prefix: DefaultPrefix, Ranks: []Rank{{Rank: 2}, {Rank: 0}}}
	if err := WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	m.Ranks = append(m.Ranks, Rank{Rank: 1})
	if err := WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	got, err := ReadManifest(filepath.Join(dir, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	if got.RankList() != "ranks 0 to 2" || got.Ranks[0].Rank != 0 || got.Ranks[2].Rank != 2 {
		t.Errorf("ranks read back: %+v (%s)", got.Ranks, got.RankList())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("the directory holds %d files after two writes, want run.json alone", len(ents))
	}
}

func TestManifestThreads(t *testing.T) {
	m := &Manifest{Ranks: []Rank{{Rank: 0, Threads: make([]Thread, 3)}, {Rank: 1}, {Rank: 2, Threads: make([]Thread, 2)}}}
	if got := m.Threads(); got != 5 {
		t.Errorf("Threads of ranks with 3, 0 and 2 threads = %d, want 5", got)
	}
}

// SetEnd records a wait status: a signal, or an exit with its status.
func TestSetEnd(t *testing.T) {
	var killed, exited Rank
	killed.SetEnd(syscall.SIGSEGV, 0)
	exited.SetEnd(0, 3)
	if killed.Ended() != "signal SIGSEGV" || exited.Ended() != "exited 3" {
		t.Errorf("SetEnd: %q and %q, want signal SIGSEGV and exited 3", killed.Ended(), exited.Ended())
	}
}
