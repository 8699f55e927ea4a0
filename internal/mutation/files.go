package mutation

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/parlot"
	"github.com/difftrace/difftrace/rank"
	"github.com/difftrace/difftrace/trace"
)

// WriteRun writes into dir (which must not exist) the base run with trace i
// mutated by m: every file copied, trace i's file rewritten with the ParLOT
// writer from its raw values mutated as its events are, and run.json
// updated (the trace's events and bytes; for OpCut, its rank timed out in
// the call the trace ends in, as capture records a hang).
func (b *Base) WriteRun(dir string, i int, m *Mutation) error {
	tf, ok := b.Run.Trace(b.IDs[i])
	if !ok {
		return fmt.Errorf("mutation: %s: no trace %s", b.Dir, b.IDs[i])
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("mutation: %w", err)
	}
	entries, err := os.ReadDir(b.Dir)
	if err != nil {
		return fmt.Errorf("mutation: %w", err)
	}
	// The main threads' traces, where a run-wide change is planted.
	mains := map[string]bool{}
	if b.RunWide {
		for _, id := range b.IDs {
			if t, ok := b.Run.Trace(id); ok && id.Thread == 0 {
				mains[filepath.Clean(t.Path)] = true
			}
		}
	}
	for _, en := range entries {
		name := en.Name()
		from := filepath.Join(b.Dir, name)
		if !en.Type().IsRegular() || name == decode.ManifestName || strings.HasPrefix(name, ".") || from == filepath.Clean(tf.Path) {
			continue
		}
		if mains[from] {
			vals, err := readValues(from)
			if err != nil {
				return err
			}
			if _, err := writeValues(filepath.Join(dir, name), runWide(vals)); err != nil {
				return err
			}
			continue
		}
		if err := copyFile(from, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	// The trace: its raw values, one per event, mutated alike.
	vals, err := readValues(tf.Path)
	if err != nil {
		return err
	}
	if len(vals) != len(b.Events[i]) {
		return fmt.Errorf("mutation: %s: %d values but %d events", tf.Path, len(vals), len(b.Events[i]))
	}
	vals = Apply(m, vals)
	if mains[filepath.Clean(tf.Path)] {
		vals = runWide(vals)
	}
	st, err := writeValues(filepath.Join(dir, filepath.Base(tf.Path)), vals)
	if err != nil {
		return err
	}
	man := b.Run.Manifest
	if man == nil {
		return nil
	}
	mc := *man
	mc.Ranks = slices.Clone(man.Ranks)
	for r := range mc.Ranks {
		rk := &mc.Ranks[r]
		if rk.Rank != b.IDs[i].Proc {
			continue
		}
		rk.Threads = slices.Clone(rk.Threads)
		for t := range rk.Threads {
			if rk.Threads[t].Thread == b.IDs[i].Thread {
				rk.Threads[t].Events = uint64(len(vals))
				rk.Threads[t].Bytes = st.Size()
			}
		}
		if m.Op == OpCut {
			rk.Exited, rk.ExitStatus, rk.KilledByTimeout = false, 0, true
			rk.Status = "timed out in " + b.Symbols.Name(m.Want.Call).Brief()
		}
	}
	js, err := json.MarshalIndent(&mc, "", "  ")
	if err != nil {
		return fmt.Errorf("mutation: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, decode.ManifestName), append(js, '\n'), 0o644); err != nil {
		return fmt.Errorf("mutation: %w", err)
	}
	return nil
}

// readValues reads the raw values of the ParLOT trace at path.
func readValues(path string) ([]uint16, error) {
	in, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("mutation: %w", err)
	}
	defer in.Close()
	vals, err := parlot.ReadAll(in, path, 0)
	if err != nil {
		return nil, fmt.Errorf("mutation: %w", err)
	}
	return vals, nil
}

// writeValues writes vals as a ParLOT trace at path.
func writeValues(path string, vals []uint16) (os.FileInfo, error) {
	out, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("mutation: %w", err)
	}
	w := parlot.NewWriter(out)
	if err := w.Write(vals); err != nil {
		out.Close()
		return nil, fmt.Errorf("mutation: %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		out.Close()
		return nil, fmt.Errorf("mutation: %s: %w", path, err)
	}
	if err := out.Close(); err != nil {
		return nil, fmt.Errorf("mutation: %w", err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("mutation: %w", err)
	}
	return st, nil
}

// runWide returns vals, a main thread's trace, with a copy of its first
// leaf call (a call whose return comes next) inserted right after the
// first call's entry, main's: the same change in every process.
func runWide(vals []uint16) []uint16 {
	if len(vals) < 3 || vals[0] == 0 {
		return vals
	}
	for k := 1; k+1 < len(vals); k++ {
		if vals[k] != 0 && vals[k+1] == 0 {
			return slices.Insert(slices.Clone(vals), 1, vals[k], 0)
		}
	}
	return vals
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return fmt.Errorf("mutation: %w", err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return fmt.Errorf("mutation: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("mutation: %w", err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("mutation: %w", err)
	}
	return nil
}

// ExplainRuns explains how trace id of the faulty run parts from the normal
// run, through the run directories, as difftrace diffnlr does: compare.Open,
// then Recognize under the view, then the first difference of the thread
// (cmd/difftrace's firstDifferences for one normal run). With v nil the
// view is the one rank suggests for id: a full sweep over the default grid
// (with the hang analysis's culprit when the faulty run did not end
// normally), then rank.Suggest over its rows, as diffnlr picks a view from
// rank's session. id is a thread; for a run whose processes have one thread
// each, explanations name the process as the user would.
func ExplainRuns(normal, faulty string, id trace.ID, v *View) (Explanation, error) {
	c, err := compare.Open([]string{normal, faulty}, compare.Options{})
	if err != nil {
		return Explanation{}, fmt.Errorf("mutation: %w", err)
	}
	i, ok := c.Index(id)
	if !ok {
		return Explanation{}, fmt.Errorf("mutation: no trace %s in %s or %s", id, normal, faulty)
	}
	if v == nil {
		if v, err = suggest(c, id); err != nil {
			return Explanation{}, err
		}
	}
	res, err := c.Recognize([]*filters.Filter{v.Filter}, []int{v.K})
	if err != nil {
		return Explanation{}, fmt.Errorf("mutation: %w", err)
	}
	n := res[0]
	ex := Explanation{View: v.String()}
	p, ok, _, err := n.Explain(i)
	if err != nil {
		return ex, fmt.Errorf("mutation: %w", err)
	}
	if !ok {
		return ex, nil
	}
	ex.Parted, ex.Ex, ex.Stack, ex.Text = true, p.Explanation, p.Stack, p.Text
	return ex, nil
}

// errNoView says that no filter of the ranking shows the trace changed.
var errNoView = errors.New("no filter of the ranking shows the trace changed")

// suggest returns the view rank suggests for id: the sweep over the default
// grid, as cmd/difftrace's rank runs it, then, unless the sweep's own
// suggestion is of id, rank.Suggest over its rows (diffnlr's pickView).
func suggest(c *compare.Comparison, id trace.ID) (*View, error) {
	fs, err := rank.DefaultFilters("")
	if err != nil {
		return nil, fmt.Errorf("mutation: %w", err)
	}
	g := rank.Grid{Filters: fs, Ks: rank.DefaultKs, Modes: fca.Modes(), Linkages: rank.DefaultLinkages, Prune: true}
	rk, _, err := rank.Sweep(c, g)
	if err != nil {
		return nil, fmt.Errorf("mutation: %w", err)
	}
	if singleThreaded(c) {
		id = id.Process()
	}
	view := rk.Suggestion
	if view == nil || view.Trace != id {
		fold := func(specs []string, ks []int) ([]*compare.NLR, error) {
			fs := make([]*filters.Filter, len(specs))
			for i, spec := range specs {
				var err error
				if fs[i], err = filters.Parse(spec); err != nil {
					return nil, err
				}
			}
			return c.Recognize(fs, ks)
		}
		found, ok, err := rank.Suggest(rk.Rows, id, rk.Filters[len(rk.Filters)-1], fold)
		if err != nil {
			return nil, fmt.Errorf("mutation: %w", err)
		}
		if !ok {
			return nil, fmt.Errorf("mutation: %s: %w", id, errNoView)
		}
		view = &found
	}
	f, err := filters.Parse(view.Filter)
	if err != nil {
		return nil, fmt.Errorf("mutation: %w", err)
	}
	return &View{Filter: f, K: view.K}, nil
}

// singleThreaded reports whether every process of the comparison has one
// thread (the user then names processes: difftrace diffnlr 5).
func singleThreaded(c *compare.Comparison) bool {
	for _, id := range c.IDs {
		if id.Thread != 0 {
			return false
		}
	}
	return true
}
