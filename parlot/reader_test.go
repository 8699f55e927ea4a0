package parlot_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/difftrace/difftrace/parlot"

	"github.com/difftrace/difftrace/parlot/parlottest"
)

// fixtureDir holds the reference ParLOT files (written by the original tool).
const fixtureDir = "../testdata/parlot"

func TestReaderFixtures(t *testing.T) {
	bins, _ := filepath.Glob(filepath.Join(fixtureDir, "edge", "*.bin"))
	if len(bins) == 0 {
		t.Fatalf("no fixtures under %s", fixtureDir)
	}
	for _, bin := range bins {
		t.Run(filepath.Base(bin), func(t *testing.T) {
			raw, err := os.ReadFile(bin)
			if err != nil {
				t.Fatal(err)
			}
			want := parlottest.LoadU16(t, bin[:len(bin)-4]+".u16")
			got, err := parlot.ReadAll(bytes.NewReader(raw), bin, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("decoded %d values, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
			}
		})
	}
}

func firstDiff(a, b []uint16) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestReaderOddEven4(t *testing.T) {
	traces, _ := filepath.Glob(filepath.Join(fixtureDir, "oddeven4", "Hdbg.*.0"))
	if len(traces) != 4 {
		t.Fatalf("want 4 oddeven4 traces, found %d", len(traces))
	}
	for _, f := range traces {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := parlottest.LoadU16(t, filepath.Join(filepath.Dir(f), "expected", filepath.Base(f)+".u16"))
		got, err := parlot.ReadAll(bytes.NewReader(raw), f, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: decoded %v, want %v", f, got, want)
		}
	}
}

// TestReaderPeriodicRuns round-trips traces made of loops of many periods
// and lengths (the long matches that copyRun copies as repeating values,
// and the short ones it takes a value at a time), read in chunks of
// several sizes, so that a match is cut anywhere: every value, and the
// hash table and history each match leaves for the next, must be right.
func TestReaderPeriodicRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := range 40 {
		// Segments: a loop body repeated, then a tail. Later segments
		// often repeat an earlier one with another count, so that matches
		// run past a loop's end into its tail.
		type segment struct{ body, tail []uint16 }
		var segs []segment
		var vals []uint16
		for len(vals) < 400000 {
			var sg segment
			if len(segs) > 0 && rng.IntN(2) == 0 {
				sg = segs[rng.IntN(len(segs))]
			} else {
				period := 1 + rng.IntN(300)
				if rng.IntN(4) == 0 {
					period = 1 + rng.IntN(5)
				}
				sg.body = make([]uint16, period)
				for i := range sg.body {
					sg.body[i] = uint16(1 + rng.IntN(40))
				}
				sg.tail = make([]uint16, rng.IntN(50))
				for i := range sg.tail {
					sg.tail[i] = uint16(1 + rng.IntN(40))
				}
				segs = append(segs, sg)
			}
			for range 1 + rng.IntN(2000/len(sg.body)+3) {
				vals = append(vals, sg.body...)
			}
			vals = append(vals, sg.tail...)
		}
		var buf bytes.Buffer
		w := parlot.NewWriter(&buf)
		if err := w.Write(vals); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		for _, chunk := range []int{1, 7, 1000, 64 << 10, len(vals) + 1} {
			r := parlot.NewReader(bytes.NewReader(buf.Bytes()), "periodic", 0)
			var got []uint16
			p := make([]uint16, chunk)
			for {
				n, err := r.Read(p)
				got = append(got, p[:n]...)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("trial %d, chunks of %d: %v", trial, chunk, err)
				}
			}
			if !slices.Equal(got, vals) {
				i := 0
				for i < len(got) && i < len(vals) && got[i] == vals[i] {
					i++
				}
				t.Fatalf("trial %d, chunks of %d: %d values, want %d; first difference at %d", trial, chunk, len(got), len(vals), i)
			}
		}
	}
}
