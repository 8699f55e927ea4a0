package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/internal/testenv"
)

// mangled matches an Itanium C++ mangled name.
var mangled = regexp.MustCompile(`_Z[NKSLZ0-9]\w*`)

// On the committed C++ runs (namespaces, classes, templates, the C++
// library at -O0) no command prints a mangled name, in any format, and
// pictures neither.
func TestNoMangledNames(t *testing.T) {
	normal, faulty := absRun(t, "stencil-normal"), absRun(t, "stencil-skipbug")
	dir := t.TempDir()
	for _, args := range [][]string{
		{"info", normal},
		{"decode", normal, "--trace", "3.0"},
		{"decode", faulty, "--trace", "3.0", "--format", "flat"},
		{"decode", faulty, "--trace", "3.0", "--format", "json"},
		{"decode", faulty, "--trace", "3.0", "--stack-at", "5000"},
		{"stats", normal, "--edges"},
		{"stats", normal, "--edges", "--format", "json"},
		{"stats", normal, "--edges", "--format", "csv"},
		{"filter", faulty, "--filter", "all", "--trace", "3.0"},
		{"filter", faulty, "--filter", "all", "--trace", "3.0", "--format", "json"},
		{"nlr", normal, faulty, "--filter", "all"},
		{"nlr", normal, faulty, "--filter", "all", "--format", "json"},
		{"lattice", normal, "--filter", "cust=^physics::"},
		{"jsm", normal, faulty, "--filter", "all"},
		{"rank", normal, faulty},
		{"rank", normal, faulty, "--format", "json"},
		{"diffnlr", "3", "--filter", "all", "--color", "never", "--full", "-o", "d.dot"},
		{"diffnlr", "3", "--filter", "all", "--signatures", "--color", "never"},
	} {
		out := okIn(t, dir, args...)
		if m := mangled.FindString(out); m != "" {
			t.Errorf("difftrace %s prints the mangled name %s", strings.Join(args, " "), m)
		}
	}
	dot, err := os.ReadFile(filepath.Join(dir, "d.dot"))
	if err != nil {
		t.Fatal(err)
	}
	if m := mangled.FindString(string(dot)); m != "" {
		t.Errorf("the diffNLR picture holds the mangled name %s", m)
	}
}

// A custom filter written with the names of the source keeps exactly the
// calls it names, and one written with the linked symbol still works.
func TestCustomFilterSourceNames(t *testing.T) {
	run := absRun(t, "stencil-normal")
	for _, c := range []struct {
		spec string
		want []string
	}{
		{`cust=^halo::Exchanger::exchange$`, []string{"halo::Exchanger::exchange"}},
		{`cust=^solver::Smoother::(relax|sweep)$`, []string{"solver::Smoother::relax", "solver::Smoother::sweep"}},
		{`cust=physics::stencil::laplacian<double>\(`, []string{"physics::stencil::laplacian"}},
		{`cust=_ZN4halo9Exchanger8exchangeERN4mesh5FieldIdEE`, []string{"halo::Exchanger::exchange"}},
	} {
		out := ok(t, "filter", run, "--filter", c.spec, "--trace", "1.0")
		lines := strings.Split(strings.TrimSpace(out), "\n")[1:]
		if len(lines) == 0 {
			t.Errorf("%s keeps no call", c.spec)
			continue
		}
		got := map[string]int{}
		for _, l := range lines {
			got[l]++
		}
		for name := range got {
			found := false
			for _, w := range c.want {
				found = found || name == w
			}
			if !found {
				t.Errorf("%s keeps %s; want only %v", c.spec, name, c.want)
			}
		}
		for _, w := range c.want {
			if got[w] == 0 {
				t.Errorf("%s keeps no call of %s:\n%s", c.spec, w, out)
			}
		}
	}
	// The stencil runs twelve steps: one exchange a step.
	out := ok(t, "filter", run, "--filter", "cust=^halo::Exchanger::exchange$", "--format", "count")
	if !strings.Contains(out, "1.0\t12\n") {
		t.Errorf("halo exchanges per rank:\n%s", out)
	}
}

// The diffNLR of the rank that skipped its halo exchange in step 6 says so
// first: where in the program, in which iteration of the time step, and
// what is missing, by the names of the source: the exchange, not the first
// of the calls it makes. The faulty run's flag (--skip-bug) makes calls the
// normal run does not, set aside as run-wide, and the sentence still reads
// the trace as recorded.
func TestFirstDifferenceNamesTheSkippedCall(t *testing.T) {
	out := ok(t, "diffnlr", "3", "--normal", absRun(t, "stencil-normal"), "--faulty", absRun(t, "stencil-skipbug"), "--filter", "all", "--color", "never")
	want := "first difference: iteration 6 of 12 of the loop over driver::Simulation::step, "
	i := strings.Index(out, want)
	if i < 0 {
		t.Fatalf("no first difference in iteration 6 of 12:\n%s", out)
	}
	line := out[i:]
	line = line[:strings.IndexByte(line, '\n')]
	for _, w := range []string{"in main > driver::Simulation::run > driver::Simulation::step > driver::Simulation::exchange:", "halo::Exchanger::exchange missing (with the 60 calls it makes)"} {
		if !strings.Contains(line, w) {
			t.Errorf("the first difference %q lacks %q", line, w)
		}
	}
	if strings.Index(out, "--- normal") < i {
		t.Errorf("the first difference comes after the diff:\n%s", out)
	}
}

