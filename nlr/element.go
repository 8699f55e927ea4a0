package nlr

import "github.com/difftrace/difftrace/trace"

// NoLoop is the Loop of an Element that is a plain symbol.
const NoLoop = -1

// Element is one entry of an NLR sequence: a symbol, or a loop — the body
// numbered Loop in the Table, repeated Count times.
type Element struct {
	Loop  int32        // loop ID in the Table, or NoLoop for a symbol
	Sym   trace.Symbol // the symbol, when Loop == NoLoop
	Count int32        // iterations, when Loop != NoLoop
}

// IsLoop reports whether e is a loop.
func (e Element) IsLoop() bool { return e.Loop != NoLoop }

// Sequence is the NLR of one trace.
type Sequence []Element
