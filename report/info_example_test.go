package report_test

import (
	"fmt"
	"os"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/report"
	"github.com/difftrace/difftrace/trace"
)

// The functions called most in a run, every trace together, and who
// called them: "difftrace stats --by program --edges --top 3" as a
// document.
func ExampleStats() {
	run, err := decode.Open("../testdata/runs/oddeven4-normal", trace.NewTable(), decode.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ids := run.Traces()
	stats, err := run.Summarize(ids, true)
	if err != nil {
		fmt.Println(err)
		return
	}
	groups := decode.GroupStats(ids, stats, decode.ByProgram)
	doc := report.NewStats(run.Dir, groups, decode.ByProgram, run, true, 3)
	report.Write(os.Stdout, doc, report.Options{})
	fmt.Println()
	report.Write(os.Stdout, doc, report.Options{Format: report.CSV})
	// Output:
	// == program (4 processes): 4 traces, 128 events, 64 calls, 9 functions, max depth 3
	// CALLS  FUNCTION
	//    16  oddeven:findPtr
	//    12  oddeven:MPI_Recv
	//    12  oddeven:MPI_Send
	//
	// CALLS  CALLER               CALLEE
	//    16  oddeven:oddEvenSort  oddeven:findPtr
	//    12  oddeven:oddEvenSort  oddeven:MPI_Recv
	//    12  oddeven:oddEvenSort  oddeven:MPI_Send
	//
	// program,kind,caller_image,caller,image,function,calls
	// program,function,,,oddeven,findPtr,16
	// program,function,,,oddeven,MPI_Recv,12
	// program,function,,,oddeven,MPI_Send,12
	// program,edge,oddeven,oddEvenSort,oddeven,findPtr,16
	// program,edge,oddeven,oddEvenSort,oddeven,MPI_Recv,12
	// program,edge,oddeven,oddEvenSort,oddeven,MPI_Send,12
}

// What a run holds and how it ended: "difftrace info" as a document.
func ExampleInfo() {
	run, err := decode.Open("../testdata/runs/oddeven4-normal", trace.NewTable(), decode.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	stats, err := run.Summarize(run.Traces(), false)
	if err != nil {
		fmt.Println(err)
		return
	}
	info := report.NewInfo(run, stats)
	fmt.Println(info.Format, len(info.Processes), "processes,", info.Events, "events")
	for _, p := range info.Processes {
		fmt.Printf("rank %d: %s\n", p.Index, p.Ended)
	}
	// Output:
	// difftrace 4 processes, 128 events
	// rank 0: exited 0
	// rank 1: exited 0
	// rank 2: exited 0
	// rank 3: exited 0
}
