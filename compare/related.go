package compare

import (
	"errors"
	"github.com/difftrace/difftrace/internal/param"
	"slices"
	"strings"
	"sync"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/trace"
)

// minShared is the least share of functions two runs of one program have in
// common (of the run that names fewer): a run that crashed or hung early
// calls a subset of what the normal run calls, so it shares nearly all of
// its own; two different programs share little beyond main.
const minShared = 0.5

// ErrUnrelated is wrapped by the error of Open for a normal and a faulty
// run that look like runs of different programs.
var ErrUnrelated = errors.New("the runs look like runs of different programs")

// libraryAPI keeps the calls of well-known library interfaces (MPI,
// OpenMP, memory, strings, sockets, polling): any two MPI programs share
// those, so they say nothing about whether two runs are of one program.
var libraryAPI = sync.OnceValue(func() *filters.Filter { return filters.MustParse("mpi+omp+omp.mutex+mem+net+poll+str") })

// checkRelated refuses a pair of runs whose programs share too few of their
// own functions (minShared) to be two runs of one program. A program's own
// functions are those its function tables name, less main and the calls of
// well-known library interfaces (libraryAPI), which unrelated programs
// share too. With fewer than two such functions in either run there is
// nothing to judge by, and the pair is taken as it is.
func (c *Comparison) checkRelated() error {
	for r := Faulty; r < len(c.Runs); r++ {
		if err := c.checkPair(r); err != nil {
			return err
		}
	}
	return nil
}

// checkPair checks that run r and the normal run are runs of one program.
func (c *Comparison) checkPair(r int) error {
	own := func(run *decode.Run) []trace.Symbol {
		var out []trace.Symbol
		for _, s := range run.Functions() {
			if n := c.Symbols.Name(s); n.Func != "main" && !libraryAPI().KeepName(n) {
				out = append(out, s)
			}
		}
		return out
	}
	n, f := own(c.Runs[Normal]), own(c.Runs[r])
	if len(n) < 2 || len(f) < 2 {
		return nil
	}
	var shared []trace.Symbol
	for _, s := range n {
		if _, ok := slices.BinarySearch(f, s); ok {
			shared = append(shared, s)
		}
	}
	least := min(len(n), len(f))
	if float64(len(shared)) >= minShared*float64(least) {
		return nil
	}
	var names []string
	for _, s := range shared[:min(len(shared), 5)] {
		names = append(names, c.Symbols.Label(s))
	}
	list := ""
	if len(shared) > 0 {
		list = " (" + strings.Join(names, ", ")
		if len(shared) > len(names) {
			list += ", …"
		}
		list += ")"
	}
	which := "faulty run"
	if r > Faulty {
		which = "other normal run"
	}
	return param.Advise("%w: the normal run %s (%s) calls %d functions of its own and the %s %s (%s) %d, and they share only %d%s; give runs of one program, or {set Options.Unrelated} to compare them anyway",
		ErrUnrelated, c.Runs[Normal].Dir, c.Runs[Normal].ProgramName(), len(n),
		which, c.Runs[r].Dir, c.Runs[r].ProgramName(), len(f), len(shared), list)
}
