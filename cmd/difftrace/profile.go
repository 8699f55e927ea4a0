package main

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/internal/atomicfile"
)

// profileFlags are the hidden --cpuprofile and --memprofile every command
// takes, for a user who reports that difftrace is slow or large on their
// runs: go tool pprof reads the files.
type profileFlags struct {
	cpu, mem string
	cpuFile  *atomicfile.File
	stopMem  chan struct{}
	memDone  chan error
}

func (p *profileFlags) register(root *cobra.Command) {
	fl := root.PersistentFlags()
	fl.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile of the command to this file (go tool pprof reads it)")
	fl.StringVar(&p.mem, "memprofile", "", "write a heap profile, taken when the live heap was largest, to this file")
	fl.MarkHidden("cpuprofile")
	fl.MarkHidden("memprofile")
}

func (p *profileFlags) start() error {
	if p.mem != "" {
		p.stopMem, p.memDone = make(chan struct{}), make(chan error, 1)
		go p.watchHeap()
	}
	if p.cpu == "" {
		return nil
	}
	// As every output: whole or not at all, and through no link or pipe
	// another user planted.
	f, err := atomicfile.Create(p.cpu)
	if err != nil {
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	f.NoSync()
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Abort()
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	p.cpuFile = f
	return nil
}

func (p *profileFlags) stop() error {
	if p.cpuFile != nil {
		pprof.StopCPUProfile()
		if err := p.cpuFile.Commit(); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
	}
	if p.mem == "" {
		return nil
	}
	close(p.stopMem)
	return <-p.memDone
}

// watchHeap writes the heap profile each time the live heap has grown by a
// tenth over the largest seen, so that the file shows the heap near its
// peak, whatever the command frees before it ends.
func (p *profileFlags) watchHeap() {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var best uint64
	var err error
	write := func() error {
		f, err := atomicfile.Create(p.mem)
		if err != nil {
			return fmt.Errorf("--memprofile: %w", err)
		}
		f.NoSync()
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			f.Abort()
			return fmt.Errorf("--memprofile: %w", err)
		}
		if err := f.Commit(); err != nil {
			return fmt.Errorf("--memprofile: %w", err)
		}
		return nil
	}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-p.stopMem:
			if best == 0 {
				runtime.GC()
				err = write()
			}
			p.memDone <- err
			return
		case <-tick.C:
			metrics.Read(sample)
			if live := sample[0].Value.Uint64(); live > best+best/10 && err == nil {
				best = live
				err = write()
			}
		}
	}
}
