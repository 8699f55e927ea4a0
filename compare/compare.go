package compare

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/summary"
	"github.com/difftrace/difftrace/trace"
)

// Run numbers: the normal run is always 0, the faulty one 1, as nlr.Fold
// numbers loops (normal before faulty); further normal runs, if any, follow
// from 2 on (see Normals).
const (
	Normal = 0
	Faulty = 1
)

// Options tune a comparison.
type Options struct {
	// MaxEvents bounds the events decoded from any one trace (0: the
	// decoder's default).
	MaxEvents uint64
	// Workers is how many goroutines decode traces, fold loops and analyse
	// combinations (0: one per CPU). Results do not depend on it.
	Workers int
	// Progress, if set, is told about long stages (for a progress bar).
	Progress Progress
	// Unrelated allows a normal and a faulty run that look like runs of
	// different programs (see ErrUnrelated); Open refuses them otherwise.
	Unrelated bool
	// ExactPolling counts the repeats of polling calls like any others
	// (see Polling); by default they count nothing.
	ExactPolling bool
	// MixedPrograms reads runs whose processes ran different programs
	// (decode.Options.MixedPrograms).
	MixedPrograms bool
	// ShowSignatures names functions with their full signatures
	// (trace.Table.ShowSignatures) in the comparison's symbol table.
	ShowSignatures bool
	// Wait, when set, is called with each run directory before any is
	// read, to wait for recorders still writing it (record.Waiter).
	Wait func(dir string) error
}

// wait calls Wait, when set, with each of dirs.
func (o Options) wait(dirs ...string) error {
	if o.Wait == nil {
		return nil
	}
	for _, d := range dirs {
		if err := o.Wait(d); err != nil {
			return err
		}
	}
	return nil
}

// Progress follows the long stages of the pipeline. Begin and End are called
// from one goroutine; Step may be called from any goroutine.
type Progress interface {
	Begin(what string, total int)
	Step()
	End()
}

// Comparison is one or two runs opened for analysis with one symbol table:
// the normal run (or the only one) and the faulty run, then, when given,
// further normal runs of the same program, which tell the program's own
// run-to-run variation from the bug (noise floors). Its traces are the
// union of the runs' trace IDs; a trace missing from a run is analysed there
// as a trace with no calls (an empty attribute set).
type Comparison struct {
	Symbols *trace.Table
	Runs    []*decode.Run // Runs[Normal], Runs[Faulty] when comparing, then further normal runs
	IDs     []trace.ID    // union of the runs' thread IDs, ascending
	has     [][]bool      // has[run][i]: IDs[i] exists in that run
	sums    []*summarized // sums[run]: the run's summary, nil when the run is read itself
	opts    Options
	// events, while KeepEvents holds (rank.Suggest judging its candidate
	// views), keeps the events Events reads, so that each trace is read
	// once.
	events atomic.Pointer[eventCache]
	// holders memoises the holder of a trace's first change read on its
	// whole call trees from the start (NLR.changedAlike), by trace and the
	// changes set aside: the same for every view.
	holdersMu sync.Mutex
	holders   map[string][2]uint64
}

