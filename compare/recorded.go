package compare

import (
	"github.com/difftrace/difftrace/internal/param"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/filters"
)

// What a selective recording (capture --only SPEC, decode.Recorded) can
// serve: a filter needs every call it keeps to have been recorded, so it is
// served when each of its terms is one of the recording's terms or lies
// within one (mpi.sr within mpi, omp.crit within omp), or when the
// recording kept every call. A custom regexp is served only by the same
// regexp: which functions it names cannot be told from the spec. The
// modifiers plt and ret need no call of their own.

// within lists, for a preset, the presets that keep all of its calls.
var within = map[string][]string{
	"mpi.col":  {"mpi"},
	"mpi.sr":   {"mpi"},
	"omp.crit": {"omp"},
}

// specTerms splits a filter spec into its terms as filters.Parse does: at
// "+", a piece that is no term of its own belonging to the custom regexp
// before it ("cust=a+b" is one term, "cust=a+mpi" two).
func specTerms(spec string) []string {
	var terms []string
	for _, p := range strings.Split(strings.TrimSpace(spec), "+") {
		if n := len(terms); n > 0 && strings.HasPrefix(terms[n-1], "cust=") && !isTerm(p) {
			terms[n-1] += "+" + p
			continue
		}
		terms = append(terms, p)
	}
	return terms
}

// isTerm says whether s, holding no "+", is a term of a filter spec.
func isTerm(s string) bool {
	if s == "" || strings.TrimSpace(s) != s {
		return false
	}
	_, err := filters.Parse(s)
	return err == nil
}

// recordedAll says whether a recording whose filter was spec kept every
// call ("" for a full recording).
func recordedAll(spec string) bool {
	if strings.TrimSpace(spec) == "" {
		return true
	}
	for _, t := range specTerms(spec) {
		if t == "all" {
			return true
		}
	}
	return false
}

// missingTerms returns the terms of the filter f that a recording with the
// filter spec recorded did not record the calls of; none when it serves f.
func missingTerms(f *filters.Filter, recorded string) []string {
	if recordedAll(recorded) {
		return nil
	}
	have := specTerms(recorded)
	var missing []string
	for _, t := range specTerms(f.Name()) {
		switch {
		case t == "plt" || t == "ret" || slices.Contains(have, t):
		case slices.ContainsFunc(within[t], func(p string) bool { return slices.Contains(have, p) }):
		default:
			missing = append(missing, t)
		}
	}
	return missing
}

// servedTerms lists the terms a recording with the filter spec serves:
// its own, then the presets within them.
func servedTerms(spec string) []string {
	terms := specTerms(spec)
	for _, p := range []string{"mpi.col", "mpi.sr", "omp.crit"} {
		if !slices.Contains(terms, p) && slices.ContainsFunc(within[p], func(q string) bool { return slices.Contains(terms, q) }) {
			terms = append(terms, p)
		}
	}
	return terms
}

// RecordedBy returns, for each run of the comparison that was recorded
// selectively, its directory and the filter it recorded with.
func (c *Comparison) RecordedBy() (dirs, specs []string) {
	for _, run := range c.Runs {
		if m := run.Manifest; m != nil && m.Recorded != nil && !recordedAll(m.Recorded.Filter) {
			dirs = append(dirs, run.Dir)
			specs = append(specs, m.Recorded.Filter)
		}
	}
	return dirs, specs
}

// Serves reports whether every run of the comparison recorded all the
// calls filter f keeps; if not, the error says which run recorded what.
func (c *Comparison) Serves(f *filters.Filter) error {
	dirs, specs := c.RecordedBy()
	for i, spec := range specs {
		if miss := missingTerms(f, spec); len(miss) > 0 {
			return param.Advise("filter %s needs calls that %s did not record: it was {recorded keeping only the calls of filter} %s, which leaves out %s; "+
				"use a filter within what it recorded (%s, or a union of them), or record the run again {keeping more calls, or all}",
				f.Name(), dirs[i], spec, strings.Join(miss, ", "), strings.Join(servedTerms(spec), ", "))
		}
	}
	return nil
}

// checkRecorded refuses filters a run of the comparison cannot serve (see
// Serves).
func (c *Comparison) checkRecorded(fs []*filters.Filter) error {
	for _, f := range fs {
		if err := c.Serves(f); err != nil {
			return err
		}
	}
	return nil
}

// Narrow returns the filter spec with the terms the runs did not record
// left out, for a default filter (hang's) to keep what it can; spec itself
// when every run serves it, "" when no term is served.
func (c *Comparison) Narrow(spec string) string {
	_, specs := c.RecordedBy()
	var keep []string
	for _, t := range specTerms(spec) {
		f, err := filters.Parse(t)
		if err != nil {
			return spec // not a spec: let its parser say why
		}
		served := true
		for _, r := range specs {
			if len(missingTerms(f, r)) > 0 {
				served = false
			}
		}
		if served {
			keep = append(keep, t)
		}
	}
	return strings.Join(keep, "+")
}
