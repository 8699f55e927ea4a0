// Package memlimit fits difftrace to the address-space limit it runs
// under (ulimit -v, RLIMIT_AS), common on shared login and compute nodes.
//
// The Go runtime reserves a large part of its address space when it starts
// (about 750 MB of the 1 GB of ulimit -v 1000000, none of it memory in
// use), and it cannot recover when an allocation then fails: the process
// ends in "fatal error: out of memory" and a dump of every goroutine. So
// Apply tells the collector how much room is really left (the memory
// limit, below which it collects harder rather than grow the heap), and
// Check lets a reader refuse, in one line, a table it can tell will not fit
// before it allocates it.
package memlimit

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// DefaultLimit is the soft limit of the Go heap when neither GOMEMLIMIT
// nor an address-space limit sets one: the collector then works to keep
// the process near what is live (a few hundred MB for a ranking of 16,384
// traces) instead of letting the heap grow to twice that between
// collections, which on such a run had reached 5.4 GB. A run that needs
// more still gets it.
const DefaultLimit = 3 << 30

// share is the part of the room left under the address-space limit that
// the heap may use: the rest is for the runtime's own growth (its
// metadata, the 64 MB steps in which it maps heap, thread stacks).
const share = 0.75

// Room returns the room left for the heap under the address-space limit
// (the limit less what the process has mapped or reserved now, plus the
// heap's mapped pages that hold nothing) and the limit itself; ok is false
// when there is no limit.
func Room() (room, limit uint64, ok bool) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil || rl.Cur == math.MaxUint64 || int64(rl.Cur) < 0 {
		return 0, 0, false
	}
	used, err := mapped()
	if err != nil {
		return 0, 0, false
	}
	free := heapFree()
	if used >= rl.Cur+free {
		return 0, rl.Cur, true
	}
	return rl.Cur + free - used, rl.Cur, true
}

// heapFree returns the bytes of the heap's address space that hold no
// object and can take new ones without mapping more.
func heapFree() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/free:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	var n uint64
	for _, v := range s {
		if v.Value.Kind() == metrics.KindUint64 {
			n += v.Value.Uint64()
		}
	}
	return n
}

// mapped returns the address space the process has mapped or reserved
// (VmSize), from /proc/self/statm.
func mapped() (uint64, error) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("/proc/self/statm: empty")
	}
	pages, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		return 0, err
	}
	return pages * uint64(os.Getpagesize()), nil
}

// Apply sets the Go runtime's memory limit, unless GOMEMLIMIT sets it: a
// share of the room left under the address-space limit, if there is one
// and it is smaller than DefaultLimit, else DefaultLimit. It returns the
// limit set (0 if GOMEMLIMIT rules).
//
// The limit then follows the live heap: after each collection it is raised
// to a quarter above what is live when that is more (never above the share
// of the room under an address-space limit), and lowered back as the live
// heap shrinks. A fixed limit below the live heap would have the collector
// run back to back, taking up to half the CPU (a ranking of a million
// traces holds several GB live).
func Apply() int64 {
	if os.Getenv("GOMEMLIMIT") != "" {
		following.Store(nil)
		return 0
	}
	limit := int64(DefaultLimit)
	ceiling := int64(math.MaxInt64)
	if room, _, ok := Room(); ok {
		ceiling = int64(float64(room) * share)
		limit = min(limit, ceiling)
	}
	debug.SetMemoryLimit(limit)
	follow(limit, ceiling)
	return limit
}

// headroom is the share of the live heap the heap may grow by before a
// collection once the live heap is above DefaultLimit.
const headroom = 0.25

// follow has the memory limit follow the live heap after every collection
// from now on (see Apply), between floor and ceiling.
func follow(floor, ceiling int64) {
	following.Store(&follower{floor: floor, ceiling: ceiling})
	watching.Do(func() { runtime.SetFinalizer(new(sentinel), afterGC) })
}

var (
	following atomic.Pointer[follower] // nil: the limit is left alone
	watching  sync.Once
)

type follower struct{ floor, ceiling int64 }

// sentinel is garbage as soon as it is made: its finalizer runs after the
// next collection and makes another.
type sentinel struct{ _ *byte }

func afterGC(*sentinel) {
	if f := following.Load(); f != nil {
		f.adjust(liveHeap())
	}
	runtime.SetFinalizer(new(sentinel), afterGC)
}

// adjust sets the limit for a live heap of live bytes.
func (f *follower) adjust(live uint64) int64 {
	want := min(max(f.floor, int64(float64(live)*(1+headroom))), f.ceiling)
	if debug.SetMemoryLimit(-1) != want {
		debug.SetMemoryLimit(want)
	}
	return want
}

// liveHeap returns the bytes the last collection found live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// Check refuses, under an address-space limit, a step that needs about
// need bytes more than the room left allows; what names the step, as
// "trace.0.info: the function table (180 MB, 60000 names)". Without a
// limit it never refuses: the system's own memory is then the bound.
func Check(what string, need uint64) error {
	room, limit, ok := Room()
	if !ok || float64(need) <= float64(room)*share {
		return nil
	}
	return fmt.Errorf("%s needs about %d MB of memory, and the address-space limit (ulimit -v %d) leaves about %d MB: raise the limit (ulimit -v unlimited, or a larger one) or run on a node with room",
		what, mb(need), limit>>10, mb(uint64(float64(room)*share)))
}

func mb(n uint64) uint64 { return (n + 1<<20 - 1) >> 20 }
