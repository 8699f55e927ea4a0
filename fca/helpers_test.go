package fca

import (
	"github.com/difftrace/difftrace/fca/fcatest"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// The odd/even sort example of seeds/002 Tables 3.2–3.4.
const (
	symInit     = fcatest.Init
	symRank     = fcatest.Rank
	symSize     = fcatest.Size
	symFinalize = fcatest.Finalize
	symSend     = fcatest.Send
	symRecv     = fcatest.Recv
)

func symName(s trace.Symbol) string { return fcatest.Name(s) }

func sym(s trace.Symbol) nlr.Element { return nlr.Element{Loop: nlr.NoLoop, Sym: s} }

func loop(id, count int32) nlr.Element { return nlr.Element{Loop: id, Count: count} }

// oddEven returns the NLRs of seeds/002 Table 3.3 (fcatest.OddEven), whose
// symbols are those above.
func oddEven() ([]trace.ID, []nlr.Sequence) { return fcatest.OddEven() }

// names maps attribute or object numbers through fn.
func names(idx []int, fn func(int) string) []string {
	out := []string{}
	for _, i := range idx {
		out = append(out, fn(i))
	}
	return out
}
