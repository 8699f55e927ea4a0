// Package selfprofile profiles difftrace itself, for a user who reports
// that it is slow or large on their runs: a CPU profile of a command, and
// a heap profile taken when the live heap was largest. go tool pprof reads
// both. Like every output, a profile is written whole or not at all, and
// through no link or pipe another user planted (atomicfile).
package selfprofile

import (
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"

	"github.com/difftrace/difftrace/internal/atomicfile"
)

// CPU is a CPU profile being taken.
type CPU struct {
	f *atomicfile.File
}

// StartCPU starts a CPU profile of the process, written to path by Stop.
func StartCPU(path string) (*CPU, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	f.NoSync()
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Abort()
		return nil, err
	}
	return &CPU{f: f}, nil
}

// Stop ends the profile and puts its file in place.
func (c *CPU) Stop() error {
	pprof.StopCPUProfile()
	return c.f.Commit()
}

// Heap watches the live heap and writes a heap profile each time it has
// grown by a tenth over the largest seen, so that the file shows the heap
// near its peak, whatever the process frees before it ends.
type Heap struct {
	path string
	stop chan struct{}
	done chan error
}

// WatchHeap starts watching the heap, for a profile written to path.
func WatchHeap(path string) *Heap {
	h := &Heap{path: path, stop: make(chan struct{}), done: make(chan error, 1)}
	go h.watch()
	return h
}

// Stop ends the watch, writing a profile if none was written yet, and
// returns the first error writing one.
func (h *Heap) Stop() error {
	close(h.stop)
	return <-h.done
}

func (h *Heap) watch() {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var best uint64
	var err error
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-h.stop:
			if best == 0 {
				runtime.GC()
				err = h.write()
			}
			h.done <- err
			return
		case <-tick.C:
			metrics.Read(sample)
			if live := sample[0].Value.Uint64(); live > best+best/10 && err == nil {
				best = live
				err = h.write()
			}
		}
	}
}

// write writes the heap profile.
func (h *Heap) write() error {
	f, err := atomicfile.Create(h.path)
	if err != nil {
		return err
	}
	f.NoSync()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