// Open opens the run directories dirs (one run, or a normal and a faulty run
// in that order, then any further normal runs) with one shared symbol
// table, so equal names are equal symbols in all.
func Open(dirs []string, opts Options) (*Comparison, error) {
	if len(dirs) < 1 {
		return nil, fmt.Errorf("rank: no run given; give one run, or a normal and a faulty run")
	}
	if err := opts.wait(dirs...); err != nil {
		return nil, err
	}
	c := &Comparison{Symbols: trace.NewTable(), opts: opts}
	c.Symbols.ShowSignatures(opts.ShowSignatures)
	for _, dir := range dirs {
		dopts := decode.Options{MaxEvents: opts.MaxEvents, Workers: opts.Workers, MixedPrograms: opts.MixedPrograms}
		if opts.Progress != nil {
			dopts.Progress = opts.Progress.Step
		}
		var run *decode.Run
		var sm *summarized
		var err error
		if summary.Is(dir) {
			run, sm, err = c.openSummary(dir)
		} else {
			run, err = decode.Open(dir, c.Symbols, dopts)
		}
		if err != nil {
			return nil, err
		}
		c.sums = append(c.sums, sm)
		if len(run.Traces()) == 0 {
			return nil, fmt.Errorf("%s: the run holds no traces; record it again or give another directory", dir)
		}
		c.Runs = append(c.Runs, run)
	}
	seen := map[trace.ID]bool{}
	for _, run := range c.Runs {
		for _, id := range run.Traces() {
			if !seen[id] {
				seen[id] = true
				c.IDs = append(c.IDs, id)
			}
		}
	}
	if !opts.Unrelated {
		if err := c.checkRelated(); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(c.IDs, trace.ID.Compare)
	c.has = make([][]bool, len(c.Runs))
	for r, run := range c.Runs {
		c.has[r] = make([]bool, len(c.IDs))
		for i, id := range c.IDs {
			_, c.has[r][i] = run.Trace(id)
		}
	}
	return c, nil
}

// Dirs are the directories of the runs' traces, in the comparison's order
// (of a run read from its summary, the run the summary was made of).
func (c *Comparison) Dirs() []string {
	var dirs []string
	for _, r := range c.Runs {
		dirs = append(dirs, r.Dir)
	}
	return dirs
}

// Options returns the options the comparison was opened with.
func (c *Comparison) Options() Options { return c.opts }

// Normals returns the runs that are normal: Normal, and the further normal
// runs after the faulty one.
func (c *Comparison) Normals() []int {
	out := []int{Normal}
	for r := Faulty + 1; r < len(c.Runs); r++ {
		out = append(out, r)
	}
	return out
}

// AlsoNormal returns the directories of the further normal runs.
func (c *Comparison) AlsoNormal() []string {
	var out []string
	for _, r := range c.Normals()[1:] {
		out = append(out, c.Runs[r].Dir)
	}
	return out
}

// Has reports whether trace IDs[i] exists in run r.
func (c *Comparison) Has(r, i int) bool { return c.has[r][i] }

// OnlyIn returns the traces that exist in run r and in no other run of the
// comparison (none when there is one run).
func (c *Comparison) OnlyIn(r int) []trace.ID {
	var out []trace.ID
	if len(c.Runs) < 2 || r > Faulty {
		return nil
	}
	for i, id := range c.IDs {
		if c.has[r][i] && !c.has[1-r][i] {
			out = append(out, id)
		}
	}
	return out
}

// IndexesOf returns the positions in IDs of the traces of id: itself, or
// every thread of a process.
func (c *Comparison) IndexesOf(id trace.ID) []int {
	var out []int
	for i, t := range c.IDs {
		if t == id || id.IsProcess() && t.Proc == id.Proc {
			out = append(out, i)
		}
	}
	return out
}

// Index returns the position of id in IDs.
func (c *Comparison) Index(id trace.ID) (int, bool) {
	return slices.BinarySearchFunc(c.IDs, id, trace.ID.Compare)
}

// Processes returns the union of the runs' process IDs (P), ascending.
func (c *Comparison) Processes() []trace.ID {
	var out []trace.ID
	for _, id := range c.IDs {
		p := id.Process()
		if len(out) == 0 || out[len(out)-1] != p {
			out = append(out, p)
		}
	}
	return out
}

// Notes returns what the user should know about the runs: the decoder's
// notes, the pair's (PairNotes) and the traces that exist in one run only.
func (c *Comparison) Notes() []string {
	out := append(c.RunNotes(), c.PairNotes()...)
	names := []string{"normal", "faulty"}
	for r := range min(len(c.Runs), 2) {
		if only := c.OnlyIn(r); len(only) > 0 {
			out = append(out, fmt.Sprintf("traces only in the %s run (%s): %s; they are compared as traces with no calls in the other run",
				names[r], c.Runs[r].Dir, idList(only)))
		}
	}
	return out
}

// PairNotes warns about a normal and a faulty run that look like a
// mistake: runs of programs that have different names (right for two builds
// of one program, meaningless for two programs), or a normal run that ended
// badly while every rank of the faulty one exited with status 0 (the runs
// given in the wrong order).
func (c *Comparison) PairNotes() []string {
	if len(c.Runs) < 2 {
		return nil
	}
	var out []string
	normal, faulty := c.Runs[Normal], c.Runs[Faulty]
	pn, pf := programNames(normal), programNames(faulty)
	if len(pn) > 0 && len(pf) > 0 && !slices.ContainsFunc(pn, func(p string) bool { return slices.Contains(pf, p) }) {
		out = append(out, fmt.Sprintf("the runs are of programs with different names (normal: %s, faulty: %s); their functions are matched by name, which is right for two builds of one program and meaningless for two programs",
			strings.Join(pn, ", "), strings.Join(pf, ", ")))
	}
	if bad, ok := BadEnding(normal); ok && bad != "" {
		if fb, ok := BadEnding(faulty); ok && fb == "" {
			out = append(out, fmt.Sprintf("the normal run %s ended badly (%s) but every rank of the faulty run %s exited with status 0; if they are swapped, give the normal run first",
				normal.Dir, bad, faulty.Dir))
		}
	}
	return out
}

// programNames returns the file names of the programs a run recorded,
// sorted.
func programNames(run *decode.Run) []string {
	var out []string
	for _, p := range run.Procs {
		if p.Program == "" {
			continue
		}
		if n := filepath.Base(p.Program); !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// BadEnding describes the first rank of the run that did not exit with
// status 0, or returns "" if all did; ok is false when the run does not
// record how every rank ended.
func BadEnding(run *decode.Run) (bad string, ok bool) {
	m := run.Manifest
	if m == nil || len(m.Ranks) == 0 {
		return "", false
	}
	for _, r := range m.Ranks {
		switch how := r.Ending(); {
		case !r.Exited && r.Signal == "" && !r.KilledByTimeout:
			return "", false
		case how != "":
			return fmt.Sprintf("rank %d: %s", r.Rank, how), true
		}
	}
	return "", true
}

// RunNotes returns the decoder's notes on the runs, each after its run
// directory: those of opening them, and those of reading their traces so
// far (decode.Run.TraceNotes).
func (c *Comparison) RunNotes() []string {
	var out []string
	for _, run := range c.Runs {
		for _, n := range append(slices.Clip(run.Notes), run.TraceNotes()...) {
			out = append(out, run.Dir+": "+n)
		}
	}
	return out
}

// idList writes IDs as "1.0, 1.1, 5.0".
func idList(ids []trace.ID) string {
	s := ""
	for i, id := range ids {
		if i > 0 {
			s += ", "
		}
		s += id.String()
	}
	return s
}

// Select returns the traces of the comparison a selection names: "" for
// all, or a comma-separated list of "P.T" and "P" (every thread of P that
// exists in any run), without repeats, in ID order. Its errors are
// param.Errors of the parameter "trace".
func (c *Comparison) Select(sel string) ([]trace.ID, error) {
	if strings.TrimSpace(sel) == "" {
		return c.IDs, nil
	}
	want := map[trace.ID]bool{}
	for _, s := range strings.Split(sel, ",") {
		id, err := trace.ParseID(strings.TrimSpace(s))
		if err != nil {
			return nil, param.Errorf("trace", strconv.Quote(sel), "%w", err)
		}
		found := false
		for _, t := range c.IDs {
			if t == id || (id.IsProcess() && t.Proc == id.Proc) {
				want[t] = true
				found = true
			}
		}
		if !found {
			return nil, param.Errorf("trace", id.String(), "no such trace in %s; the traces are %s … %s (see difftrace info)",
				strings.Join(c.Dirs(), " or "), c.IDs[0], c.IDs[len(c.IDs)-1])
		}
	}
	var out []trace.ID
	for _, t := range c.IDs {
		if want[t] {
			out = append(out, t)
		}
	}
	return out, nil
}
