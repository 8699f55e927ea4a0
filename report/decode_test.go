package report

import (
	"io"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

func TestListingGolden(t *testing.T) {
	run := infoOpen(t, "runs/oddeven-dlbug", false)
	// Trace 5 hangs: its listing ends with the calls still open.
	ids := []trace.ID{{Proc: 4}, {Proc: 5}}
	infoGolden(t, "decode-oddeven-dlbug.txt", &Listing{Run: run, Traces: ids}, Options{})
	infoGolden(t, "decode-oddeven-dlbug.flat.txt", &Listing{Run: run, Traces: ids, Flat: true}, Options{})
	infoGolden(t, "decode-oddeven-dlbug.jsonl", &Listing{Run: run, Traces: ids}, Options{Format: JSON})
	if err := Write(io.Discard, &Listing{Run: run, Traces: []trace.ID{{Proc: 99}}}, Options{}); err == nil {
		t.Error("a listing of a trace the run does not hold is written")
	}
}

func TestStackGolden(t *testing.T) {
	run := infoOpen(t, "runs/stencil-skipbug", false)
	for _, c := range []struct {
		id   trace.ID
		at   uint64
		file string
	}{
		{trace.ID{Proc: 1}, 40, "decode-stack-stencil-1.0-40"},
		{trace.ID{Proc: 0}, 0, "decode-stack-stencil-0.0-0"},
	} {
		ev, frames, err := run.StackAt(c.id, c.at)
		if err != nil {
			t.Fatal(err)
		}
		d := NewStack(run, c.id, ev, frames)
		infoGolden(t, c.file+".txt", d, Options{})
		infoGolden(t, c.file+".json", d, Options{Format: JSON})
	}
}
