// Package parallel runs the independent steps of a computation on several
// goroutines so that the result does not depend on scheduling: each step
// writes only its own slot of the caller's results, and errors are reported
// by index, not by arrival.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For runs fn(0…n-1) on up to workers goroutines (≤ 0: one per CPU).
// Indexes are handed out in increasing order; once one fails, no higher
// index starts, and the lowest failing index's error is returned (every
// lower index has started and is waited for).
func For(n, workers int, fn func(i int) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	var (
		next   atomic.Int64
		failed atomic.Int64 // lowest failing index + 1, 0 while none
		mu     sync.Mutex
		errs   = map[int]error{}
		wg     sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if f := failed.Load(); f != 0 && int64(i) >= f-1 {
					return
				}
				if err := fn(i); err != nil {
					mu.Lock()
					errs[i] = err
					if f := failed.Load(); f == 0 || int64(i) < f-1 {
						failed.Store(int64(i) + 1)
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if f := failed.Load(); f != 0 {
		return errs[int(f-1)]
	}
	return nil
}

// Each runs fn(0…n-1), which cannot fail, on up to workers goroutines
// (≤ 0: one per CPU).
func Each(n, workers int, fn func(i int)) {
	For(n, workers, func(i int) error { fn(i); return nil })
}
