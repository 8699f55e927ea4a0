package layering

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/difftrace/difftrace/"

// pkg is what go list says of one package.
type pkg struct {
	ImportPath string
	Name       string
	Imports    []string
}

// packages lists the module's packages (tests left out: a test may import
// what its package may not).
func packages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Name,Imports", module+"...")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var ps []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		p.ImportPath = strings.TrimPrefix(p.ImportPath, module)
		for i, imp := range p.Imports {
			p.Imports[i] = strings.TrimPrefix(imp, module)
		}
		ps = append(ps, p)
	}
	if len(ps) < 20 {
		t.Fatalf("go list found %d packages; the rule cannot be checked", len(ps))
	}
	return ps
}

// under reports whether path is dir or a package below it.
func under(path, dir string) bool { return path == dir || strings.HasPrefix(path, dir+"/") }

// drawing reports whether an import draws or plots.
func drawing(imp string) bool {
	return under(imp, "draw") || strings.HasPrefix(imp, "gonum.org/v1/plot") || strings.HasPrefix(imp, "github.com/goccy/go-graphviz")
}

// The rule of docs/architecture.md, "What may import what", on the
// project's packages.
func TestImportRule(t *testing.T) {
	for _, v := range violations(packages(t)) {
		t.Error(v)
	}
}

// The rule finds what it is meant to find.
func TestImportRuleCatches(t *testing.T) {
	bad := []pkg{
		{ImportPath: "trace", Name: "trace", Imports: []string{"nlr"}},
		{ImportPath: "compare", Name: "compare", Imports: []string{"rank"}},
		{ImportPath: "rank", Name: "rank", Imports: []string{"gonum.org/v1/plot"}},
		{ImportPath: "internal/synth", Name: "synth", Imports: []string{"decode"}},
		{ImportPath: "capture/tool", Name: "main"},
		{ImportPath: "hang", Name: "hang", Imports: []string{"cmd/difftrace"}},
		{ImportPath: "report", Name: "report", Imports: []string{"internal/exporttest"}},
		{ImportPath: "diffnlr", Name: "diffnlr", Imports: []string{"draw/dot"}},
		{ImportPath: "fca", Name: "fca", Imports: []string{"gonum.org/v1/plot/vg"}},
		{ImportPath: "hang", Name: "hang", Imports: []string{"draw"}},
		{ImportPath: "nlr", Name: "nlr", Imports: []string{"github.com/goccy/go-graphviz"}},
		{ImportPath: "draw/hasse", Name: "hasse", Imports: []string{"fca/fcatest"}},
		{ImportPath: "capture/record", Name: "record", Imports: []string{"decode"}},
		{ImportPath: "uftrace", Name: "uftrace", Imports: []string{"rundir"}},
	}
	if got := violations(bad); len(got) != len(bad) {
		t.Errorf("%d violations of %d planted:\n%s", len(got), len(bad), strings.Join(got, "\n"))
	}
}

// violations returns what the packages import against the rule.
func violations(ps []pkg) []string {
	// May import no other package of the project but trace (internal
	// helpers aside).
	leaves := []string{"trace", "uftrace", "elfsym", "symname", "cluster", "rundir", "parlot", "filters", "nlr"}
	// What a leaf may import besides trace: uftrace reads the symbols of
	// an ELF file when a recording lacks them.
	leafDeps := map[string][]string{"uftrace": {"elfsym"}}
	// The analysis: it draws nothing (the pictures are drawn under draw/).
	analysis := []string{"trace", "uftrace", "elfsym", "symname", "cluster", "rundir", "parlot", "filters", "nlr", "fca", "diffnlr", "decode", "summary", "compare", "rank", "hang", "outlier", "capture"}
	// Forbidden imports, by package: who sits above whom.
	forbidden := map[string][]string{
		"decode":  {"compare", "rank", "hang", "nlr", "fca", "cluster", "diffnlr", "report", "outlier", "session", "summary"},
		"compare": {"rank", "hang", "report", "outlier", "session"},
		"hang":    {"rank", "report", "outlier", "session"},
		"rank":    {"report", "outlier", "session"},
		"outlier": {"report", "session"},
		"summary": {"compare", "rank", "hang", "report"},
		"report":  {"session"},
		// Writers of runs never import the readers.
		"internal/synth": {"decode"},
		"rundir":         {"decode"},
		"parlot":         {"decode"},
		"capture":        {"decode"},
		"capture/record": {"decode"},
	}
	var out []string
	for _, p := range ps {
		path := p.ImportPath
		if p.Name == "main" && !under(path, "cmd") {
			out = append(out, path+" is a main package outside cmd/")
		}
		for _, imp := range p.Imports {
			switch {
			case !under(path, "cmd") && under(imp, "cmd"):
				out = append(out, path+" imports "+imp+": nothing imports a command")
			case testSupport(imp) && !testSupport(path):
				out = append(out, path+" imports "+imp+", which is for tests")
			case slices.Contains(analysis, path) && drawing(imp):
				out = append(out, path+" imports "+imp+": the analysis draws nothing")
			case slices.Contains(leaves, path) && isProject(imp) && imp != "trace" && !slices.Contains(leafDeps[path], imp):
				out = append(out, path+" imports "+imp+": it stands on trace alone")
			}
			for _, f := range forbidden[path] {
				if under(imp, f) {
					out = append(out, path+" imports "+imp+", which stands above it")
				}
			}
		}
	}
	return out
}

// testSupport reports whether a package of the project is there for tests
// only: its name ends in "test" (internal/exporttest, parlot/parlottest,
// export/chrome/chrometest, fca/fcatest, diffnlr/diffnlrtest,
// uftrace/uftracetest).
func testSupport(path string) bool {
	return (isProject(path) || under(path, "internal")) && strings.HasSuffix(path, "test")
}

// projectTop are the module's top-level packages, for isProject.
var projectTop = []string{"capture", "cluster", "compare", "decode", "diffnlr", "draw", "elfsym", "export", "fca", "filters", "hang", "nlr", "outlier", "parlot", "rank", "report", "rundir", "session", "summary", "symname", "trace", "uftrace", "cmd"}

// isProject reports whether an import (module prefix cut) is one of the
// project's packages.
func isProject(imp string) bool {
	top, _, _ := strings.Cut(imp, "/")
	return slices.Contains(projectTop, top)
}
