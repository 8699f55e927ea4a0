package plural_test

import (
	"fmt"

	"github.com/difftrace/difftrace/internal/plural"
)

func ExampleWord() {
	for _, n := range []int{1, 3} {
		fmt.Println(n, plural.Word(n, "trace", "traces"))
	}
	// Output:
	// 1 trace
	// 3 traces
}
