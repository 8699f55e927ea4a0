package decode

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/trace"
)

// relocated copies the run directory src into a temporary directory,
// rewriting every image path of its function tables (and of its manifest's
// command) with rewrite, as if the run had been recorded elsewhere.
func relocated(t *testing.T, src string, rewrite func(image string) string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, info := range mustGlob(t, filepath.Join(dst, "*.info")) {
		b, err := os.ReadFile(info)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i := 1; i < len(lines); i++ {
			if lines[i-1] == "+" {
				lines[i] = rewrite(lines[i])
			}
		}
		if err := os.WriteFile(info, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if m := filepath.Join(dst, ManifestName); fileExists(m) {
		man, err := ReadManifest(m)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(m)
		s := strings.ReplaceAll(string(b), `"`+man.Command[0]+`"`, `"`+rewrite(man.Command[0])+`"`)
		if err := os.WriteFile(m, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// loadAll opens dir with tab and returns the run and its traces.
func loadAll(t *testing.T, dir string, tab *trace.Table) (*Run, []trace.Trace) {
	t.Helper()
	run, err := Open(dir, tab, Options{})
	if err != nil {
		t.Fatal(err)
	}
	trs, err := run.Load(run.Traces())
	if err != nil {
		t.Fatal(err)
	}
	return run, trs
}

func tableNames(tab *trace.Table) []trace.Name {
	out := make([]trace.Name, tab.Len())
	for s := range out {
		out[s] = tab.Name(trace.Symbol(s))
	}
	return out
}

// TestNamesIgnorePaths: copies of a run whose images were recorded from
// other directories, and whose program has another file name, intern to
// exactly the symbols of the original — alone, or sharing its table as the
// two runs of a comparison do — in both ParLOT layouts.
func TestNamesIgnorePaths(t *testing.T) {
	for _, c := range []struct {
		name, dir, prog string
		libs            []string
	}{
		{"difftrace run", "../testdata/runs/oddeven-normal", "oddeven", nil},
		{"original ParLOT", oddeven4, "oddeven", []string{"libmpi.so.40:MPI_Send"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			elsewhere := relocated(t, c.dir, func(img string) string {
				return "/home/a/build/" + filepath.Base(img) // same file names, other directories
			})
			renamed := relocated(t, c.dir, func(img string) string {
				if filepath.Base(img) == c.prog {
					return "/tmp/x/" + c.prog + "-bug" // the faulty build, a separate binary
				}
				return "/opt/mpi/lib/" + filepath.Base(img)
			})

			orig := trace.NewTable()
			_, want := loadAll(t, c.dir, orig)
			for _, dir := range []string{elsewhere, renamed} {
				tab := trace.NewTable()
				_, got := loadAll(t, dir, tab)
				if !slices.Equal(tableNames(tab), tableNames(orig)) {
					t.Errorf("%s interns\n%v\nthe original interns\n%v", dir, tableNames(tab), tableNames(orig))
				}
				for i := range want {
					if !slices.Equal(got[i].Events, want[i].Events) {
						t.Errorf("%s: trace %s differs from the original's", dir, got[i].ID)
					}
				}
			}

			// One table for all three, as a comparison shares it.
			shared := trace.NewTable()
			_, a := loadAll(t, c.dir, shared)
			n := shared.Len()
			runB, b := loadAll(t, renamed, shared)
			_, e := loadAll(t, elsewhere, shared)
			if shared.Len() != n {
				t.Errorf("the relocated runs added %d symbols to the shared table: %v", shared.Len()-n, tableNames(shared)[n:])
			}
			for i := range a {
				if !slices.Equal(a[i].Events, b[i].Events) || !slices.Equal(a[i].Events, e[i].Events) {
					t.Errorf("trace %s differs between the original and its relocated copies", a[i].ID)
				}
			}

			// The renamed run keeps its program's path and shows its name.
			if p := runB.Procs[0].Program; p != "/tmp/x/"+c.prog+"-bug" {
				t.Errorf("program %q", p)
			}
			mainSym, ok := shared.Lookup(trace.Name{Image: trace.Program, Func: "main"})
			if !ok {
				t.Fatal("main is not in the program's image")
			}
			if got := runB.Name(mainSym).String(); got != c.prog+"-bug:main" {
				t.Errorf("renamed run shows main as %s", got)
			}
			for _, l := range c.libs {
				img, fn, _ := strings.Cut(l, ":")
				s, ok := shared.Lookup(trace.Name{Image: img, Func: fn})
				if !ok || runB.Name(s).String() != l {
					t.Errorf("%s: not interned under its file name", l)
				}
			}
		})
	}
}

// TestImageID: what identifies an image.
func TestImageID(t *testing.T) {
	for _, c := range []struct{ path, prog, want string }{
		{"/home/a/app", "/home/a/app", trace.Program},
		{"/usr/lib/libmpi.so.40", "/home/a/app", "libmpi.so.40"},
		{"/opt/other/app", "/home/a/app", "app"}, // a library that shares the program's file name
		{"?", "/home/a/app", "?"},
		{"/usr/lib/libc.so.6", "", "libc.so.6"},
	} {
		if got := imageID(c.path, c.prog); got != c.want {
			t.Errorf("imageID(%q, %q) = %q, want %q", c.path, c.prog, got, c.want)
		}
	}
}

// TestNamesUftraceRenamed: a uftrace recording of the program, and one of a
// copy with another file name in another directory, intern to the same
// symbols, with the program found from the recording's executable.
func TestNamesUftraceRenamed(t *testing.T) {
	dir1 := filepath.Join(t.TempDir(), "rec")
	bin := recordProg(t, dir1, []string{"-pg"})
	other := filepath.Join(t.TempDir(), "elsewhere", "prog-bug")
	if err := os.MkdirAll(filepath.Dir(other), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, b, 0o755); err != nil {
		t.Fatal(err)
	}
	dir2 := filepath.Join(t.TempDir(), "rec")
	if out, err := exec.Command("uftrace", "record", "-d", dir2, other).CombinedOutput(); err != nil {
		t.Fatalf("uftrace record: %v\n%s", err, out)
	}
	tab := trace.NewTable()
	run1, a := loadAll(t, dir1, tab)
	n := tab.Len()
	run2, b2 := loadAll(t, dir2, tab)
	if tab.Len() != n {
		t.Errorf("the renamed program's recording added symbols: %v", tableNames(tab)[n:])
	}
	if len(a) != len(b2) {
		t.Fatalf("%d traces, then %d", len(a), len(b2))
	}
	for i := range a {
		if !slices.Equal(a[i].Events, b2[i].Events) {
			t.Errorf("trace %s differs between the two recordings", a[i].ID)
		}
	}
	s, ok := tab.Lookup(trace.Name{Image: trace.Program, Func: "alpha"})
	if !ok {
		t.Fatal("alpha is not in the program's image")
	}
	if run1.Name(s).String() != "prog:alpha" || run2.Name(s).String() != "prog-bug:alpha" {
		t.Errorf("shown as %s and %s", run1.Name(s), run2.Name(s))
	}
	if run2.Procs[0].Program != other || run2.ProgramName() != "prog-bug" {
		t.Errorf("program %q, shown as %q", run2.Procs[0].Program, run2.ProgramName())
	}
}
