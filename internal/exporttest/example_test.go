package exporttest_test

import (
	"fmt"
	"maps"
	"slices"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/internal/exporttest"
	"github.com/difftrace/difftrace/trace"
)

// What every file of rank 5 of the deadlocked odd/even sort must hold
// with the MPI calls alone shown: each call path, how often it was
// entered, the event ticks it was the innermost call for, and the calls
// still open when the trace ended.
func ExampleExpect() {
	tab := trace.NewTable()
	run, err := decode.Open(exporttest.Runs+"/oddeven-dlbug", tab, decode.Options{})
	if err != nil {
		panic(err)
	}
	f, err := filters.Parse("mpi")
	if err != nil {
		panic(err)
	}
	id := trace.ID{Proc: 5, Thread: 0}
	want, err := exporttest.Expect(run, []trace.ID{id}, f.Compile(tab).Keep)
	if err != nil {
		panic(err)
	}
	for _, k := range slices.Sorted(maps.Keys(want.Paths)) {
		fmt.Printf("%-20s calls %d events %d\n", k, want.Paths[k].Calls, want.Paths[k].Events)
	}
	fmt.Println("open at the end:", want.Open[id])
	// Output:
	// 5.0 MPI_Comm_rank    calls 1 events 1
	// 5.0 MPI_Comm_size    calls 1 events 1
	// 5.0 MPI_Init         calls 1 events 1
	// 5.0 MPI_Recv         calls 8 events 8
	// 5.0 MPI_Send         calls 7 events 7
	// open at the end: 1
}
