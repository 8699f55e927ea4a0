package cluster

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestNumObs(t *testing.T) {
	for n := 1; n < 300; n++ {
		got, err := NumObs(n * (n - 1) / 2)
		if err != nil || got != n {
			t.Fatalf("NumObs(%d) = %d, %v; want %d", n*(n-1)/2, got, err, n)
		}
	}
	for _, m := range []int{2, 4, 5, 7, 11, 44, -1} {
		if _, err := NumObs(m); err == nil {
			t.Errorf("NumObs(%d): no error", m)
		}
	}
	_, err := NumObs(7)
	if err == nil || !strings.Contains(err.Error(), "6 for n = 4, 10 for n = 5") {
		t.Errorf("NumObs(7) error %v does not name the nearest valid lengths", err)
	}
}

func TestIndexAndPairOf(t *testing.T) {
	for n := 2; n < 40; n++ {
		idx := 0
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if got := Index(n, i, j); got != idx {
					t.Fatalf("Index(%d, %d, %d) = %d; want %d", n, i, j, got, idx)
				}
				if got := Index(n, j, i); got != idx {
					t.Fatalf("Index(%d, %d, %d) = %d; want %d", n, j, i, got, idx)
				}
				if a, b := pairOf(n, idx); a != i || b != j {
					t.Fatalf("pairOf(%d, %d) = %d, %d; want %d, %d", n, idx, a, b, i, j)
				}
				idx++
			}
		}
	}
}

func TestLinkageBadInput(t *testing.T) {
	cases := []struct {
		d    []float64
		m    Method
		want string
	}{
		{[]float64{1, 2}, Average, "not n(n-1)/2"},
		{[]float64{1, math.NaN(), 1}, Average, "distance 1 (observations 0 and 2) is NaN"},
		{[]float64{1, 1, -0.5}, Ward, "distance 2 (observations 1 and 2) is negative"},
		{[]float64{math.Inf(1), 1, 1}, Single, "is infinite"},
		{[]float64{1, 1, 1}, Method(7), "valid: single, complete, average, weighted, centroid, median, ward"},
		{[]float64{1, 1, 1}, Method(-1), "unknown linkage method"},
	}
	for _, c := range cases {
		_, err := Linkage(c.d, c.m)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Linkage(%v, %d) error %v; want one containing %q", c.d, int(c.m), err, c.want)
		}
	}
}

func TestParseMethod(t *testing.T) {
	for _, m := range Methods() {
		got, err := ParseMethod(strings.ToUpper(m.String()))
		if err != nil || got != m {
			t.Errorf("ParseMethod(%q) = %v, %v", m.String(), got, err)
		}
		b, err := m.MarshalText()
		if err != nil || string(b) != m.String() {
			t.Errorf("%v.MarshalText() = %q, %v", m, b, err)
		}
		var back Method
		if err := back.UnmarshalText(b); err != nil || back != m {
			t.Errorf("UnmarshalText(%q) = %v, %v", b, back, err)
		}
	}
	_, err := ParseMethod("upgma")
	if err == nil || err.Error() != `cluster: unknown linkage method "upgma" (valid: single, complete, average, weighted, centroid, median, ward)` {
		t.Errorf("ParseMethod(upgma) error %v", err)
	}
}

func TestLinkageOneObservation(t *testing.T) {
	for _, m := range Methods() {
		dg, err := Linkage(nil, m)
		if err != nil || dg.N != 1 || len(dg.Merges) != 0 {
			t.Fatalf("%v: Linkage(nil) = %+v, %v; want one observation, no merges", m, dg, err)
		}
		labels, err := dg.MaxClust(1)
		if err != nil || len(labels) != 1 || labels[0] != 1 {
			t.Errorf("%v: MaxClust(1) of one observation = %v, %v", m, labels, err)
		}
	}
}

func TestLinkageDoesNotModifyInput(t *testing.T) {
	d := randomCondensed(rand.New(rand.NewPCG(1, 2)), 30)
	keep := append([]float64(nil), d...)
	for _, m := range Methods() {
		if _, err := Linkage(d, m); err != nil {
			t.Fatal(err)
		}
		for i := range d {
			if math.Float64bits(d[i]) != math.Float64bits(keep[i]) {
				t.Fatalf("%v modified d[%d]", m, i)
			}
		}
	}
}

