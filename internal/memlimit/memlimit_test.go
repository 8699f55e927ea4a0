package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Under an address-space limit, Apply sets the memory limit to a share of
// the room left, and Check refuses what does not fit, in one line; without
// a limit neither does anything.
func TestUnderAddressSpaceLimit(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &old); err != nil {
		t.Fatal(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_AS, &old)
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	t.Setenv("GOMEMLIMIT", "")

	used, err := mapped()
	if err != nil {
		t.Fatal(err)
	}
	if old.Cur != ^uint64(0) && old.Cur < used+(1<<30) {
		t.Skipf("SKIPPING: the test runs under an address-space limit (%d) too low to lower", old.Cur)
	}
	lim := syscall.Rlimit{Cur: used + 400<<20, Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		t.Fatal(err)
	}
	set := Apply()
	room := int64(400<<20 + heapFree()) // and what the heap holds free
	if got := debug.SetMemoryLimit(-1); got != set || set < 200<<20 || set > room*3/4+1<<20 {
		t.Errorf("memory limit %d (Apply said %d), want about 3/4 of the %d bytes left", got, set, room)
	}
	if err := Check("t.info: the function table", 100<<20); err != nil {
		t.Errorf("100 MB of 400 MB refused: %v", err)
	}
	err = Check("t.info: the function table", 600<<20)
	if err == nil || strings.Contains(err.Error(), "\n") ||
		!strings.HasPrefix(err.Error(), "t.info: the function table needs about 600 MB of memory, and the address-space limit (ulimit -v ") {
		t.Errorf("600 MB of 400 MB: %v", err)
	}

	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &old); err != nil {
		t.Fatal(err)
	}
	if old.Cur == ^uint64(0) {
		if set := Apply(); set != DefaultLimit {
			t.Errorf("without a limit: memory limit %d, want %d", set, int64(DefaultLimit))
		}
		if err := Check("huge", 1<<50); err != nil {
			t.Errorf("without a limit: %v", err)
		}
	}
}

// The limit follows the live heap: a quarter above it once it outgrows the
// floor, never under the floor nor over the ceiling.
func TestFollowerBounds(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	f := &follower{floor: 100 << 20, ceiling: 1 << 30}
	for _, c := range []struct {
		live uint64
		want int64
	}{
		{10 << 20, 100 << 20},
		{80 << 20, 100 << 20},
		{400 << 20, 500 << 20},
		{900 << 20, 1 << 30},
		{50 << 20, 100 << 20},
	} {
		if got := f.adjust(c.live); got != c.want || debug.SetMemoryLimit(-1) != c.want {
			t.Errorf("live %d MB: limit %d, want %d", c.live>>20, got, c.want)
		}
	}
}

// After a collection that finds more live than the floor, the limit has
// been raised above the live heap, by the collector's own hook.
func TestLimitFollowsAfterGC(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer following.Store(following.Load())
	debug.SetMemoryLimit(32 << 20)
	follow(32<<20, math.MaxInt64)
	live := make([][]byte, 64)
	for i := range live {
		live[i] = make([]byte, 4<<20) // 256 MB live
	}
	for range 200 {
		runtime.GC()
		if debug.SetMemoryLimit(-1) >= 256<<20 {
			break
		}
		time.Sleep(10 * time.Millisecond) // the hook runs on the finalizer goroutine
	}
	if got := debug.SetMemoryLimit(-1); got < 256<<20 {
		t.Errorf("limit %d MB with 256 MB live, want above the live heap", got>>20)
	}
	runtime.KeepAlive(live)
}
