package param_test

import (
	"errors"
	"testing"

	"github.com/difftrace/difftrace/internal/param"
)

func TestAdvice(t *testing.T) {
	cause := errors.New("unrelated runs")
	a := param.Advise("%w: %s and %s share 3 functions; {set Options.Unrelated} to compare them anyway", cause, "a", "b{x}")
	if got, want := a.Error(), "unrelated runs: a and b{x} share 3 functions; set Options.Unrelated to compare them anyway"; got != want {
		t.Errorf("library words: %q, want %q", got, want)
	}
	if !errors.Is(a, cause) {
		t.Error("the cause is not wrapped")
	}
	var err error = a
	var found *param.Advice
	if !errors.As(err, &found) {
		t.Fatal("errors.As finds no Advice")
	}
	found.Say(map[string]string{"set Options.Unrelated": "--force"})
	if got, want := err.Error(), "unrelated runs: a and b{x} share 3 functions; --force to compare them anyway"; got != want {
		t.Errorf("caller's words: %q, want %q", got, want)
	}
}
