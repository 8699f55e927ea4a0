package report_test

import (
	"log"
	"os"

	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/report"
	"github.com/difftrace/difftrace/trace"
)

// A ranking written as "difftrace rank" writes its table: here two rows of
// a made-up sweep, one shown, and the consensus.
func ExampleRanking() {
	five, six := trace.ID{Proc: 5}, trace.ID{Proc: 6}
	rk := &rank.Ranking{
		Normal: "normal/", Faulty: "faulty/",
		Filters: []string{"mpi"}, Ks: []int{10}, Attrs: []string{"sing.noFreq", "sing.actual"}, Links: []string{"ward"},
		Rows: []rank.Row{
			{Filter: "mpi", K: 10, Attrs: "sing.actual", Linkage: "ward", BScore: 0.59,
				Threads: []rank.Suspect{{ID: five}, {ID: six}}, Processes: []rank.Suspect{{ID: five.Process()}, {ID: six.Process()}}},
			{Filter: "mpi", K: 10, Attrs: "sing.noFreq", Linkage: "ward", BScore: 0.8,
				Threads: []rank.Suspect{{ID: five}}, Processes: []rank.Suspect{{ID: five.Process()}}},
		},
		ThreadVotes:  []rank.Vote{{ID: five, First: 2, Listed: 2}, {ID: six, First: 0, Listed: 1}},
		ProcessVotes: []rank.Vote{{ID: five.Process(), First: 2, Listed: 2}, {ID: six.Process(), First: 0, Listed: 1}},
		Suggestion:   &rank.View{Trace: five, Filter: "mpi", K: 10, Changes: 3, Why: "first"},
	}
	doc := &report.Ranking{Ranking: rk, Traces: 8, Processes: 8, Shown: 1, AllRows: "--rows 0", AlsoNormal: "--also-normal"}
	if err := report.Write(os.Stdout, doc, report.Options{}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// normal  normal/
	// faulty  faulty/
	// traces  8 threads in 8 processes
	// grid    1 filters × K 10 × 2 attribute modes × 1 linkages = 2 combinations
	//         filters: mpi
	//
	// FILTER  K   ATTRIBUTES   LINKAGE  B-SCORE  TOP PROCESSES  TOP THREADS
	// mpi     10  sing.actual  ward     0.590    5, 6           5.0, 6.0
	// … 1 more rows (--rows 0 shows all)
	//
	// consensus, threads: 5.0 was the most suspicious in 2 of 2 combinations
	//   TRACE  FIRST  LISTED
	//   5.0    2      2
	//   6.0    0      1
	//
	// consensus, processes: 5 was the most suspicious in 2 of 2 combinations
	//   TRACE  FIRST  LISTED
	//   5      2      2
	//   6      0      1
	//
	// how it changed: difftrace diffnlr 5.0
	//         (filter mpi, K 10: the clearest diff among the rows where 5.0 is the top suspect, 3 changed elements)
}
