package parlot_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/difftrace/difftrace/parlot"
)

// A thread that calls main, then send and recv four times, compresses to a
// few bytes; reading them back gives the same values, which the function
// table names.
func Example() {
	vals := []uint16{1} // main
	for range 4 {
		vals = append(vals, 2, 0, 3, 0) // send, exit, recv, exit
	}
	vals = append(vals, 0) // main returns

	var file bytes.Buffer
	w := parlot.NewWriter(&file)
	if err := w.Write(vals); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}

	size := file.Len()
	back, err := parlot.ReadAll(&file, "trace.0.0", 0)
	if err != nil {
		panic(err)
	}
	tab, err := parlot.ParseFuncTable(strings.NewReader("+\n/bin/app\nmain\nsend\nrecv\n"), "trace.0.info")
	if err != nil {
		panic(err)
	}
	fmt.Println(len(vals), "values in", size, "bytes")
	for _, v := range back[:5] {
		if v == 0 {
			fmt.Println("exit")
		} else {
			fmt.Println(tab.Names[v-1].Func)
		}
	}
	// Output:
	// 18 values in 10 bytes
	// main
	// send
	// exit
	// recv
	// exit
}
