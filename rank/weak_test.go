package rank

import (
	"strings"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

// A consensus is weak only where its leader leads under a quarter of the
// combinations and either no process is a suspect, or others lead too
// while the leader's loop counts alone changed; a hang's culprit never is.
func TestWeakConsensus(t *testing.T) {
	v := func(id trace.ID, first int) Vote { return Vote{ID: id, First: first, Listed: first} }
	for _, c := range []struct {
		name               string
		threads, processes []Vote
		rows               int
		view               View
		want               string // "" when not weak
	}{
		{"leads in 8 of 144, no process suspect", []Vote{v(tid(1, 3), 8)}, nil, 144, View{}, "no combination found a process suspect"},
		{"leads in 36 of 144", []Vote{v(tid(1, 3), 36)}, nil, 144, View{}, ""},
		{"a hang's culprit", []Vote{v(tid(1, 3), 8)}, nil, 144, View{Culprit: "waits"}, ""},
		{"parted first in a hang", []Vote{v(tid(1, 3), 8)}, nil, 144, View{Parted: true}, ""},
		{"loop counts only, contested", []Vote{v(tid(2, 0), 28), v(tid(1, 0), 12)}, []Vote{v(pid(2), 28)}, 120,
			View{Filter: "mpi", K: 10, CountsOnly: true}, "1.0 in some of the rest"},
		{"loop counts only, alone", []Vote{v(tid(2, 0), 28)}, []Vote{v(pid(2), 28)}, 120, View{CountsOnly: true}, ""},
		{"calls changed, contested", []Vote{v(tid(2, 0), 28), v(tid(1, 0), 12)}, []Vote{v(pid(2), 28)}, 120, View{}, ""},
		// The farm with further normal runs (make demo): the skipping
		// worker is the only suspect, in 12 of 144 combinations.
		{"the only suspect", []Vote{v(tid(3, 0), 12)}, []Vote{v(pid(3), 12)}, 144, View{}, ""},
	} {
		why, ok := weak(c.threads, c.processes, false, c.rows, c.view)
		if ok != (c.want != "") || !strings.Contains(why, c.want) {
			t.Errorf("%s: weak %v (%q), want %v (%q)", c.name, ok, why, c.want != "", c.want)
		}
	}
}

// With one process no process can be a suspect: a thread leading in a few
// combinations of a threaded program is no weak consensus for that alone.
func TestWeakConsensusOneProcess(t *testing.T) {
	lead := []Vote{{ID: tid(0, 1), First: 20, Listed: 20}}
	if why, ok := weak(lead, nil, true, 96, View{}); ok {
		t.Errorf("one process: weak (%q)", why)
	}
	if _, ok := weak(lead, nil, false, 96, View{}); !ok {
		t.Error("several processes, none a suspect: not weak")
	}
}
