package summary_test

import (
	"fmt"
	"os"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/summary"
	"github.com/difftrace/difftrace/trace"
)

// A summary made by one process: its part, written and read back.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "summary")
	defer os.RemoveAll(dir)
	names := []trace.Name{{}, {Image: trace.Program, Func: "main"}}
	p := &summary.Part{Index: 0, Of: 1,
		Grid:     summary.Grid{Filters: []string{"all"}, Ks: []int{10}},
		Run:      decode.Header{Dir: "normal", Names: names, Procs: []decode.HeaderProcess{{Rank: -1, Threads: []decode.HeaderTrace{{Thread: 0}}}}},
		Names:    len(names),
		NamesSum: summary.NamesSum(names),
		Traces:   []summary.Trace{{ID: trace.ID{}, Kept: []uint64{1}, Classes: []int32{0}, End: []trace.Symbol{1}}},
		Classes:  [][]byte{{1}},
	}
	if err := summary.Write(dir, p); err != nil {
		fmt.Println(err)
		return
	}
	s, err := summary.Open(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Run.Dir, len(s.Parts), s.Parts[0].Traces[0].ID, s.Grid.Filters)
	// Output: normal 1 0.0 [all]
}
