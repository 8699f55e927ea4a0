package report

import (
	"errors"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/trace"
)

// A decoding gives the listing, the call stack or the trace to write raw,
// and refuses a stack or raw values of more than one trace, or a stack as
// raw values, advising in its own words.
func TestDecoding(t *testing.T) {
	run := infoOpen(t, "runs/stencil-skipbug", false)
	doc, _, err := Decoding{Traces: "1,2", Flat: true, StackAt: -1}.Document(run)
	if l, ok := doc.(*Listing); err != nil || !ok || !l.Flat || len(l.Traces) != 2 {
		t.Errorf("listing of 1,2: %#v, %v", doc, err)
	}
	doc, _, err = Decoding{Traces: "1.0", StackAt: 40}.Document(run)
	if s, ok := doc.(*Stack); err != nil || !ok || s.Trace != "1.0" || s.Event != 40 {
		t.Errorf("stack of 1.0 at 40: %#v, %v", doc, err)
	}
	doc, id, err := Decoding{Traces: "3", StackAt: -1, U16: true}.Document(run)
	if err != nil || doc != nil || id != (trace.ID{Proc: 3}) {
		t.Errorf("raw values of 3: %v, %s, %v; want no document and 3.0", doc, id, err)
	}
	for _, c := range []struct {
		d    Decoding
		want string
	}{
		{Decoding{StackAt: 5}, "the call stack at an event works on one trace, and ../testdata/runs/stencil-skipbug holds 8; select one trace"},
		{Decoding{StackAt: -1, U16: true}, "u16 values work on one trace"},
		{Decoding{Traces: "0", StackAt: 5, U16: true}, "the call stack at an event is text or JSON, not u16 values"},
		{Decoding{Traces: "0", StackAt: 99999}, "past the end"},
	} {
		_, _, err := c.d.Document(run)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.d, err, c.want)
		}
	}
	_, _, err = Decoding{StackAt: 5}.Document(run)
	var a *param.Advice
	if !errors.As(err, &a) {
		t.Fatalf("%v is no advice", err)
	}
	a.Say(map[string]string{"the call stack at an event": "--stack-at", "select one trace": "choose one with --trace P.T"})
	if !strings.HasPrefix(err.Error(), "--stack-at works on one trace") || !strings.HasSuffix(err.Error(), "choose one with --trace P.T") {
		t.Errorf("said as flags: %v", err)
	}
}
