package nlr

import (
	"strings"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

func TestPackedRoundTrip(t *testing.T) {
	seqs := []Sequence{
		{},
		{{Loop: NoLoop, Sym: 0}},
		{{Loop: NoLoop, Sym: 3}, {Loop: 0, Count: 15}, {Loop: NoLoop, Sym: 1 << 31}, {Loop: 1 << 30, Count: 1<<31 - 1}},
	}
	for _, s := range seqs {
		p := Pack(nil, s)
		got, err := p.Sequence()
		if err != nil {
			t.Fatalf("%v: %v", s, err)
		}
		if got == nil || !got.Equal(s) || p.Len() != len(s) {
			t.Errorf("packed %v, got %v back (Len %d)", s, got, p.Len())
		}
	}
	// A loop of 2 costs 2 bytes, a small symbol 1: far below Sequence's 12.
	if p := Pack(nil, Sequence{{Loop: NoLoop, Sym: trace.Symbol(5)}, {Loop: 3, Count: 2}}); len(p) != 4 {
		t.Errorf("packed form takes %d bytes, want 4", len(p))
	}
}

func TestPackedBad(t *testing.T) {
	good := Pack(nil, Sequence{{Loop: 2, Count: 300}, {Loop: NoLoop, Sym: 7}})
	for name, b := range map[string]Packed{
		"empty":     nil,
		"truncated": good[:len(good)-1],
		"in count":  good[:3],
		"trailing":  append(append(Packed{}, good...), 0),
		"too long":  {0x7f},
	} {
		if _, err := b.Sequence(); err == nil || !strings.Contains(err.Error(), "packed sequence") {
			t.Errorf("%s: got error %v, want one about the packed sequence", name, err)
		}
	}
}
