package compare

import (
	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/summary"
)

// WritePart summarises part index of of of the run in dir, as one of of
// processes that summarise it together (OpenPart, then Summarize under
// fs × ks), and writes the part to the summary directory out, which
// summary.Prepare made ready (summary.Write). It returns how many traces
// the part holds.
func WritePart(dir, out string, index, of int, fs []*filters.Filter, ks []int, opts Options) (int, error) {
	c, err := OpenPart(dir, index, of, opts)
	if err != nil {
		return 0, err
	}
	p, err := c.Summarize(0, fs, ks, index, of)
	if err != nil {
		return 0, err
	}
	return len(p.Traces), summary.Write(out, p)
}
