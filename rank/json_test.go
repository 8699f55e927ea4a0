package rank

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

// A ranking written as JSON reads back the same, suspects and votes included.
func TestRankingJSONRoundTrip(t *testing.T) {
	rk := Ranking{
		Normal: "n", Faulty: "f", Filters: []string{"mpi"}, Ks: []int{10}, Attrs: []string{"sing.noFreq"}, Links: []string{"ward"},
		Rows: []Row{{Filter: "mpi", K: 10, Attrs: "sing.noFreq", Linkage: "ward", BScore: 0.5, Clusters: 3,
			Threads:   []Suspect{{ID: trace.ID{Proc: 6, Thread: 4}, Score: 0.25, Progress: 0.5}},
			Processes: []Suspect{{ID: trace.ID{Proc: 6, Thread: trace.AllThreads}, Score: 0.125}}}},
		ThreadVotes:  []Vote{{ID: trace.ID{Proc: 6, Thread: 4}, First: 1, Listed: 1}},
		ProcessVotes: []Vote{{ID: trace.ID{Proc: 6, Thread: trace.AllThreads}, First: 1, Listed: 1}},
	}
	b, err := json.Marshal(&rk)
	if err != nil {
		t.Fatal(err)
	}
	var back Ranking
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, rk) {
		t.Errorf("read back\n%+v\nwant\n%+v", back, rk)
	}
	for _, c := range []struct {
		v    any
		want string
	}{
		{rk.Rows[0].Threads[0], `{"id":"6.4","score":0.25,"progress_change":0.5}`},
		{rk.Rows[0].Processes[0], `{"id":"6","score":0.125,"progress_change":0}`},
		{rk.ThreadVotes[0], `{"id":"6.4","first":1,"listed":1}`},
		{rk.ProcessVotes[0], `{"id":"6","first":1,"listed":1}`},
	} {
		if b, err := json.Marshal(c.v); err != nil || string(b) != c.want {
			t.Errorf("%+v written as %s (%v), want %s", c.v, b, err, c.want)
		}
	}
	var s Suspect
	if err := json.Unmarshal([]byte(`{"id":"x.1"}`), &s); err == nil {
		t.Error("a suspect with a bad ID was read")
	}
}
