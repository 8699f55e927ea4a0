package filters_test

import (
	"fmt"

	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/trace"
)

// A filter spec is parsed once, compiled once per symbol table into a
// mask, and the mask keeps the calls it names (with their returns, here
// dropped as the presets drop them).
func ExampleParse() {
	f, err := filters.Parse("mpi.sr+cust=^work$")
	if err != nil {
		fmt.Println(err)
		return
	}
	tab := trace.NewTable()
	main := tab.Intern(trace.Name{Image: trace.Program, Func: "main"})
	work := tab.Intern(trace.Name{Image: trace.Program, Func: "work"})
	send := tab.Intern(trace.Name{Image: "libmpi.so.40", Func: "MPI_Send"})
	bcast := tab.Intern(trace.Name{Image: "libmpi.so.40", Func: "MPI_Bcast"})
	events := []trace.Symbol{main, work, send, trace.Return, trace.Return, bcast, trace.Return, trace.Return}
	for _, s := range f.Compile(tab).Apply(events) {
		fmt.Println(tab.Label(s))
	}
	_, err = filters.Parse("mpi+bogus")
	fmt.Println(err)
	// Output:
	// work
	// MPI_Send
	// filter "mpi+bogus": unknown filter "bogus"; valid terms: all, mpi, mpi.col, mpi.sr, mpi.int, omp, omp.crit, omp.mutex, mem, net, poll, str, plt, ret, cust=REGEXP (join with +, e.g. mpi+omp.crit+cust=CPU_Exec)
}
