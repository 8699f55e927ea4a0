// Package uftracetest writes a synthetic uftrace data directory, byte for
// byte in the layout uftrace 0.13 writes, for the tests of the packages
// that read recordings (uftrace, decode) without uftrace installed.
package uftracetest

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/difftrace/difftrace/uftrace"
)

// The synthetic recording's process (its main thread has the same id; the
// other thread is PID+7), where its program and library are loaded, and
// when its records start.
const (
	PID  = 4242
	Base = 0x55550000_0000 // load address of the program
	Lib  = 0x7f0000000000  // load address of the library
	T0   = 100_000_001_000 // record times start after the session's (100 s)
)

// Record encodes one record.
func Record(t uint64, kind uftrace.Kind, more bool, depth int, addr uint64) []byte {
	return uftrace.Append(nil, uftrace.Record{Time: t, Kind: kind, Depth: depth, Addr: addr}, more)
}

// Write writes a two-thread recording of /bin/app (main at 0x1130,
// work at 0x1200, a PLT entry for memcpy at 0x1030) that calls into
// /lib/libfoo.so (helper at 0x500), with a lost-records marker and an event
// carrying a payload. It fails t if a file cannot be written.
func Write(t testing.TB, dir string) {
	t.Helper()
	if err := WriteDir(dir); err != nil {
		t.Fatal(err)
	}
}

// WriteDir is Write for callers without a testing.TB, such as examples.
func WriteDir(dir string) error {
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
			PID, PID+7, PID, PID, PID, PID, Lib+0x100000, PID, Lib+0x100000),
		"sid-abcd.map": fmt.Sprintf("%x-%x r-xp 00000000 00:00 0    /bin/app build-id:00\n%x-%x r-xp 00000000 00:00 0    /lib/libfoo.so\n",
			uint64(Base), uint64(Base+0x5000), uint64(Lib), uint64(Lib+0x2000)),
		"app.sym": "# symbols: 4\n# path name: /bin/app\n0000000000001030 P memcpy\n0000000000001040 ? __dynsym_end\n" +
			"0000000000001130 T main\n0000000000001200 t work\n0000000000001300 ? __func_end\n0000000000004000 D data\n",
		"libfoo.so.sym": "# path name: /lib/libfoo.so\n0000000000000500 T helper\n0000000000000600 ? __sym_end\n",
		"libdl.so.sym":  "# path name: /lib/libdl.so\n0000000000000010 T dl_thing\n0000000000000100 ? __sym_end\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	main := func(tm uint64, k uftrace.Kind, d int, off uint64) []byte {
		return Record(T0+tm, k, false, d, Base+off)
	}
	var t0 []byte
	t0 = append(t0, main(1, uftrace.Entry, 0, 0x1135)...)       // main (patched: addr is main+5)
	t0 = append(t0, main(2, uftrace.Entry, 1, 0x1030)...)       // memcpy via the PLT
	t0 = append(t0, main(3, uftrace.Exit, 1, 0x1030)...)        //
	t0 = append(t0, Record(T0+4, uftrace.Lost, false, 0, 3)...) // 3 records lost
	ev := Record(T0+5, uftrace.Event, true, 0, 7)
	ev = append(ev, 3, 0, 'a', 'b', 'c', 0, 0, 0) // 2-byte size, 3 bytes, padding to 8
	t0 = append(t0, ev...)
	t0 = append(t0, main(6, uftrace.Entry, 1, 0x1205)...)                        // work
	t0 = append(t0, Record(T0+7, uftrace.Entry, false, 2, Lib+0x500)...)         // helper in the library
	t0 = append(t0, Record(T0+8, uftrace.Exit, false, 2, Lib+0x500)...)          //
	t0 = append(t0, Record(T0+9, uftrace.Entry, false, 2, Lib+0x100000+0x10)...) // dlopen'ed
	t0 = append(t0, Record(T0+10, uftrace.Entry, false, 3, 0xdead)...)           // nowhere
	var t1 []byte
	t1 = append(t1, main(20, uftrace.Entry, 0, 0x1205)...)
	t1 = append(t1, main(21, uftrace.Exit, 0, 0x1205)...)
	t1 = append(t1, 1, 2, 3) // a record cut short
	for tid, recs := range map[int][]byte{PID: t0, PID + 7: t1} {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(tid)+".dat"), recs, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// WriteLong writes the synthetic recording of Write with
// n records (entries and exits of main, work and memcpy in turn) in place of
// the second thread's, for the benchmarks, and returns the size of the
// records it wrote.
func WriteLong(b testing.TB, dir string, n int) int64 {
	b.Helper()
	Write(b, dir)
	var recs []byte
	offs := []uint64{0x1135, 0x1205, 0x1030}
	for i := 0; i < n; i++ {
		recs = append(recs, Record(uint64(i), uftrace.Kind(i%2), false, 1, Base+offs[(i/2)%3])...)
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(PID+7)+".dat"), recs, 0o644); err != nil {
		b.Fatal(err)
	}
	return int64(len(recs))
}
