package private_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/difftrace/difftrace/internal/private"
)

// A cache directory is made 0700; a file in it is written under a fresh
// name and renamed into place, and read back only if it is still this
// user's own. A directory others may write is refused, saying why.
func Example() {
	base, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(base)

	dir := filepath.Join(base, "difftrace")
	if err := private.MkdirAll(dir); err != nil {
		fmt.Println(err)
		return
	}
	st, _ := os.Stat(dir)
	fmt.Println("made", filepath.Base(dir), st.Mode())

	file := filepath.Join(dir, "lib.sha256")
	if err := private.WriteFile(file, []byte("0123abcd"), 0o600); err != nil {
		fmt.Println(err)
		return
	}
	b, err := private.ReadFile(file)
	fmt.Printf("read %q %v\n", b, err)

	shared := filepath.Join(base, "shared")
	os.Mkdir(shared, 0o700)
	os.Chmod(shared, 0o777)
	err = private.MkdirAll(shared)
	fmt.Println(errors.Is(err, private.ErrNotPrivate))
	fmt.Println(err.Error()[len(base)+1:])
	// Output:
	// made difftrace drwx------
	// read "0123abcd" <nil>
	// true
	// shared may be written by other users (mode 0777): remove it
}
