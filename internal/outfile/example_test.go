package outfile_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/difftrace/difftrace/internal/outfile"
)

// A result is written under a temporary name and appears whole, or not at
// all, when it is committed.
func Example() {
	dir, _ := os.MkdirTemp("", "outfile")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "ranking.txt")
	out, err := outfile.Create(path, os.Stdout)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer out.Abort() // a no-op once committed
	fmt.Fprintln(out, "5 was the most suspicious in 72 of 72 combinations")
	if _, err := os.Stat(path); os.IsNotExist(err) {
		fmt.Println("nothing at the path before the commit")
	}
	if err := out.Commit(); err != nil {
		fmt.Println(err)
		return
	}
	b, _ := os.ReadFile(path)
	fmt.Print(string(b))
	// Output:
	// nothing at the path before the commit
	// 5 was the most suspicious in 72 of 72 combinations
}
