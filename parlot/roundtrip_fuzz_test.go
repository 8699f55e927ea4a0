package parlot_test

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/difftrace/difftrace/parlot"
	"github.com/difftrace/difftrace/parlot/parlottest"
)

// FuzzRoundTrip checks decode(encode(x)) == x for any value sequence. The
// fuzzer's bytes are read as little-endian uint16 values; a small alphabet
// variant makes long matches (and the 65535-count ceiling) likely.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{}, false)
	f.Add([]byte{1, 0, 2, 0, 3, 0, 1, 0, 2, 0, 3, 0, 1, 0, 2, 0, 3, 0}, false)
	f.Add([]byte{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 0, 0, 0}, true)
	f.Fuzz(func(t *testing.T, data []byte, small bool) {
		var vals []uint16
		if small {
			// Each byte is a value from a 4-letter alphabet, repeated to
			// make long loops.
			for _, b := range data {
				for range int(b>>4) + 1 {
					vals = append(vals, uint16(b&3))
				}
			}
		} else {
			for i := 0; i+1 < len(data); i += 2 {
				vals = append(vals, binary.LittleEndian.Uint16(data[i:]))
			}
		}
		got, err := parlot.ReadAll(bytes.NewReader(parlottest.Encode(t, vals, 1<<30)), "roundtrip", 0)
		if err != nil {
			t.Fatalf("decoding what the writer wrote: %v", err)
		}
		if !slices.Equal(got, vals) {
			t.Fatalf("round trip changed the sequence: %d values in, %d out", len(vals), len(got))
		}
	})
}
