package summary

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/trace"
)

func testParts(of int) []*Part {
	names := []trace.Name{{}, {Image: trace.Program, Func: "main"}, {Image: "libmpi.so.40", Func: "MPI_Send"}}
	h := decode.Header{Dir: "runs/x", Format: decode.FormatRun, Names: names, Functions: []trace.Symbol{1, 2}}
	grid := Grid{Filters: []string{"mpi", "all"}, Ks: []int{10}}
	var parts []*Part
	for i := range of {
		p := &Part{Index: i, Of: of, Grid: grid, Names: len(names), NamesSum: NamesSum(names),
			Classes: [][]byte{{1, 2, 3}}}
		p.Run = h
		p.Run.Procs = []decode.HeaderProcess{{Index: i, Rank: -1, Threads: []decode.HeaderTrace{{Thread: 0}}}}
		p.Traces = []Trace{{ID: trace.ID{Proc: i}, Kept: []uint64{4, 9}, Classes: []int32{0, 0}, End: []trace.Symbol{1}}}
		parts = append(parts, p)
	}
	return parts
}

func TestWriteOpen(t *testing.T) {
	dir := t.TempDir()
	for _, p := range testParts(3) {
		if err := Write(dir, p); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Parts) != 3 || s.Run.Dir != "runs/x" || len(s.Run.Procs) != 3 || s.Parts[2].Traces[0].Kept[1] != 9 {
		t.Fatalf("read back %+v", s)
	}
	if _, c, err := s.Where("all", 10); err != nil || c != 1 {
		t.Errorf("Where(all, 10) = %d, %v", c, err)
	}
	if _, _, err := s.Where("omp", 10); err == nil || !strings.Contains(err.Error(), "the grid's filters and K") {
		t.Errorf("Where(omp, 10): %v", err)
	}
	if !Is(dir) || Is(t.TempDir()) {
		t.Error("Is")
	}
}

// Each way a summary directory can be wrong is an error naming the file
// and what to do.
func TestOpenDamaged(t *testing.T) {
	cases := []struct {
		name string
		do   func(dir string)
		want string
	}{
		{"missing part", func(dir string) { os.Remove(filepath.Join(dir, PartName(1, 3))) }, "part-0-of-3.dts: the name says 3 parts, the directory holds 2 (parts 1 missing); a summary is complete only with all its parts"},
		{"flipped byte", func(dir string) {
			p := filepath.Join(dir, PartName(2, 3))
			b, _ := os.ReadFile(p)
			b[40] ^= 1
			os.WriteFile(p, b, 0o644)
		}, "part-2-of-3.dts: the file is damaged"},
		{"cut short", func(dir string) {
			p := filepath.Join(dir, PartName(0, 3))
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)/2], 0o644)
		}, "part-0-of-3.dts: the file is damaged"},
		{"damaged within its checksum", func(dir string) {
			p := filepath.Join(dir, PartName(1, 3))
			b, _ := os.ReadFile(p)
			b = b[:len(b)-4]
			b = append(b[:len(b)-8], 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
			b = binary.BigEndian.AppendUint32(b, crc32.Checksum(b, castagnoli()))
			os.WriteFile(p, b, 0o644)
		}, "part-1-of-3.dts: byte "},
		{"other version", func(dir string) {
			p := filepath.Join(dir, PartName(1, 3))
			b, _ := os.ReadFile(p)
			b[len(magic)] = 9
			os.WriteFile(p, b, 0o644)
		}, "part-1-of-3.dts: byte 18: a summary of version 9"},
		{"trace names no NLR", func(dir string) {
			p := testParts(3)[2]
			p.Traces[0].Classes[1] = 999
			Write(dir, p)
		}, "part-2-of-3.dts: trace record 0: trace 2.0 names NLR 999 of 1"},
		{"not a summary", func(dir string) { os.WriteFile(filepath.Join(dir, PartName(1, 3)), []byte("hello"), 0o644) }, "not a difftrace summary part"},
		{"renamed", func(dir string) {
			os.Rename(filepath.Join(dir, PartName(1, 3)), filepath.Join(dir, "part-7-of-9.dts"))
		}, "summaries made by 3 and by 9 processes"},
		{"two sizes", func(dir string) {
			Write(dir, testParts(2)[1])
		}, "made by 3 and by 2 processes"},
	}
	for _, tc := range cases {
		dir := t.TempDir()
		for _, p := range testParts(3) {
			if err := Write(dir, p); err != nil {
				t.Fatal(err)
			}
		}
		tc.do(dir)
		_, err := Open(dir)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// A part's name that claims a vast number of parts is believed only as
// far as the directory holds files: nothing is allocated for the count
// (it once made a slice of that size, and a Go runtime crash).
func TestOpenClaimedParts(t *testing.T) {
	for _, of := range []int{1_000_000_000, 100_000_000_000} {
		dir := t.TempDir()
		p := testParts(1)[0]
		p.Of = of
		if err := Write(dir, p); err != nil {
			t.Fatal(err)
		}
		_, err := Open(dir)
		want := fmt.Sprintf("%s: the name says %d parts, the directory holds 1 (parts 1, 2, 3, 4, 5, 6, 7, 8, … (%d in all) missing); a summary is complete only with all its parts",
			filepath.Join(dir, PartName(0, of)), of, of-1)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("got %v\nwant %s…", err, want)
		}
	}
	// A name with leading zeros is no part's: two names of one part.
	for _, name := range []string{"part-00-of-1.dts", "part-0-of-01.dts", "part-1-of-99999999999999999999.dts"} {
		if _, _, ok := ParsePartName(name); ok {
			t.Errorf("ParsePartName(%q) is a part", name)
		}
	}
	if i, n, ok := ParsePartName("part-3-of-12.dts"); !ok || i != 3 || n != 12 {
		t.Errorf("ParsePartName(part-3-of-12.dts) = %d, %d, %v", i, n, ok)
	}
}

// FuzzDecode: any bytes, with a valid checksum or not, give a part or an
// error, never a panic or an allocation the bytes do not bound (gob's own
// bounds; the checksum is recomputed so that the gob decoder is reached).
func FuzzDecode(f *testing.F) {
	for _, p := range testParts(2) {
		b, err := Encode(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[len(magic)+1 : len(b)-4])
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		b := append([]byte(magic+"\x01"), body...)
		b = binary.BigEndian.AppendUint32(b, crc32.Checksum(b, castagnoli()))
		Decode("part-0-of-1.dts", b)
	})
}
