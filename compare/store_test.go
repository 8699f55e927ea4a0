package compare

import (
	"testing"

	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

func TestSeqStore(t *testing.T) {
	sym := func(s trace.Symbol) nlr.Element { return nlr.Element{Loop: nlr.NoLoop, Sym: s} }
	// More distinct NLRs than the cache holds, so that slots are reused.
	const n = storeCache + 100
	s := newSeqStore(2, n)
	want := make([]nlr.Sequence, n)
	for i := range n {
		want[i] = nlr.Sequence{sym(trace.Symbol(i)), {Loop: int32(i % 7), Count: int32(i%5 + 2)}}
		s.of[0][i] = s.add(want[i])
		s.of[1][i] = s.add(want[i]) // the same NLR: stored once
	}
	s.of[1][3] = s.add(nlr.Sequence{}) // empty, yet there
	s.of[1][4] = -1                    // the trace is not in run 1
	s.seal()
	if len(s.packed) != n+1 {
		t.Errorf("%d distinct NLRs stored, want %d", len(s.packed), n+1)
	}
	for pass := range 2 {
		for i := range n {
			if got := s.at(0, i); !got.Equal(want[i]) {
				t.Fatalf("pass %d: trace %d of run 0: got %v, want %v", pass, i, got, want[i])
			}
		}
	}
	if got := s.at(1, 3); got == nil || len(got) != 0 {
		t.Errorf("empty NLR read back as %#v, want empty and not nil", got)
	}
	if got := s.at(1, 4); got != nil {
		t.Errorf("missing trace's NLR read back as %v, want nil", got)
	}
	if got := s.at(1, 5); !got.Equal(want[5]) {
		t.Errorf("trace 5 of run 1: got %v, want %v", got, want[5])
	}
}
