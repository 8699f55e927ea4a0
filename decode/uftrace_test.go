package decode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/trace"
	"github.com/difftrace/difftrace/uftrace"
)

// A synthetic uftrace data directory, byte for byte in the layout uftrace
// 0.13 writes (see uftrace.go), so the reader is tested without uftrace.

const (
	synPID  = 4242
	synBase = 0x55550000_0000 // load address of the program
	synLib  = 0x7f0000000000  // load address of the library
	synT0   = 100_000_001_000 // record times start after the session's (100 s)
)

// synRecord encodes one record.
func synRecord(t uint64, kind UftraceKind, more bool, depth int, addr uint64) []byte {
	return uftrace.Append(nil, UftraceRecord{Time: t, Kind: kind, Depth: depth, Addr: addr}, more)
}

// writeSynthetic writes a two-thread recording of /bin/app (main at 0x1130,
// work at 0x1200, a PLT entry for memcpy at 0x1030) that calls into
// /lib/libfoo.so (helper at 0x500), with a lost-records marker and an event
// carrying a payload.
func writeSynthetic(t testing.TB, dir string) {
	t.Helper()
	hdr := make([]byte, 40)
	copy(hdr, uftrace.Magic)
	binary.LittleEndian.PutUint32(hdr[8:], 4)
	binary.LittleEndian.PutUint16(hdr[12:], 40)
	hdr[14], hdr[15] = 1, 2
	binary.LittleEndian.PutUint64(hdr[16:], 0x263)
	info := append(hdr, []byte("exename:/bin/app\nexit_status:768\ncmdline:uftrace record -P . /bin/app -x\nosinfo:hostname=node7\nosinfo:distro=\"Debian\"\n")...)
	files := map[string]string{
		"info": string(info),
		"task.txt": fmt.Sprintf("SESS timestamp=100.000000100 pid=%d sid=abcd exename=\"/bin/app with space\"\n"+
			"TASK timestamp=100.000000200 tid=%d pid=%d\n"+
			"TASK timestamp=100.000000300 tid=%d pid=%d\n"+
			"DLOP timestamp=100.000000400 tid=%d sid=abcd base=%x libname=\"/lib/libdl.so\"\n"+
			"DLOP timestamp=100.000000400 tid=%d sid=abcd base=%x libname=\"/lib/libdl.so\"\n",
			synPID, synPID+7, synPID, synPID, synPID, synPID, synLib+0x100000, synPID, synLib+0x100000),
		"sid-abcd.map": fmt.Sprintf("%x-%x r-xp 00000000 00:00 0    /bin/app build-id:00\n%x-%x r-xp 00000000 00:00 0    /lib/libfoo.so\n",
			uint64(synBase), uint64(synBase+0x5000), uint64(synLib), uint64(synLib+0x2000)),
		"app.sym": "# symbols: 4\n# path name: /bin/app\n0000000000001030 P memcpy\n0000000000001040 ? __dynsym_end\n" +
			"0000000000001130 T main\n0000000000001200 t work\n0000000000001300 ? __func_end\n0000000000004000 D data\n",
		"libfoo.so.sym": "# path name: /lib/libfoo.so\n0000000000000500 T helper\n0000000000000600 ? __sym_end\n",
		"libdl.so.sym":  "# path name: /lib/libdl.so\n0000000000000010 T dl_thing\n0000000000000100 ? __sym_end\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	main := func(tm uint64, k UftraceKind, d int, off uint64) []byte {
		return synRecord(synT0+tm, k, false, d, synBase+off)
	}
	var t0 []byte
	t0 = append(t0, main(1, UftraceEntry, 0, 0x1135)...)             // main (patched: addr is main+5)
	t0 = append(t0, main(2, UftraceEntry, 1, 0x1030)...)             // memcpy via the PLT
	t0 = append(t0, main(3, UftraceExit, 1, 0x1030)...)              //
	t0 = append(t0, synRecord(synT0+4, UftraceLost, false, 0, 3)...) // 3 records lost
	ev := synRecord(synT0+5, UftraceEvent, true, 0, 7)
	ev = append(ev, 3, 0, 'a', 'b', 'c', 0, 0, 0) // 2-byte size, 3 bytes, padding to 8
	t0 = append(t0, ev...)
	t0 = append(t0, main(6, UftraceEntry, 1, 0x1205)...)                                 // work
	t0 = append(t0, synRecord(synT0+7, UftraceEntry, false, 2, synLib+0x500)...)         // helper in the library
	t0 = append(t0, synRecord(synT0+8, UftraceExit, false, 2, synLib+0x500)...)          //
	t0 = append(t0, synRecord(synT0+9, UftraceEntry, false, 2, synLib+0x100000+0x10)...) // dlopen'ed
	t0 = append(t0, synRecord(synT0+10, UftraceEntry, false, 3, 0xdead)...)              // nowhere
	var t1 []byte
	t1 = append(t1, main(20, UftraceEntry, 0, 0x1205)...)
	t1 = append(t1, main(21, UftraceExit, 0, 0x1205)...)
	t1 = append(t1, 1, 2, 3) // a record cut short
	for tid, recs := range map[int][]byte{synPID: t0, synPID + 7: t1} {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(tid)+".dat"), recs, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestUftraceSynthetic(t *testing.T) {
	dir := t.TempDir()
	writeSynthetic(t, dir)
	d, err := OpenUftrace(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d.Version != 4 || d.Info["exename"] != "/bin/app" || d.Info["osinfo:hostname"] != "node7" || d.Info["exit_status"] != "768" {
		t.Errorf("info: version %d, %v", d.Version, d.Info)
	}
	if len(d.Sessions) != 1 || d.Sessions[0].Exe != "/bin/app with space" || d.Sessions[0].Time != 100_000_000_100 {
		t.Errorf("sessions %+v", d.Sessions)
	}
	if !slices.Equal(d.Processes(), []int{synPID}) {
		t.Errorf("processes %v", d.Processes())
	}
	th := d.Threads(synPID)
	if len(th) != 2 || th[0].TID != synPID || th[0].Thread != 0 || th[1].TID != synPID+7 || th[1].Thread != 1 {
		t.Fatalf("threads %+v: want the main thread first, then the other", th)
	}
	var calls []string
	st, err := d.ReadCalls(th[0], func(c UftraceCall) error {
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
	if st.Lost != 3 || st.LastTime != synT0+10 || st.Truncated || st.Calls != 8 {
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
	if got := d.PLTNames(synPID)["/bin/app"]; !slices.Equal(got, []string{"memcpy"}) {
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
			os.WriteFile(filepath.Join(d, fmt.Sprint(synPID)+".dat"), make([]byte, 32), 0o644)
		}, "byte 0: bad record magic", true},
		{"arguments", func(d string) {
			os.WriteFile(filepath.Join(d, fmt.Sprint(synPID)+".dat"), synRecord(1, UftraceEntry, true, 0, synBase+0x1135), 0o644)
		}, "arguments", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeSynthetic(t, dir)
			c.edit(dir)
			d, err := OpenUftrace(dir)
			if c.atRec {
				if err != nil {
					t.Fatal(err)
				}
				_, err = d.ReadCalls(d.Threads(synPID)[0], nil)
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
	writeSynthetic(t, dir)
	var b []byte
	const n = 100_000
	for i := 0; i < n; i++ {
		b = append(b, synRecord(uint64(i), UftraceKind(i%2), false, 0, synBase+0x1205)...)
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(synPID+7)+".dat"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := OpenUftrace(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.OpenRecords(synPID + 7)
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
		if err != nil || rec.Time != uint64(i) || rec.Kind != UftraceKind(i%2) || rec.Addr != synBase+0x1205 {
			t.Fatalf("record %d: %+v %v", i, rec, err)
		}
	}
}

// writeSyntheticLong writes the synthetic recording of writeSynthetic with
// n records (entries and exits of main, work and memcpy in turn) in place of
// the second thread's, for the benchmarks, and returns the size of the
// records it wrote.
func writeSyntheticLong(b *testing.B, dir string, n int) int64 {
	b.Helper()
	writeSynthetic(b, dir)
	var recs []byte
	offs := []uint64{0x1135, 0x1205, 0x1030}
	for i := 0; i < n; i++ {
		recs = append(recs, synRecord(uint64(i), UftraceKind(i%2), false, 1, synBase+offs[(i/2)%3])...)
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(synPID+7)+".dat"), recs, 0o644); err != nil {
		b.Fatal(err)
	}
	return int64(len(recs))
}

func FuzzUftraceTaskLine(f *testing.F) {
	f.Add(`SESS timestamp=1.000000002 pid=3 sid=ab exename="/x y"`)
	f.Add(`DLOP timestamp=1.5 tid=1 sid=ab base=7f00 libname="/l.so"`)
	f.Add(`TASK tid="unterminated`)
	f.Fuzz(func(t *testing.T, line string) {
		kw, fs, ok := taskFields(line)
		parseUftraceTime(fs["timestamp"])
		if !ok {
			return
		}
		// The fields, written back with every value quoted as task.txt
		// quotes names, read back the same (a value holding a quote cannot
		// be quoted).
		again := kw
		for _, k := range slices.Sorted(maps.Keys(fs)) {
			if strings.Contains(fs[k], `"`) {
				return
			}
			again += " " + k + `="` + fs[k] + `"`
		}
		kw2, fs2, ok2 := taskFields(again)
		if !ok2 || kw2 != kw || !maps.Equal(fs, fs2) {
			t.Fatalf("%q reads as %q %q; written back as %q it reads as %q %q (ok %v)", line, kw, fs, again, kw2, fs2, ok2)
		}
	})
}

// BenchmarkUftraceReadCalls measures converting a uftrace thread's records
// into named calls, the reading half of capture's conversion.
func BenchmarkUftraceReadCalls(b *testing.B) {
	dir := b.TempDir()
	const n = 1 << 20
	size := writeSyntheticLong(b, dir, n)
	d, err := OpenUftrace(dir)
	if err != nil {
		b.Fatal(err)
	}
	task := d.Threads(synPID)[1]
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st, err := d.ReadCalls(task, func(UftraceCall) error { return nil })
		if err != nil || st.Calls != n {
			b.Fatal(st, err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrecords/s")
}