// -o FILE.json writes the diffNLR as data: the first difference with its
// place, call stack (full signatures) and the whole diff.
func TestDiffNLRJSON(t *testing.T) {
	dir := t.TempDir()
	okIn(t, dir, "diffnlr", "3", "--normal", absRun(t, "stencil-normal"), "--faulty", absRun(t, "stencil-skipbug"), "--filter", "mpi", "-o", "d.json")
	var doc struct {
		Trace, Filter string
		Ended         string `json:"faulty_ended"`
		Threads       []struct {
			Trace string
			First *struct {
				Text   string
				Stack  []string `json:"call_stack"`
				Normal []string `json:"normal_only"`
				Place  struct {
					Loops []struct{ Iteration, Count int32 }
				}
				Kind  string
				Calls []string
				Loops []struct {
					Body             string
					Iteration, Count int
				}
			} `json:"first_difference"`
			Diff []struct {
				Kind     string
				Elements []string
			}
		}
		Loops []struct {
			ID   string
			Body []string
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "d.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Trace != "3" || doc.Filter != "mpi" || doc.Ended != "killed by the timeout" || len(doc.Threads) != 1 || len(doc.Loops) == 0 {
		t.Fatalf("diffNLR JSON: %s", b)
	}
	th := doc.Threads[0]
	// The view's place (its NLR's loop), and the change read on the whole
	// call tree: the exchange missing from step 6, named in full.
	if th.First == nil || len(th.First.Place.Loops) != 1 || th.First.Place.Loops[0].Iteration != 6 || th.First.Place.Loops[0].Count != 12 ||
		!slices.Contains(th.First.Stack, "driver::Simulation::exchange(int)") || th.First.Normal[0] != "MPI_Irecv" ||
		th.First.Kind != "missing" || len(th.First.Calls) != 1 || th.First.Calls[0] != "halo::Exchanger::exchange(mesh::Field<double>&)" ||
		len(th.First.Loops) != 1 || th.First.Loops[0].Iteration != 6 || th.First.Loops[0].Count != 12 || th.First.Loops[0].Body != "driver::Simulation::step(int)" {
		t.Errorf("first difference: %+v", th.First)
	}
	kinds := map[string]bool{}
	for _, d := range th.Diff {
		kinds[d.Kind] = true
	}
	if !kinds["common"] || !kinds["normal-only"] || !kinds["faulty-only"] {
		t.Errorf("diff kinds %v", kinds)
	}
}

// The explanation rank suggests is shorter than a plain diff of the
// suggested trace's call listings in the two runs, and says more: where in
// the loops and the call stack the runs part.
func TestExplanationBeatsListingDiff(t *testing.T) {
	diffTool := testenv.Tool(t, "diff", "it diffs the call listings")
	for _, p := range [][2]string{
		{"oddeven-normal", "oddeven-swapbug"}, {"oddeven-normal", "oddeven-dlbug"},
		{"ilcs-normal", "ilcs-critbug"}, {"stencil-normal", "stencil-skipbug"},
	} {
		dir := t.TempDir()
		out := okIn(t, dir, "rank", absRun(t, p[0]), absRun(t, p[1]))
		_, cmdline, _ := strings.Cut(out, "how it changed: difftrace ")
		args := strings.Fields(strings.SplitN(cmdline, "\n", 2)[0])
		explained := okIn(t, dir, append(args, "--color", "never")...)
		id := args[1]
		if !strings.Contains(id, ".") {
			id += ".0"
		}
		var listings [2]string
		for r, run := range p {
			l := ok(t, "decode", absRun(t, run), "--trace", id, "--format", "flat")
			// Drop the event numbers, which shift with every change.
			var b strings.Builder
			for _, line := range strings.Split(l, "\n") {
				if f := strings.SplitN(line, "\t", 3); len(f) == 3 {
					b.WriteString(f[2] + "\n")
				}
			}
			listings[r] = filepath.Join(dir, run+".txt")
			if err := os.WriteFile(listings[r], []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		plain, _ := exec.Command(diffTool, listings[0], listings[1]).Output()
		n, m := strings.Count(explained, "\n"), strings.Count(string(plain), "\n")
		if n >= m || !strings.Contains(explained, "first difference") {
			t.Errorf("%s: the suggested diffNLR of %s takes %d lines, a plain diff of its listings %d", p[1], id, n, m)
		}
		t.Logf("%s, trace %s: diffNLR %d lines, plain diff of the listings %d", p[1], id, n, m)
	}
}

// When a trace repeats a flat block longer than K, diffnlr says which K
// folds it; with K large enough it says nothing.
func TestUnfoldedNote(t *testing.T) {
	normal, faulty := absRun(t, "stencil-normal"), absRun(t, "stencil-skipbug")
	r := difftrace(t, "diffnlr", "3", "--normal", normal, "--faulty", faulty, "--filter", "all", "--k", "3")
	if r.code != 0 || !strings.Contains(string(r.stderr), "note: trace 3.0 repeats a block of 12 elements that K 3 leaves unrolled under filter all; --k 12 folds it") {
		t.Errorf("--k 3: exit %d, stderr %q", r.code, r.stderr)
	}
	r = difftrace(t, "diffnlr", "3", "--normal", normal, "--faulty", faulty, "--filter", "all", "--k", "12")
	if strings.Contains(string(r.stderr), "unrolled") {
		t.Errorf("--k 12: stderr %q", r.stderr)
	}
}
