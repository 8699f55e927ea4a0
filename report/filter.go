package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/difftrace/difftrace/trace"
)

// Kept is the result of "difftrace filter": the calls a filter keeps in
// each chosen trace of a run, in order. Its text lists them, one call per
// line under a heading per trace (or, with Counts, counts them: a line per
// trace); its JSON is one object per trace and line, each call by its full
// name.
type Kept struct {
	Filter string     // the filter's spec
	Traces []trace.ID // the traces listed
	Calls  [][]trace.Symbol
	// Symbols names the calls: listings by Label (escaped), JSON by the
	// full name.
	Symbols *trace.Table
	// Counts makes the text a count of the calls kept per trace.
	Counts bool
}

func (*Kept) defaultFormat() Format { return Text }
func (*Kept) name() string          { return "the calls kept" }

// Total is the number of calls kept in all the traces.
func (d *Kept) Total() uint64 {
	var n uint64
	for _, c := range d.Calls {
		n += uint64(len(c))
	}
	return n
}

func (d *Kept) writeText(out io.Writer, _ Options) error {
	if d.Counts {
		fmt.Fprintf(out, "TRACE\tKEPT\n")
		for i, id := range d.Traces {
			fmt.Fprintf(out, "%s\t%d\n", id, len(d.Calls[i]))
		}
		return nil
	}
	name := trace.PrintableNames(d.Symbols.Label)
	for i, id := range d.Traces {
		fmt.Fprintf(out, "== %s: %s kept by %s\n", id, Count(uint64(len(d.Calls[i])), "call"), d.Filter)
		for _, s := range d.Calls[i] {
			io.WriteString(out, name(s))
			io.WriteString(out, "\n")
		}
	}
	return nil
}

// writeJSON writes a line per trace: {"trace", "filter", "calls"}.
func (d *Kept) writeJSON(out io.Writer, _ Options) error {
	enc := json.NewEncoder(out)
	for i, id := range d.Traces {
		calls := make([]string, len(d.Calls[i]))
		for j, s := range d.Calls[i] {
			calls[j] = d.Symbols.Name(s).Func // JSON has full signatures
		}
		if err := enc.Encode(struct {
			Trace  string   `json:"trace"`
			Filter string   `json:"filter"`
			Calls  []string `json:"calls"`
		}{id.String(), d.Filter, calls}); err != nil {
			return err
		}
	}
	return nil
}
