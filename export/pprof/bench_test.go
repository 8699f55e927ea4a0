package pprof_test

import (
	"testing"

	"github.com/difftrace/difftrace/internal/exporttest"
)

// Counting a trace's call paths, then writing the profile.
func BenchmarkTrace(b *testing.B) { exporttest.Pprof.Bench(b) }
