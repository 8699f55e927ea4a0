package chrome_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/difftrace/difftrace/export/chrome"
	"github.com/difftrace/difftrace/trace"
)

// Rank 3 enters main, sends, and hangs in a receive: each call is a slice
// from its entry to its exit, at its events' indices; the receive and main,
// still open where the trace ends, end one tick later, marked unfinished.
func Example() {
	tab := trace.NewTable()
	main := tab.Intern(trace.Name{Image: "app", Func: "main"})
	send := tab.Intern(trace.Name{Image: "libmpi.so.40", Func: "MPI_Send"})
	recv := tab.Intern(trace.Name{Image: "libmpi.so.40", Func: "MPI_Recv"})

	var out bytes.Buffer
	w := chrome.NewWriter(&out, chrome.Options{Names: tab})
	// Rank 3's process is pid 4, its thread 0 tid 1: Perfetto treats pid
	// 0 and tid 0 apart.
	pid, tid := chrome.PID(3), chrome.TID(0)
	w.Process(pid, "rank 3", 3)
	w.Thread(pid, tid, "thread 0")
	tr := w.Track(pid, tid, 0)
	if err := tr.Write([]trace.Symbol{main, send, trace.Return, recv}); err != nil {
		panic(err)
	}
	if err := tr.Close(); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Contains(line, `"ph":"B"`) || strings.Contains(line, `"ph":"E"`) {
			fmt.Println(strings.TrimSuffix(line, ","))
		}
	}
	// Output:
	// {"name":"main","cat":"app","ph":"B","ts":0,"pid":4,"tid":1}
	// {"name":"MPI_Send","cat":"libmpi.so.40","ph":"B","ts":1,"pid":4,"tid":1}
	// {"name":"MPI_Send","ph":"E","ts":2,"pid":4,"tid":1}
	// {"name":"MPI_Recv","cat":"libmpi.so.40","ph":"B","ts":3,"pid":4,"tid":1}
	// {"name":"MPI_Recv","ph":"E","ts":4,"pid":4,"tid":1,"args":{"unfinished":true}}
	// {"name":"main","ph":"E","ts":4,"pid":4,"tid":1,"args":{"unfinished":true}}
}
