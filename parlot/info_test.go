package parlot_test

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/parlot"

	"github.com/difftrace/difftrace/trace"
)

func TestParseFuncTable(t *testing.T) {
	tab, err := parlot.ReadFuncTable(filepath.Join(fixtureDir, "oddeven4", "Hdbg.17.node01.3216.info"))
	if err != nil {
		t.Fatal(err)
	}
	const exe, mpi = "/home/user/oddeven/oddeven", "/usr/lib/x86_64-linux-gnu/libmpi.so.40"
	var want []trace.Name
	for _, f := range []string{"main", "oddEvenSort", "findPtr"} {
		want = append(want, trace.Name{Image: exe, Func: f})
	}
	for _, f := range []string{"MPI_Init", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Recv", "MPI_Send", "MPI_Finalize"} {
		want = append(want, trace.Name{Image: mpi, Func: f})
	}
	if len(tab.Names) != len(want) {
		t.Fatalf("got %d names, want %d: %v", len(tab.Names), len(want), tab.Names)
	}
	for i := range want {
		if tab.Names[i] != want[i] {
			t.Errorf("ID %d = %v, want %v", i+1, tab.Names[i], want[i])
		}
	}
}

func TestParseFuncTableForms(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // image base:func per ID
	}{
		{"empty", "", nil},
		{"crlf and trailing blank lines", "+\r\n/bin/a\r\nf\r\ng\r\n\r\n\n", []string{"a:f", "a:g"}},
		{"image without functions", "+\n/lib/x.so\n+\n/bin/a\nmain\n", []string{"a:main"}},
		{"names with spaces", "+\n/bin/a\nfoo(int, char const*)\n", []string{"a:foo(int, char const*)"}},
		{"same name twice", "+\n/bin/a\nf\n+\n/bin/b\nf\n", []string{"a:f", "b:f"}},
	} {
		tab, err := parlot.ParseFuncTable(strings.NewReader(tc.in), "x.info")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var got []string
		for _, n := range tab.Names {
			got = append(got, n.String())
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestParseFuncTableErrors(t *testing.T) {
	many := "+\n/bin/a\n" + strings.Repeat("f\n", parlot.MaxFuncID) + "g\n"
	for _, tc := range []struct {
		name, in string
		line     int
		reason   string
	}{
		{"name before section", "main\n+\n/bin/a\n", 1, `function name "main" before any "+" section header`},
		{"plus where image belongs", "+\n+\n/bin/a\nf\n", 2, `"+" where the image path of the section begun on line 1 belongs`},
		{"ends after plus", "+\n/bin/a\nf\n+\n", 4, `ends after "+" without the image path`},
		{"blank line inside", "+\n/bin/a\nf\n\ng\n", 4, "blank line inside the table"},
		{"binary", "+\n/bin/a\nf\x00g\n", 3, "NUL byte"},
		{"too many IDs", many, parlot.MaxFuncID + 3, `function "g" would get ID 65535, beyond the format's limit of 65534 IDs`},
		{"line too long", "+\n/bin/a\n" + strings.Repeat("x", 1<<20+1) + "\n", 3, "line longer than"},
	} {
		_, err := parlot.ParseFuncTable(strings.NewReader(tc.in), "p.7.info")
		var ie *parlot.InfoError
		if !errors.As(err, &ie) {
			t.Errorf("%s: got %v, want an InfoError", tc.name, err)
			continue
		}
		msg := err.Error()
		if ie.Line != tc.line || !strings.Contains(msg, tc.reason) ||
			!strings.HasPrefix(msg, "p.7.info: line ") || !strings.Contains(msg, "restore it from the original run") || strings.Contains(msg, "\n") {
			t.Errorf("%s: got line %d, %q; want line %d and %q", tc.name, ie.Line, msg, tc.line, tc.reason)
		}
	}
}

// TestImageSections checks the order function tables number names in: the
// program's image first, even without functions, then images and their
// functions by first appearance.
func TestImageSections(t *testing.T) {
	n := func(img, f string) trace.Name { return trace.Name{Image: img, Func: f} }
	names := []trace.Name{n("libc.so.6", "memcpy"), n("/bin/app", "main"), n("libmpi.so.40", "MPI_Init"), n("libc.so.6", "printf"), n("/bin/app", "work")}
	got := parlot.ImageSections(names, "/bin/app")
	want := []parlot.ImageSection{
		{"/bin/app", []trace.Name{n("/bin/app", "main"), n("/bin/app", "work")}},
		{"libc.so.6", []trace.Name{n("libc.so.6", "memcpy"), n("libc.so.6", "printf")}},
		{"libmpi.so.40", []trace.Name{n("libmpi.so.40", "MPI_Init")}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ImageSections:\n got %v\nwant %v", got, want)
	}
	// A program without recorded calls still has the first section.
	got = parlot.ImageSections(names[:1], "/bin/app")
	want = []parlot.ImageSection{{"/bin/app", nil}, {"libc.so.6", []trace.Name{n("libc.so.6", "memcpy")}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ImageSections without program calls:\n got %v\nwant %v", got, want)
	}
	// Without a program, the first image seen comes first.
	if got := parlot.ImageSections(names[:2], ""); len(got) != 2 || got[0].Image != "libc.so.6" {
		t.Errorf("ImageSections with no program: %v", got)
	}
}
