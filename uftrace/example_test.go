package uftrace_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/difftrace/difftrace/uftrace"
	"github.com/difftrace/difftrace/uftrace/uftracetest"
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

// A recording's data directory (here a synthetic one): its processes and
// threads, and each thread's calls, named.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "uftrace-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	if err := uftracetest.WriteDir(dir); err != nil {
		fmt.Println(err)
		return
	}
	d, err := uftrace.Open(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Command(), d.Info["osinfo:hostname"])
	for _, pid := range d.Processes() {
		for _, t := range d.Threads(pid) {
			var calls []string
			st, err := d.ReadCalls(t, func(c uftrace.Call) error {
				if !c.Exit {
					calls = append(calls, c.Name.Func)
				}
				return nil
			})
			fmt.Println(t.Thread, calls, st.Lost, "lost", err)
		}
	}
	// A damaged file is named, with where it is damaged.
	os.WriteFile(filepath.Join(dir, "task.txt"), []byte("SESS timestamp=1.0 pid=1 sid=x\nTASK tid=x\n"), 0o644)
	_, err = uftrace.Open(dir)
	var ue *uftrace.Error
	if errors.As(err, &ue) {
		fmt.Println(filepath.Base(ue.File), ue.Line, ue.Reason)
	}
	_, err = uftrace.Open(filepath.Join(dir, "missing"))
	fmt.Println(errors.Is(err, fs.ErrNotExist))
	// Output:
	// [/bin/app -x] node7
	// 0 [main memcpy work helper dl_thing 0xdead] 3 lost <nil>
	// 1 [work] 0 lost <nil>
	// task.txt 2 malformed TASK line: want timestamp, tid and pid (the recording is damaged; record the run again)
	// true
}
