package decode

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReader checks that no input makes the reader panic or run past its
// event limit, and that every failure is one of the reader's own errors.
func FuzzReader(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join(fixtureDir, "edge", "*.bin"))
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil && len(b) < 4096 {
			f.Add(b)
		}
	}
	f.Add([]byte{})
	f.Add([]byte{0xff, 1, 2, 3, 4, 5, 6, 7, 8, 4})
	const limit = 1 << 20
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), "fuzz", limit)
		buf := make([]uint16, 1000)
		total := 0
		for {
			n, err := r.Read(buf)
			total += n
			if total > limit {
				t.Fatalf("decoded %d values past the limit %d", total, limit)
			}
			if err == io.EOF {
				return
			}
			if err != nil {
				var ce *CorruptError
				var le *LimitError
				if !errors.As(err, &ce) && !errors.As(err, &le) {
					t.Fatalf("unexpected error type %T: %v", err, err)
				}
				return
			}
		}
	})
}
