package parlot_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/difftrace/difftrace/parlot/parlottest"
)

func TestWriterFixtures(t *testing.T) {
	for _, p := range parlottest.FixturePairs(t, fixtureDir) {
		want, err := os.ReadFile(p[0])
		if err != nil {
			t.Fatal(err)
		}
		vals := parlottest.LoadU16(t, p[1])
		// Whole, and in awkward chunks: the output must not depend on how
		// the values arrive.
		for _, chunk := range []int{1 << 30, 1, 7} {
			got := parlottest.Encode(t, vals, chunk)
			if !bytes.Equal(got, want) {
				t.Errorf("%s (chunks of %d): encoded %d bytes, want %d; first difference at byte %d",
					filepath.Base(p[0]), chunk, len(got), len(want), parlottest.FirstDiff(got, want))
			}
		}
	}
}

// However the values are handed over — in one call, one at a time, in
// chunks that end inside long self-repeating matches — the bytes are the
// same.
func TestWriterChunking(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, p := range []int{1, 3, 17, 300, 5000, 40000} {
		body := make([]uint16, p)
		for i := range body {
			body[i] = uint16(1 + r.IntN(20))
		}
		var vals []uint16
		for len(vals) < 200000 {
			vals = append(vals, body...)
			if r.IntN(3) == 0 {
				body[r.IntN(p)] = uint16(1 + r.IntN(20))
			}
		}
		want := parlottest.Encode(t, vals, 1<<30)
		for _, chunk := range []int{1, 7, 4096, 1 + r.IntN(70000)} {
			if got := parlottest.Encode(t, vals, chunk); !bytes.Equal(got, want) {
				t.Errorf("period %d, chunks of %d: %d bytes, in one call %d; first difference at byte %d",
					p, chunk, len(got), len(want), parlottest.FirstDiff(got, want))
			}
		}
	}
}
