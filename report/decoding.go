package report

import (
	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/trace"
)

// Decoding is what "difftrace decode" shows of a run: the listing of the
// traces selected, the call stack at one event of the one trace selected,
// or that trace's raw values.
type Decoding struct {
	// Traces selects the traces (decode.Run.Select): "" for all.
	Traces string
	// Flat asks for the listing's flat text (Listing.Flat).
	Flat bool
	// StackAt, when 0 or more, asks for the call stack at that event.
	StackAt int64
	// U16 asks for the raw values, which the caller writes
	// (decode.Run.WriteU16): a ParLOT trace's only.
	U16 bool
}

// Document returns the Listing or the Stack d asks of run; or, for U16,
// no document and the trace whose raw values to write. Asked of more
// than one trace, the call stack and the raw values are a *param.Advice.
func (d Decoding) Document(run *decode.Run) (Document, trace.ID, error) {
	ids, err := run.Select(d.Traces)
	if err != nil {
		return nil, trace.ID{}, err
	}
	if d.StackAt < 0 && !d.U16 {
		return &Listing{Run: run, Traces: ids, Flat: d.Flat}, trace.ID{}, nil
	}
	if len(ids) != 1 {
		if d.StackAt >= 0 {
			return nil, trace.ID{}, param.Advise("{the call stack at an event} works on one trace, and %s holds %d; {select one trace}", run.Dir, len(ids))
		}
		return nil, trace.ID{}, param.Advise("{u16 values work} on one trace, and %s holds %d; {select one trace}", run.Dir, len(ids))
	}
	id := ids[0]
	if d.StackAt >= 0 {
		ev, frames, err := run.StackAt(id, uint64(d.StackAt))
		switch {
		case err != nil:
			return nil, id, err
		case d.U16:
			return nil, id, param.Advise("{the call stack at an event} {is text or JSON, not u16 values}")
		}
		return NewStack(run, id, ev, frames), id, nil
	}
	if run.Format == decode.FormatUftrace {
		return nil, id, param.Advise("{u16 values are} a ParLOT trace's raw values, and %s is a uftrace recording; convert it first (difftrace convert %s -o RUN){, or list it flat}", run.Dir, run.Dir)
	}
	return nil, id, nil
}
