package mutation

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/difftrace/difftrace/internal/parallel"
)

// Config says how many mutations a run of the harness draws.
type Config struct {
	// Seed fixes every draw: the same seed gives the same mutations.
	Seed uint64
	// PerOp is how many mutations of each Op are drawn in the base run:
	// the k-th in its trace k mod the number of traces.
	PerOp int
	// Ops are the kinds drawn (all of Ops when empty).
	Ops []Op
	// Workers is how many mutations are explained at once (0: one per
	// CPU). The score does not depend on it.
	Workers int
}

// rng returns the generator of one mutation: its own stream, so that a
// mutation can be drawn again from its seed alone.
func rng(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

// stream numbers the draw k of op in trace i.
func stream(i int, op Op, k int) uint64 {
	return uint64(i)<<40 | uint64(op)<<32 | uint64(k)
}

// Draw draws mutation k of op in trace i of the base, as Run does.
func (b *Base) Draw(seed uint64, i int, op Op, k int) (*Mutation, error) {
	return b.Tree(i).Mutate(rng(seed, stream(i, op, k)), op, b.Name)
}

// Run draws the mutations cfg asks for, explains each under the
// explainer's view and scores the answers. A draw that finds no place for
// its op in its trace is passed over.
func (e *Explainer) Run(cfg Config) (*Score, error) {
	ops := cfg.Ops
	if len(ops) == 0 {
		ops = Ops
	}
	b := e.base
	n := len(b.IDs)
	outs := make([]*Outcome, len(ops)*cfg.PerOp)
	err := parallel.For(len(outs), cfg.Workers, func(j int) error {
		op, k := ops[j/cfg.PerOp], j%cfg.PerOp
		i := k % n
		m, err := b.Draw(cfg.Seed, i, op, k)
		if errors.Is(err, ErrNoSite) {
			return nil
		}
		if err != nil {
			return err
		}
		o, err := e.Check(i, m)
		if err != nil {
			return fmt.Errorf("mutation: %s trace %s, %s: %w", b.Dir, b.IDs[i], m.What, err)
		}
		o.Seed = stream(i, op, k)
		outs[j] = &o
		return nil
	})
	if err != nil {
		return nil, err
	}
	s := &Score{}
	for _, o := range outs {
		if o != nil {
			s.Add(*o)
		}
	}
	return s, nil
}

// Check explains mutation m of trace i and checks the answer.
func (e *Explainer) Check(i int, m *Mutation) (Outcome, error) {
	b := e.base
	ex, err := e.Explain(i, Apply(m, b.Events[i]))
	if err != nil {
		return Outcome{}, err
	}
	got := Read(ex, b.Name)
	return Outcome{Base: b.Dir, Trace: b.IDs[i], View: ex.View, M: m, Got: got, Text: ex.Text, OK: Compare(m.Want, got)}, nil
}
