package parallel

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

// TestForErrorIsDeterministic: whatever the scheduling, the error of the
// lowest failing index is returned, and no index runs twice.
func TestForErrorIsDeterministic(t *testing.T) {
	for range 50 {
		var calls [100]atomic.Int32
		err := For(100, 4, func(i int) error {
			calls[i].Add(1)
			if i%7 == 3 {
				return fmt.Errorf("e%d", i)
			}
			return nil
		})
		if err == nil || err.Error() != "e3" {
			t.Fatalf("got %v, want e3", err)
		}
		for i := range 4 {
			if calls[i].Load() != 1 {
				t.Fatalf("index %d ran %d times, want once (every index below the failure runs)", i, calls[i].Load())
			}
		}
	}
	if err := For(0, 4, func(int) error { return errors.New("x") }); err != nil {
		t.Fatal(err)
	}
}

// TestEachRunsEveryIndexOnce, on one worker and on several.
func TestEachRunsEveryIndexOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 64} {
		var calls [1000]atomic.Int32
		Each(len(calls), workers, func(i int) { calls[i].Add(1) })
		for i := range calls {
			if calls[i].Load() != 1 {
				t.Fatalf("workers %d: index %d ran %d times", workers, i, calls[i].Load())
			}
		}
	}
}
