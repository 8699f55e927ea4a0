package elfsym_test

import (
	"debug/elf"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/elfsym"
)

// symbolValue returns the address of the function named name in the ELF
// file at path.
func symbolValue(t testing.TB, path, name string) uint64 {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Name == name && elfsym.IsFunc(s) {
			return s.Value
		}
	}
	t.Fatalf("%s: no function %s", path, name)
	return 0
}

// A file that is no ELF file, or has no function where asked, is named in
// the error, and the cause survives.
func TestFunctionNamesErrors(t *testing.T) {
	notELF := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notELF, []byte("not an ELF file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(t.TempDir(), "gone.so")
	for _, c := range []struct {
		path string
		addr uint64
		want string
		is   error
	}{
		{notELF, 0x1000, notELF + ": cannot read as an ELF file: bad magic number", nil},
		{gone, 0x1000, gone + ": cannot read as an ELF file: open " + gone + ": no such file or directory", fs.ErrNotExist},
	} {
		_, err := elfsym.FunctionNames(c.path, c.addr)
		var ee *elfsym.Error
		if !errors.As(err, &ee) || ee.File != c.path {
			t.Errorf("%s: error %v, want an *elfsym.Error naming the file", c.path, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("error %q, want %q", err, c.want)
		}
		if c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%v: not %v", err, c.is)
		}
	}
}

// A C program built here: its PLT entries name the library functions it
// calls, and its build id is the one readelf reports.
func TestPLTEntriesAndBuildID(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("gcc not found")
		}
		t.Skip("gcc not found")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "p.c")
	bin := filepath.Join(dir, "p")
	if err := os.WriteFile(src, []byte("#include <stdio.h>\n#include <stdlib.h>\nvoid work(void) { puts(\"work\"); }\nvoid also_work(void) __attribute__((alias(\"work\")));\nint main(int c, char **v) { work(); return atoi(c > 1 ? v[1] : \"0\"); }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(gcc, "-O0", "-Wl,--build-id", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	for _, e := range elfsym.PLTEntries(f) {
		names = append(names, e.Name)
		if e.Addr == 0 {
			t.Errorf("%s at address 0", e.Name)
		}
	}
	for _, want := range []string{"puts", "atoi"} {
		if !slices.Contains(names, want) {
			t.Errorf("PLT entries %v lack %s", names, want)
		}
	}
	id := elfsym.BuildID(f)
	if !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(id) {
		t.Errorf("build id %q", id)
	}
	if out, err := exec.Command("readelf", "-n", bin).Output(); err == nil && !strings.Contains(string(out), id) {
		t.Errorf("build id %s not in readelf's notes:\n%s", id, out)
	}
	// Both names of work, from its first byte and from inside it.
	at := symbolValue(t, bin, "work")
	for _, addr := range []uint64{at, at + 1} {
		names, err := elfsym.FunctionNames(bin, addr)
		if err != nil || !slices.Equal(names, []string{"also_work", "work"}) {
			t.Errorf("0x%x: %v, %v; want [also_work work]", addr, names, err)
		}
	}
	_, err = elfsym.FunctionNames(bin, 1)
	var ee *elfsym.Error
	if !errors.As(err, &ee) || ee.File != bin || err.Error() != bin+": no function at address 0x1" {
		t.Errorf("address 1: error %v", err)
	}
}

// What FunctionNames says of a file it cannot read, and how a caller
// tells that error apart.
func ExampleFunctionNames() {
	_, err := elfsym.FunctionNames("/nonexistent/libmpi.so", 0x1000)
	fmt.Println(err)
	var ee *elfsym.Error
	if errors.As(err, &ee) {
		fmt.Println(ee.File, errors.Is(err, fs.ErrNotExist))
	}
	// Output:
	// /nonexistent/libmpi.so: cannot read as an ELF file: open /nonexistent/libmpi.so: no such file or directory
	// /nonexistent/libmpi.so true
}
