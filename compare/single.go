package compare

import (
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/trace"
)

// QuietPolling returns the polling calls whose stretches the NLRs under f
// read once each (see Polling), or nil when they count every call: what
// an explanation of two traces of one run needs to count calls as the
// NLRs did (diffnlr.Whole.Poll).
func (c *Comparison) QuietPolling(f *filters.Filter) func(trace.Symbol) bool {
	return c.quietPolling(f)
}
