package chrome_test

import (
	"testing"

	"github.com/difftrace/difftrace/internal/exporttest"
)

// The encoder alone: a trace's events in chunks as decode hands them over,
// to JSON, every call shown.
func BenchmarkTrack(b *testing.B) { exporttest.Chrome.Bench(b) }
