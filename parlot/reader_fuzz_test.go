package parlot_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/difftrace/difftrace/parlot"
)

// FuzzReader checks that no input makes the reader panic or run past its
// event limit, that every failure is one of the reader's own errors, and
// that with a function table of funcs IDs (checked) no value above funcs
// comes out.
func FuzzReader(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join(fixtureDir, "edge", "*.bin"))
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil && len(b) < 4096 {
			f.Add(b, false, uint16(0))
			f.Add(b, true, uint16(3))
		}
	}
	f.Add([]byte{}, false, uint16(0))
	f.Add([]byte{0xff, 1, 2, 3, 4, 5, 6, 7, 8, 4}, true, uint16(2))
	const limit = 1 << 17
	f.Fuzz(func(t *testing.T, data []byte, checked bool, funcs uint16) {
		r := parlot.NewReader(bytes.NewReader(data), "fuzz", limit)
		if checked {
			r.CheckIDs(int(funcs), "fuzz.info")
		}
		buf := make([]uint16, 1000)
		total := 0
		for {
			n, err := r.Read(buf)
			total += n
			if total > limit {
				t.Fatalf("decoded %d values past the limit %d", total, limit)
			}
			if checked {
				for _, v := range buf[:n] {
					if v > funcs {
						t.Fatalf("value %d passed a check for IDs up to %d", v, funcs)
					}
				}
			}
			if err == io.EOF {
				return
			}
			if err != nil {
				var ce *parlot.CorruptError
				var le *parlot.LimitError
				var ue *parlot.UnknownIDError
				if !errors.As(err, &ce) && !errors.As(err, &le) && !(checked && errors.As(err, &ue)) {
					t.Fatalf("unexpected error type %T: %v", err, err)
				}
				return
			}
		}
	})
}
