package param_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/difftrace/difftrace/internal/param"
)

func Example() {
	check := func(k int) error {
		if k < 1 {
			return param.Errorf("K", fmt.Sprint(k), "the longest loop body must be 1 or more")
		}
		return nil
	}
	err := check(0)
	fmt.Println(err)
	fmt.Println(param.Flags(err, map[string]string{"K": "--k"}))
	// Output:
	// K 0: the longest loop body must be 1 or more
	// --k 0: the longest loop body must be 1 or more
}

func TestFlags(t *testing.T) {
	inner := errors.New(`unknown filter "x"`)
	err := fmt.Errorf("checking the grid: %w", param.Wrap("filters", inner))
	got := param.Flags(err, map[string]string{"filters": "--filters"})
	if got.Error() != `--filters: unknown filter "x"` || !errors.Is(got, inner) {
		t.Errorf("Flags = %v, want the flag and the inner error", got)
	}
	other := errors.New("no such run")
	if param.Flags(other, map[string]string{"K": "--k"}) != other {
		t.Error("an error of no parameter changed")
	}
	unmapped := param.Errorf("level", `"x"`, "want thread or process")
	if param.Flags(unmapped, nil) != error(unmapped) {
		t.Error("a parameter with no flag changed")
	}
}
