package pprof_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/difftrace/difftrace/export/pprof"
	"github.com/difftrace/difftrace/trace"
)

// Thread 0 of rank 3 calls main, which sends twice and receives once: one
// sample per call path, leaf first, with how often it was entered and the
// events it was the innermost call for.
func Example() {
	tab := trace.NewTable()
	main := tab.Intern(trace.Name{Image: "app", Func: "main"})
	send := tab.Intern(trace.Name{Image: "libmpi.so.40", Func: "MPI_Send"})
	recv := tab.Intern(trace.Name{Image: "libmpi.so.40", Func: "MPI_Recv"})

	var out bytes.Buffer
	w := pprof.NewWriter(&out, pprof.Options{Names: tab})
	t := w.Trace(trace.ID{Proc: 3, Thread: 0})
	if err := t.Write([]trace.Symbol{main, send, trace.Return, send, trace.Return, recv, trace.Return, trace.Return}); err != nil {
		panic(err)
	}
	if err := t.Close(); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil { // gzipped, as go tool pprof reads it
		panic(err)
	}

	p, err := profile.Parse(&out)
	if err != nil {
		panic(err)
	}
	for _, s := range p.Sample {
		var path []string
		for _, l := range s.Location {
			path = append(path, l.Line[0].Function.Name)
		}
		fmt.Printf("rank %d thread %d  %-15s calls %d events %d\n", s.NumLabel["rank"][0], s.NumLabel["thread"][0],
			strings.Join(path, " < "), s.Value[0], s.Value[1])
	}
	// Output:
	// rank 3 thread 0  main            calls 1 events 4
	// rank 3 thread 0  MPI_Send < main calls 2 events 2
	// rank 3 thread 0  MPI_Recv < main calls 1 events 1
}
