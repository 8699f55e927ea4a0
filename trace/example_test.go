package trace_test

import (
	"fmt"

	"github.com/difftrace/difftrace/trace"
)

// Names are interned once into small integers; every later stage works on
// those, and names come back only for output.
func ExampleTable() {
	tab := trace.NewTable()
	send := tab.Intern(trace.Name{Image: "libmpi.so.40", Func: "MPI_Send"})
	recv := tab.Intern(trace.Name{Image: "libmpi.so.40", Func: "MPI_Recv"})
	again := tab.Intern(trace.Name{Image: "libmpi.so.40", Func: "MPI_Send"})
	events := []trace.Symbol{send, trace.Return, recv, trace.Return}
	fmt.Println(send == again, tab.Len())
	for _, s := range events {
		if s == trace.Return {
			fmt.Println("  return")
			continue
		}
		fmt.Println(tab.Name(s), "labelled", tab.Label(s))
	}
	id, err := trace.ParseID("5.0")
	fmt.Println(id, id.Process(), err)
	// Output:
	// true 3
	// libmpi.so.40:MPI_Send labelled MPI_Send
	//   return
	// libmpi.so.40:MPI_Recv labelled MPI_Recv
	//   return
	// 5.0 5 <nil>
}
