package rank

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// parallel runs fn(0…n-1) on up to workers goroutines (≤ 0: one per CPU).
// Each call writes only its own slot of the caller's results, so the outcome
// does not depend on scheduling. Once a call fails no higher index starts,
// and the error of the lowest failing index is returned.
func parallel(n, workers int, fn func(i int) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	var (
		next   atomic.Int64
		failed atomic.Int64 // lowest failing index + 1, or 0
		wg     sync.WaitGroup
		mu     sync.Mutex
		errs   = map[int]error{}
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if f := failed.Load(); f != 0 && i >= int(f-1) {
					return
				}
				if err := fn(i); err != nil {
					mu.Lock()
					errs[i] = err
					if f := failed.Load(); f == 0 || i < int(f-1) {
						failed.Store(int64(i + 1))
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if f := failed.Load(); f != 0 {
		return errs[int(f-1)]
	}
	return nil
}
