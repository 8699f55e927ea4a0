package uftrace_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/trace"
	"github.com/difftrace/difftrace/uftrace"
	"github.com/difftrace/difftrace/uftrace/uftracetest"
)

func TestUftraceSynthetic(t *testing.T) {
	dir := t.TempDir()
	uftracetest.Write(t, dir)
	d, err := uftrace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d.Version != 4 || d.Info["exename"] != "/bin/app" || d.Info["osinfo:hostname"] != "node7" || d.Info["exit_status"] != "768" {
		t.Errorf("info: version %d, %v", d.Version, d.Info)
	}
	if len(d.Sessions) != 1 || d.Sessions[0].Exe != "/bin/app with space" || d.Sessions[0].Time != 100_000_000_100 {
		t.Errorf("sessions %+v", d.Sessions)
	}
	if !slices.Equal(d.Processes(), []int{uftracetest.PID}) {
		t.Errorf("processes %v", d.Processes())
	}
	th := d.Threads(uftracetest.PID)
	if len(th) != 2 || th[0].TID != uftracetest.PID || th[0].Thread != 0 || th[1].TID != uftracetest.PID+7 || th[1].Thread != 1 {
		t.Fatalf("threads %+v: want the main thread first, then the other", th)
	}
	var calls []string
	st, err := d.ReadCalls(th[0], func(c uftrace.Call) error {
		s := c.Name.String()
		if c.Exit {
			s = "}"
		}
		calls = append(calls, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"app:main", "app:memcpy", "}", "app:work", "libfoo.so:helper", "}", "libdl.so:dl_thing", "?:0xdead"}
	if !slices.Equal(calls, want) {
		t.Errorf("calls\n got %v\nwant %v", calls, want)
	}
	if st.Lost != 3 || st.LastTime != uftracetest.T0+10 || st.Truncated || st.Calls != 8 {
		t.Errorf("stats %+v", st)
	}
	open := []trace.Name{{Image: "/bin/app", Func: "main"}, {Image: "/bin/app", Func: "work"}, {Image: "/lib/libdl.so", Func: "dl_thing"}, {Image: "?", Func: "0xdead"}}
	if !slices.Equal(st.Open, open) {
		t.Errorf("open calls %v, want %v", st.Open, open)
	}
	st, err = d.ReadCalls(th[1], nil)
	if err != nil || !st.Truncated || st.Calls != 2 || len(st.Open) != 0 {
		t.Errorf("the cut-short thread: %+v, %v", st, err)
	}
	if got := d.PLTNames(uftracetest.PID)["/bin/app"]; !slices.Equal(got, []string{"memcpy"}) {
		t.Errorf("PLT names %v", got)
	}
}

func TestUftraceErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		edit  func(dir string)
		want  string
		atRec bool // the error comes from reading records
	}{
		{"no info", func(d string) { os.Remove(filepath.Join(d, "info")) }, "no info file", false},
		{"bad magic", func(d string) { os.WriteFile(filepath.Join(d, "info"), make([]byte, 64), 0o644) }, "bad magic", false},
		{"no task.txt", func(d string) { os.Remove(filepath.Join(d, "task.txt")) }, "no task.txt", false},
		{"bad task line", func(d string) {
			os.WriteFile(filepath.Join(d, "task.txt"), []byte("SESS timestamp=1.0 pid=1 sid=x exename=\"/a\"\nTASK tid=x pid=1\n"), 0o644)
		}, "task.txt:2: malformed TASK line", false},
		{"unknown keyword", func(d string) {
			os.WriteFile(filepath.Join(d, "task.txt"), []byte("WHAT timestamp=1.0\n"), 0o644)
		}, "task.txt:1: malformed WHAT line: unknown keyword", false},
		{"record magic", func(d string) {
			os.WriteFile(filepath.Join(d, fmt.Sprint(uftracetest.PID)+".dat"), make([]byte, 32), 0o644)
		}, "byte 0: bad record magic", true},
		{"arguments", func(d string) {
			os.WriteFile(filepath.Join(d, fmt.Sprint(uftracetest.PID)+".dat"), uftracetest.Record(1, uftrace.Entry, true, 0, uftracetest.Base+0x1135), 0o644)
		}, "arguments", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			uftracetest.Write(t, dir)
			c.edit(dir)
			d, err := uftrace.Open(dir)
			if c.atRec {
				if err != nil {
					t.Fatal(err)
				}
				_, err = d.ReadCalls(d.Threads(uftracetest.PID)[0], nil)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestUftraceRecordsAreStreamed checks the record reader on a file larger
// than its buffer, entry and exit alternating.
func TestUftraceRecordsAreStreamed(t *testing.T) {
	dir := t.TempDir()
	uftracetest.Write(t, dir)
	var b []byte
	const n = 100_000
	for i := 0; i < n; i++ {
		b = append(b, uftracetest.Record(uint64(i), uftrace.Kind(i%2), false, 0, uftracetest.Base+0x1205)...)
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(uftracetest.PID+7)+".dat"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := uftrace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.OpenRecords(uftracetest.PID + 7)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := 0; ; i++ {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			if i != n {
				t.Fatalf("read %d records, want %d", i, n)
			}
			break
		}
		if err != nil || rec.Time != uint64(i) || rec.Kind != uftrace.Kind(i%2) || rec.Addr != uftracetest.Base+0x1205 {
			t.Fatalf("record %d: %+v %v", i, rec, err)
		}
	}
}

// BenchmarkUftraceReadCalls measures converting a uftrace thread's records
// into named calls, the reading half of capture's conversion.
func BenchmarkUftraceReadCalls(b *testing.B) {
	dir := b.TempDir()
	const n = 1 << 20
	size := uftracetest.WriteLong(b, dir, n)
	d, err := uftrace.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	task := d.Threads(uftracetest.PID)[1]
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st, err := d.ReadCalls(task, func(uftrace.Call) error { return nil })
		if err != nil || st.Calls != n {
			b.Fatal(st, err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrecords/s")
}
