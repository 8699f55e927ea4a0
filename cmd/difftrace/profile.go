package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/internal/selfprofile"
)

// profileFlags are the hidden --cpuprofile and --memprofile every command
// takes, for a user who reports that difftrace is slow or large on their
// runs: go tool pprof reads the files.
type profileFlags struct {
	cpu, mem string
	cpuProf  *selfprofile.CPU
	heap     *selfprofile.Heap
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
		p.heap = selfprofile.WatchHeap(p.mem)
	}
	if p.cpu == "" {
		return nil
	}
	c, err := selfprofile.StartCPU(p.cpu)
	if err != nil {
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	p.cpuProf = c
	return nil
}

func (p *profileFlags) stop() error {
	if p.cpuProf != nil {
		if err := p.cpuProf.Stop(); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
	}
	if p.heap == nil {
		return nil
	}
	if err := p.heap.Stop(); err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	return nil
}
