package uftrace_test

import (
	"fmt"

	"github.com/difftrace/difftrace/uftrace"
)

// Records as a thread's data file or uftrace's stream holds them, read
// back field by field.
func Example() {
	var b []byte
	b = uftrace.Append(b, uftrace.Record{Time: 100, Kind: uftrace.Entry, Depth: 0, Addr: 0x1130}, false)
	b = uftrace.Append(b, uftrace.Record{Time: 250, Kind: uftrace.Exit, Depth: 0, Addr: 0x1130}, false)
	for ; len(b) >= uftrace.RecordSize; b = b[uftrace.RecordSize:] {
		rec, w := uftrace.Parse(b)
		fmt.Printf("t=%d kind=%d depth=%d addr=%#x plain=%v\n", rec.Time, rec.Kind, rec.Depth, rec.Addr, w.Plain())
	}
	// Output:
	// t=100 kind=0 depth=0 addr=0x1130 plain=true
	// t=250 kind=1 depth=0 addr=0x1130 plain=true
}
