package memlimit

import (
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
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
