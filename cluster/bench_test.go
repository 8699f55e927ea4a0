package cluster

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"testing"
)

// jaccardCondensed returns the Jaccard distances of n random subsets of a
// 12-element universe: what difftrace feeds Linkage, with many ties and
// duplicates.
func jaccardCondensed(rng *rand.Rand, n int) []float64 {
	sets := make([]uint16, n)
	for i := range sets {
		sets[i] = uint16(rng.IntN(1 << 12))
	}
	d := make([]float64, 0, n*(n-1)/2)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			u := bits.OnesCount16(sets[i] | sets[j])
			if u == 0 {
				d = append(d, 0)
				continue
			}
			d = append(d, 1-float64(bits.OnesCount16(sets[i]&sets[j]))/float64(u))
		}
	}
	return d
}

// BenchmarkLinkage times every method on n = 1,024 and 4,096 observations,
// with uniform random distances and with Jaccard distances (many ties).
func BenchmarkLinkage(b *testing.B) {
	for _, n := range []int{1024, 4096} {
		inputs := map[string][]float64{
			"uniform": randomCondensed(rand.New(rand.NewPCG(1, uint64(n))), n),
			"jaccard": jaccardCondensed(rand.New(rand.NewPCG(2, uint64(n))), n),
		}
		for _, kind := range []string{"uniform", "jaccard"} {
			for _, m := range Methods() {
				d := inputs[kind]
				b.Run(fmt.Sprintf("%s/n=%d/%s", m, n, kind), func(b *testing.B) {
					for b.Loop() {
						if _, err := Linkage(d, m); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkMaxClustBScore times cutting two ward dendrograms of 4,096
// observations into 10 clusters and comparing the cuts.
func BenchmarkMaxClustBScore(b *testing.B) {
	n := 4096
	rng := rand.New(rand.NewPCG(5, 6))
	x, err := Linkage(jaccardCondensed(rng, n), Ward)
	if err != nil {
		b.Fatal(err)
	}
	y, err := Linkage(jaccardCondensed(rng, n), Ward)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := BScore(x, y, 10); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLinkageFile times every method on the condensed distances in
// the file LINKAGE_FILE (little-endian float64, as numpy's tofile writes
// them), for a side-by-side comparison with SciPy on the same input
// (examples/bench-linkage.sh). Without LINKAGE_FILE it does nothing.
func BenchmarkLinkageFile(b *testing.B) {
	path := os.Getenv("LINKAGE_FILE")
	if path == "" {
		b.Skip("LINKAGE_FILE not set (examples/bench-linkage.sh sets it)")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	d := make([]float64, len(raw)/8)
	for i := range d {
		d[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	for _, m := range Methods() {
		b.Run(m.String(), func(b *testing.B) {
			for b.Loop() {
				if _, err := Linkage(d, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
