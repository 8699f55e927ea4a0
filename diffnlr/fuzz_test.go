package diffnlr

import (
	"bytes"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// fuzzSeq reads a sequence from bytes: a byte below 200 is that symbol,
// others are loop (b−200)%4 with count (b−200)/4+1.
func fuzzSeq(data []byte) nlr.Sequence {
	s := make(nlr.Sequence, len(data))
	for i, b := range data {
		if b < 200 {
			s[i] = nlr.Element{Loop: nlr.NoLoop, Sym: trace.Symbol(b)}
		} else {
			s[i] = nlr.Element{Loop: int32(b-200) % 4, Count: int32(b-200)/4 + 1}
		}
	}
	return s
}

// FuzzDiff checks that any diff rebuilds both sequences, keeps as many
// common elements as a longest common subsequence, and that the text and
// DOT views of it are produced without error.
func FuzzDiff(f *testing.F) {
	f.Add([]byte{1, 2, 3, 201, 4}, []byte{1, 2, 3, 205, 200, 4})
	f.Add([]byte{1, 2, 3, 201, 4}, []byte{1, 2, 3, 205, 6})
	f.Add([]byte{}, []byte{7, 7, 7})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if len(a) > 300 || len(b) > 300 {
			return
		}
		normal, faulty := fuzzSeq(a), fuzzSeq(b)
		blocks, err := Diff(normal, faulty)
		if err != nil {
			t.Fatal(err)
		}
		if common := checkBlocks(t, blocks, normal, faulty); common != lcs(normal, faulty) {
			t.Fatalf("diff keeps %d common elements, the LCS has %d", common, lcs(normal, faulty))
		}
		// However tightly abridged, the faulty run's end is marked once
		// exactly when it was cut short and the traces end differently,
		// and never when it ended normally.
		for _, ended := range []string{"", "hung"} {
			p := &Picture{Blocks: blocks, Abridge: Abridge{Context: 1, Changed: 1, Changes: 3}, Ended: ended}
			var text bytes.Buffer
			if err := p.WriteText(&text, false); err != nil {
				t.Fatal(err)
			}
			wantMark := 0
			if n := len(blocks); ended != "" && n > 0 && blocks[n-1].Kind != Common && len(faulty) > 0 {
				wantMark = 1
			}
			if got := strings.Count(text.String(), "trace ends here"); got != wantMark {
				t.Fatalf("Ended %q: end marked %d times, want %d:\n%s", ended, got, wantMark, text.String())
			}
			if v := p.View(); len(v.Parts) == 0 && len(blocks) > 0 {
				t.Fatalf("a view of %d blocks shows nothing", len(blocks))
			}
		}
	})
}