// TestLinkageInvariants checks, for many random matrices with and without
// ties, that every method returns a valid dendrogram, that the reducible
// methods' heights never decrease, and that the final height of single and
// complete linkage is the largest minimum-spanning-tree edge and the
// largest distance respectively.
func TestLinkageInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		n := 2 + rng.IntN(40)
		d := randomCondensed(rng, n)
		if trial%2 == 1 { // heavy ties
			for i := range d {
				d[i] = float64(rng.IntN(3)) / 2
			}
		}
		for _, m := range Methods() {
			dg, err := Linkage(d, m)
			if err != nil {
				t.Fatalf("trial %d %v: %v", trial, m, err)
			}
			if err := dg.Validate(); err != nil {
				t.Fatalf("trial %d %v: %v", trial, m, err)
			}
			if m == Centroid || m == Median {
				continue
			}
			for i := 1; i < len(dg.Merges); i++ {
				if dg.Merges[i].Height < dg.Merges[i-1].Height {
					t.Fatalf("trial %d %v: height decreases at merge %d", trial, m, i)
				}
			}
			top := dg.Merges[len(dg.Merges)-1].Height
			if m == Complete {
				want := 0.0
				for _, v := range d {
					want = math.Max(want, v)
				}
				if top != want {
					t.Fatalf("trial %d complete: top height %v; want largest distance %v", trial, top, want)
				}
			}
		}
	}
}

func TestValidateRejects(t *testing.T) {
	good := &Dendrogram{N: 3, Merges: []Merge{{0, 1, 1, 2}, {2, 3, 2, 3}}}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []*Dendrogram{
		nil,
		{N: 0},
		{N: 3, Merges: []Merge{{0, 1, 1, 2}}},
		{N: 3, Merges: []Merge{{0, 4, 1, 2}, {2, 3, 2, 3}}},
		{N: 3, Merges: []Merge{{0, 1, 1, 2}, {1, 3, 2, 3}}},
		{N: 3, Merges: []Merge{{0, 0, 1, 2}, {2, 3, 2, 3}}},
		{N: 3, Merges: []Merge{{0, 1, 1, 2}, {2, 3, 2, 4}}},
		{N: 3, Merges: []Merge{{0, 1, -1, 2}, {2, 3, 2, 3}}},
	}
	for i, dg := range bad {
		if err := dg.Validate(); err == nil {
			t.Errorf("case %d: no error", i)
		}
		if _, err := dg.MaxClust(1); err == nil {
			t.Errorf("case %d: MaxClust accepted an invalid dendrogram", i)
		}
	}
}

func TestMaxClustRange(t *testing.T) {
	dg, err := Linkage([]float64{1, 2, 3}, Average)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{0, -1, 4} {
		_, err := dg.MaxClust(k)
		if err == nil || !strings.Contains(err.Error(), "k must be between 1 and 3") {
			t.Errorf("MaxClust(%d) error %v", k, err)
		}
	}
	for k, want := range map[int]string{1: "[1 1 1]", 2: "[1 1 2]", 3: "[1 2 3]"} {
		got, err := dg.MaxClust(k)
		if err != nil || sprint(got) != want {
			t.Errorf("MaxClust(%d) = %v, %v; want %s", k, got, err, want)
		}
	}
}

// TestMaxClustTies: merges at one height are cut together, so four
// equidistant observations give one cluster or four, never two.
func TestMaxClustTies(t *testing.T) {
	dg, err := Linkage([]float64{1, 1, 1, 1, 1, 1}, Average)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[int]string{1: "[1 1 1 1]", 2: "[1 1 1 1]", 3: "[1 1 1 1]", 4: "[1 2 3 4]"} {
		got, err := dg.MaxClust(k)
		if err != nil || sprint(got) != want {
			t.Errorf("MaxClust(%d) = %v, %v; want %s", k, got, err, want)
		}
	}
}

func randomCondensed(rng *rand.Rand, n int) []float64 {
	d := make([]float64, n*(n-1)/2)
	for i := range d {
		d[i] = rng.Float64()
	}
	return d
}
