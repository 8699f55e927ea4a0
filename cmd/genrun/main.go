// Command genrun writes a synthetic run directory (package internal/synth):
// the traces of a hybrid MPI+OpenMP stencil solver at any scale, normal or
// with bugs planted at places the seed chooses, which it lists in
// DIR/planted.json. The scale tests and benchmarks of BENCHMARKS.md rank
// such runs.
//
//	go run ./cmd/genrun -procs 256 -threads 4 -events 10000 -o normal
//	go run ./cmd/genrun -procs 256 -threads 4 -events 10000 -faulty -o faulty
//	difftrace rank normal faulty
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/difftrace/difftrace/internal/synth"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("genrun", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var spec synth.Spec
	var out, bugs string
	fs.IntVar(&spec.Procs, "procs", 16, "processes (MPI ranks) on a square grid")
	fs.IntVar(&spec.Threads, "threads", 4, "threads per process: a master and threads-1 OpenMP workers")
	fs.IntVar(&spec.Events, "events", 10000, "events (call entries and exits) per trace, at least")
	fs.IntVar(&spec.Rows, "rows", 16, "kernel calls per time step of a master")
	fs.Uint64Var(&spec.Seed, "seed", 1, "seed of the workers' loop counts and of where bugs are planted; a normal and a faulty run of one seed differ only by the bugs")
	fs.BoolVar(&spec.Faulty, "faulty", false, "plant bugs (see -bugs) and list them in DIR/planted.json")
	fs.StringVar(&bugs, "bugs", "race,skip-phase,hang", "with -faulty, the bugs to plant, one of each kind in a process the seed picks: "+kindList())
	fs.StringVar(&out, "o", "", "the run directory to write (required)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `genrun writes a synthetic run directory — ParLOT traces, function tables and
run.json, as difftrace capture records them — of a hybrid MPI+OpenMP stencil
solver: per process, a master that repeats time steps (kernel calls, a halo
exchange with its 2-4 grid neighbours: MPI_Irecv, MPI_Isend, MPI_Waitall, and
an MPI_Allreduce) and OpenMP workers (CPU_Exec a varying number of times, then
an update inside a critical section). With -faulty it plants bugs where the
seed says and lists them in DIR/planted.json as
{"traces": ["P.T", ...], "processes": [P, ...], "bugs": [...]}:

  race          a worker leaves out its critical sections from mid-run on
  skip-phase    a master leaves out its halo exchange in one step
  extra-kernel  a master runs one more kernel per step from mid-run on
  hang          a master stops inside MPI_Waitall halfway; its neighbours and then
                everyone else stop one step later, and the run reads as timed out

Usage: genrun -procs P -threads T -events E [-rows R] [-seed S] [-faulty [-bugs LIST]] -o DIR

`)
		fs.PrintDefaults()
		fmt.Fprintf(stderr, `
Example, a pair of 4,096 traces, then the ranking:
  go run ./cmd/genrun -procs 1024 -threads 4 -events 10000 -o normal
  go run ./cmd/genrun -procs 1024 -threads 4 -events 10000 -faulty -o faulty
  difftrace rank normal faulty
`)
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "genrun: unexpected argument %q (flags only; see genrun -help)\n", fs.Arg(0))
		return 2
	}
	if out == "" {
		fmt.Fprintln(stderr, "genrun: -o DIR is required: the run directory to write")
		return 2
	}
	if spec.Faulty {
		var kinds []synth.Kind
		for _, b := range strings.Split(bugs, ",") {
			k := synth.Kind(strings.TrimSpace(b))
			if !validKind(k) {
				fmt.Fprintf(stderr, "genrun: -bugs: unknown bug %q; want some of %s\n", b, kindList())
				return 2
			}
			kinds = append(kinds, k)
		}
		spec.Bugs = synth.Plant(spec, kinds...)
	}
	if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
		fmt.Fprintf(stderr, "genrun: %s is not empty; give a new directory (genrun does not overwrite runs)\n", out)
		return 1
	}
	n, err := synth.Write(out, spec)
	if err != nil {
		fmt.Fprintf(stderr, "genrun: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s: %d processes × %d threads, %d events\n", out, spec.Procs, spec.Threads, n)
	for _, b := range spec.Bugs {
		fmt.Fprintf(stdout, "planted %s in %s\n", b.Kind, b.Trace())
	}
	return 0
}

func validKind(k synth.Kind) bool {
	for _, x := range synth.Kinds {
		if x == k {
			return true
		}
	}
	return false
}

func kindList() string {
	var s []string
	for _, k := range synth.Kinds {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}
