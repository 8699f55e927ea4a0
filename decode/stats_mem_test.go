package decode

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

// TestSummarizeMemoryIsBounded: counting a trace streams it, so memory does
// not grow with the events. 60 million events would take 240 MB as symbols;
// summarising them must allocate a small, fixed amount.
func TestSummarizeMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes 60 million events")
	}
	const n = 60_000_000
	vals := make([]uint16, 0, n)
	for len(vals) < n {
		vals = append(vals, 1, 2, 0, 3, 0, 0)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "trace.0.info"), "+\n/bin/a\nmain\nf\ng\n")
	writeTrace(t, filepath.Join(dir, "trace.0.0"), vals)
	vals = nil
	run, err := Open(dir, trace.NewTable(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	st, err := run.Summarize(run.Traces(), true)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if st[0].Events != n || st[0].Calls != n/2 {
		t.Fatalf("counted %d events, %d calls", st[0].Events, st[0].Calls)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("summarising %d events allocated %d bytes; it should stream", n, alloc)
	}
}
