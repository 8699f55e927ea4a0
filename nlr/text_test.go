package nlr

import (
	"strings"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

// Gloss defines the loops shown, with those only inside them written out
// in place.
func TestGloss(t *testing.T) {
	l := newLetters()
	// A time step with an inner loop: L0 = [B, C], L1 = [A, L0^3].
	in := []Input{{Run: 0, ID: trace.ID{}, Symbols: l.seq("ABCBCBC" + "ABCBCBC" + "ABCBCBC" + "D")}}
	seqs, tab, err := Recognize(in, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := FuncNames(l.tab)
	if got, want := strings.Join(tab.Legend(names), "; "), "L0 = [B, C]; L1 = [A, L0^3]"; got != want {
		t.Fatalf("legend %q, want %q (the case this test is written for)", got, want)
	}
	if got, want := strings.Join(tab.Gloss(names, seqs[0]), "; "), "L1 = [A, [B, C]^3]"; got != want {
		t.Errorf("the outer loop shown: %q, want %q", got, want)
	}
	both := append(seqs[0], Element{Loop: 0, Count: 2})
	if got, want := strings.Join(tab.Gloss(names, both), "; "), "L0 = [B, C]; L1 = [A, L0^3]"; got != want {
		t.Errorf("both shown: %q, want %q", got, want)
	}
}
