package parlot_test

import (
	"bytes"
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
