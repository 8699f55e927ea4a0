package rank

import (
	"fmt"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/compare"
	"github.com/difftrace/difftrace/filters"
)

// The filters of a grid that the runs can serve: a run recorded
// selectively (capture --only) has the calls of some filters only
// (compare.Comparison.Serves).

// servedFilters returns the filters of fs that every run can serve, and a
// note naming those left out (empty when none is).
func servedFilters(c *compare.Comparison, fs []*filters.Filter) ([]*filters.Filter, string) {
	var kept []*filters.Filter
	var left []string
	for _, f := range fs {
		if c.Serves(f) == nil {
			kept = append(kept, f)
		} else {
			left = append(left, f.Name())
		}
	}
	if len(left) == 0 {
		return kept, ""
	}
	_, specs := c.RecordedBy()
	slices.Sort(specs)
	return kept, fmt.Sprintf("left out, needing calls the runs did not record (recorded with capture --only %s): %s",
		strings.Join(slices.Compact(specs), ", "), strings.Join(left, ", "))
}
