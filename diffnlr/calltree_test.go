package diffnlr

import (
	"slices"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

// KeptDepths counts the kept calls around each counted call: calls the
// filter drops do not deepen, and a stretch of polling calls counts once.
func TestKeptDepths(t *testing.T) {
	const (
		main trace.Symbol = iota + 1
		hidden
		send
		test
		inner
	)
	R := trace.Return
	events := []trace.Symbol{
		main,
		hidden, send, inner, R, R, R, // send inside a dropped call: depth 1; inner inside send: 2
		test, R, test, R, test, R, // polling: counted once
		send, R,
		R,
	}
	keep := func(s trace.Symbol) bool { return s != hidden }
	poll := func(s trace.Symbol) bool { return s == test }
	got := KeptDepths(events, keep, poll)
	want := []int32{0, 1, 2, 1, 1}
	if !slices.Equal(got, want) {
		t.Errorf("KeptDepths = %v, want %v (main, send, inner, test once, send)", got, want)
	}
	if all := KeptDepths(events, nil, nil); !slices.Equal(all, []int32{0, 1, 2, 3, 1, 1, 1, 1}) {
		t.Errorf("every call kept: %v", all)
	}
}
