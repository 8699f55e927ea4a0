package mutation

import (
	"fmt"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/diffnlr"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/internal/parallel"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// Base is a normal run opened for mutation: every trace decoded into
// memory, with one symbol table.
type Base struct {
	Dir     string
	Run     *decode.Run
	Symbols *trace.Table
	IDs     []trace.ID
	Events  [][]trace.Symbol
	// RunWide, when set, makes WriteRun plant a run-wide change besides
	// the mutation: in the main thread of every process, a copy of main's
	// first leaf call right at main's start, as parsing a bug's flag on
	// every rank adds calls the normal run does not make. rank sets such
	// changes aside; the answer stays the mutation's.
	RunWide bool
	trees   []*Tree
}

// OpenBase reads the run in dir.
func OpenBase(dir string) (*Base, error) {
	tab := trace.NewTable()
	run, err := decode.Open(dir, tab, decode.Options{})
	if err != nil {
		return nil, fmt.Errorf("mutation: %w", err)
	}
	ids := run.Traces()
	trs, err := run.Load(ids)
	if err != nil {
		return nil, fmt.Errorf("mutation: %s: %w", dir, err)
	}
	b := &Base{Dir: dir, Run: run, Symbols: tab, IDs: ids, Events: make([][]trace.Symbol, len(trs)), trees: make([]*Tree, len(trs))}
	for i, tr := range trs {
		b.Events[i] = tr.Events
	}
	poll := compare.Polling().Compile(tab).Keep
	parallel.Each(len(trs), 0, func(i int) {
		b.trees[i] = NewTree(b.Events[i])
		b.trees[i].Polling = poll
	})
	return b, nil
}

// Tree returns the call tree of trace i.
func (b *Base) Tree(i int) *Tree { return b.trees[i] }

// Index returns the position of trace id in IDs.
func (b *Base) Index(id trace.ID) (int, bool) {
	i := slices.Index(b.IDs, id)
	return i, i >= 0
}

// Name names a symbol as explanations do (trace.Table.Label).
func (b *Base) Name(s trace.Symbol) string { return b.Symbols.Label(s) }

// View is the filter and K an explanation is made under.
type View struct {
	Filter *filters.Filter
	K      int
}

func (v View) String() string { return fmt.Sprintf("%s, K %d", v.Filter.Name(), v.K) }

// Explanation is what the explanation machinery says of where a faulty
// trace parts from its normal run.
type Explanation struct {
	// Parted is false when the machinery finds no difference under the
	// view.
	Parted bool
	Ex     diffnlr.Explanation
	// Stack is the call stack the sentence gives: the callers of the call
	// that differs, outermost first.
	Stack []trace.Symbol
	// Text is the first-difference sentence.
	Text string
	// View is the view the explanation was made under.
	View string
}

// Explainer explains mutations of a base run's traces under one view, in
// memory: the steps of difftrace diffnlr's first difference for a
// comparison of the base run (normal) with the base run where one trace is
// the mutated one (faulty), without writing or reading run directories
// (see the package documentation for how it follows rank.Recognize and
// what checks that it says what the files say).
type Explainer struct {
	base *Base
	view View
	mask *filters.Mask
	poll func(trace.Symbol) bool
	// pass1[i] is trace i's pass-1 NLR under the view, encoded.
	pass1 [][]byte
}

// Explainer returns an explainer of b's traces under v.
func (b *Base) Explainer(v View) (*Explainer, error) {
	if _, err := nlr.NewDiscoverer(v.K); err != nil {
		return nil, fmt.Errorf("mutation: %w", err)
	}
	e := &Explainer{base: b, view: v, mask: v.Filter.Compile(b.Symbols)}
	// As compare.Comparison.discoverers: polling calls are read once a
	// stretch where the filter keeps any.
	pm := compare.Polling().Compile(b.Symbols)
	for s := range b.Symbols.Len() {
		if pm.Keep(trace.Symbol(s)) && e.mask.Keep(trace.Symbol(s)) {
			e.poll = pm.Keep
			break
		}
	}
	e.pass1 = make([][]byte, len(b.IDs))
	for i := range b.IDs {
		var err error
		if e.pass1[i], err = e.passOne(b.Events[i]); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// passOne returns the encoded pass-1 NLR of a trace's events under the
// view, as compare.Comparison.passOne makes it: the events filtered in
// chunks by filters.Nests into a structural discoverer.
func (e *Explainer) passOne(events []trace.Symbol) ([]byte, error) {
	nests, err := filters.NewNests([]*filters.Mask{e.mask})
	if err != nil {
		return nil, fmt.Errorf("mutation: %w", err)
	}
	d, err := nlr.NewStructuralDiscoverer(e.view.K, e.mask.Keep, e.view.Filter.KeepsReturns())
	if err != nil {
		return nil, fmt.Errorf("mutation: %w", err)
	}
	if e.poll != nil {
		d.QuietPolling(e.poll)
	}
	for from := 0; from < len(events); from += decode.ChunkSize {
		nests.Append(events[from:min(from+decode.ChunkSize, len(events))])
		if out := nests.Out[0]; len(out) > 0 {
			d.PushEvents(out)
		}
	}
	d.Seal()
	b, err := d.AppendBinary(nil)
	if err != nil {
		return nil, fmt.Errorf("mutation: %w", err)
	}
	return b, nil
}

func sameSymbol(s trace.Symbol) (trace.Symbol, bool) { return s, true }

// Explain says where trace i of the base run, mutated into the events
// mutated, parts from the base run's trace i.
func (e *Explainer) Explain(i int, mutated []trace.Symbol) (Explanation, error) {
	b := e.base
	own, err := e.passOne(mutated)
	if err != nil {
		return Explanation{}, err
	}
	// As compare.Comparison.Recognize: each run's distinct pass-1 NLRs are
	// folded once, normal run first, traces in ID order.
	var ds []nlr.Discovered
	at := [2]int{-1, -1} // the folded sequence of trace i in each run
	for r := range 2 {
		first := map[string]int{}
		for j, id := range b.IDs {
			enc := e.pass1[j]
			if r == compare.Faulty && j == i {
				enc = own
			}
			x, ok := first[string(enc)]
			if !ok {
				d, err := nlr.UnmarshalDiscoverer(enc, sameSymbol)
				if err != nil {
					return Explanation{}, fmt.Errorf("mutation: trace %s: %w", id, err)
				}
				x = len(ds)
				first[string(enc)] = x
				ds = append(ds, nlr.Discovered{Run: r, ID: id, D: d})
			}
			if j == i {
				at[r] = x
			}
		}
	}
	seqs, table, err := nlr.Fold(ds, 1)
	if err != nil {
		return Explanation{}, fmt.Errorf("mutation: %w", err)
	}
	ex := Explanation{View: e.view.String()}
	normal, faulty := seqs[at[compare.Normal]], seqs[at[compare.Faulty]]
	w := diffnlr.Whole{Normal: b.Events[i], Faulty: mutated, Keep: e.mask.Keep, Poll: e.poll, Filter: e.view.Filter.Name()}
	x, ok := diffnlr.Explain(table, normal, faulty, w)
	if !ok {
		return ex, nil
	}
	ex.Parted, ex.Ex, ex.Stack = true, x, x.Stack
	ex.Text = x.Text(b.Symbols.Label)
	return ex, nil
}

// labels names the symbols of a stack.
func labels(tab *trace.Table, stack []trace.Symbol) []string {
	var out []string
	for _, s := range stack {
		out = append(out, tab.Label(s))
	}
	return out
}

// joinStack writes a call stack as the sentence does.
func joinStack(names []string) string { return strings.Join(names, " > ") }
