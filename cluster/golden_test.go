package cluster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/difftrace/difftrace/internal/testenv"
)

// golden is testdata/golden.json, written by testdata/gen_golden.py with SciPy.
type golden struct {
	SciPy   string       `json:"scipy"`
	Methods []string     `json:"methods"`
	Cases   []goldenCase `json:"cases"`
	FM      []struct {
		A, B []int
		BK   float64 `json:"b_k"`
	} `json:"fowlkes_mallows"`
}

type goldenCase struct {
	Name    string    `json:"name"`
	N       int       `json:"n"`
	Y       []float64 `json:"y"`
	Methods map[string]struct {
		Z        []goldenRow `json:"Z"`
		MaxClust []struct {
			K      int   `json:"k"`
			Labels []int `json:"labels"`
		} `json:"maxclust"`
	} `json:"methods"`
}

// goldenRow is one row [A, B, height, size] of a SciPy linkage matrix; the
// height is a number or the string "NaN".
type goldenRow struct {
	A, B   int
	Height float64
	Size   int
}

func (r *goldenRow) UnmarshalJSON(b []byte) error {
	var raw [4]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	var s string
	if json.Unmarshal(raw[2], &s) == nil {
		h, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return err
		}
		r.Height = h
	} else if err := json.Unmarshal(raw[2], &r.Height); err != nil {
		return err
	}
	if err := json.Unmarshal(raw[0], &r.A); err != nil {
		return err
	}
	if err := json.Unmarshal(raw[1], &r.B); err != nil {
		return err
	}
	return json.Unmarshal(raw[3], &r.Size)
}

func loadGolden(t testing.TB) *golden {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("testdata/golden.json: %v", err)
	}
	if len(g.Cases) == 0 || len(g.Methods) != 7 {
		t.Fatalf("testdata/golden.json: %d cases, %d methods; regenerate it with gen_golden.py", len(g.Cases), len(g.Methods))
	}
	return &g
}

// sameHeight compares heights to within 1e-9 relative (NaN equals NaN).
func sameHeight(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

func dendrogramOf(n int, m Method, rows []goldenRow) *Dendrogram {
	dg := &Dendrogram{N: n, Method: m, Merges: make([]Merge, len(rows))}
	for i, r := range rows {
		dg.Merges[i] = Merge(r)
	}
	return dg
}

// TestLinkageGolden checks every method on every golden case: the same
// merges in the same order, the same sizes, heights within 1e-9 relative.
func TestLinkageGolden(t *testing.T) {
	g := loadGolden(t)
	t.Logf("golden outputs from SciPy %s: %d cases", g.SciPy, len(g.Cases))
	exact, rows := 0, 0
	for _, c := range g.Cases {
		for _, name := range g.Methods {
			m, err := ParseMethod(name)
			if err != nil {
				t.Fatal(err)
			}
			want := c.Methods[name].Z
			dg, err := Linkage(c.Y, m)
			if err != nil {
				t.Errorf("%s/%s: %v", c.Name, name, err)
				continue
			}
			if dg.N != c.N || len(dg.Merges) != len(want) {
				t.Errorf("%s/%s: n = %d with %d merges; want n = %d with %d", c.Name, name, dg.N, len(dg.Merges), c.N, len(want))
				continue
			}
			for i, w := range want {
				got := dg.Merges[i]
				if got.A != w.A || got.B != w.B || got.Size != w.Size || !sameHeight(got.Height, w.Height) {
					t.Errorf("%s/%s: merge %d = [%d %d %.17g %d]; SciPy [%d %d %.17g %d]",
						c.Name, name, i, got.A, got.B, got.Height, got.Size, w.A, w.B, w.Height, w.Size)
					break
				}
				rows++
				if got.Height == w.Height || (math.IsNaN(got.Height) && math.IsNaN(w.Height)) {
					exact++
				}
			}
		}
	}
	t.Logf("%d merges compared, %d with bit-identical heights", rows, exact)
}

// TestMaxClustGolden checks flat cuts, both of the dendrogram Linkage builds
// and of SciPy's own linkage matrix.
func TestMaxClustGolden(t *testing.T) {
	g := loadGolden(t)
	for _, c := range g.Cases {
		for _, name := range g.Methods {
			m, _ := ParseMethod(name)
			gm := c.Methods[name]
			ours, err := Linkage(c.Y, m)
			if err != nil {
				t.Fatalf("%s/%s: %v", c.Name, name, err)
			}
			theirs := dendrogramOf(c.N, m, gm.Z)
			for _, cut := range gm.MaxClust {
				for which, dg := range map[string]*Dendrogram{"ours": ours, "scipy Z": theirs} {
					got, err := dg.MaxClust(cut.K)
					if err != nil {
						t.Errorf("%s/%s k=%d (%s): %v", c.Name, name, cut.K, which, err)
						continue
					}
					if fmt.Sprint(got) != fmt.Sprint(cut.Labels) {
						t.Errorf("%s/%s k=%d (%s): labels %v; want %v", c.Name, name, cut.K, which, got, cut.Labels)
					}
				}
			}
		}
	}
}

func TestFowlkesMallowsGolden(t *testing.T) {
	g := loadGolden(t)
	if len(g.FM) == 0 {
		t.Fatal("no Fowlkes-Mallows cases in testdata/golden.json")
	}
	for i, c := range g.FM {
		got, err := FowlkesMallows(c.A, c.B)
		if err != nil {
			t.Fatal(err)
		}
		if !sameHeight(got, c.BK) {
			t.Errorf("case %d: B = %.17g; want %.17g (a=%v b=%v)", i, got, c.BK, c.A, c.B)
		}
	}
}

// TestGoldenUpToDate reruns testdata/gen_golden.py with Debian's SciPy and
// checks that it reproduces testdata/golden.json byte for byte, so the
// committed expectations are SciPy's and not edited by hand. In CI a missing
// SciPy is a failure; elsewhere the test is skipped.
func TestGoldenUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not running SciPy")
	}
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import scipy").Run(); err != nil {
		if testenv.InCI() {
			t.Fatalf("%s with SciPy is needed (apt-get install python3-scipy): %v", python, err)
		}
		t.Skipf("SKIPPED: %s has no SciPy (apt-get install python3-scipy); golden.json not regenerated", python)
	}
	out, err := exec.Command(python, "testdata/gen_golden.py").Output()
	if err != nil {
		t.Fatalf("gen_golden.py: %v", err)
	}
	want, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, want) {
		t.Fatalf("testdata/gen_golden.py no longer reproduces testdata/golden.json; "+
			"regenerate it: %s cluster/testdata/gen_golden.py > cluster/testdata/golden.json", python)
	}
}
