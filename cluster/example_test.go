package cluster_test

import (
	"fmt"

	"github.com/difftrace/difftrace/cluster"
)

// Four traces, 0 and 1 alike, 2 and 3 alike, the pairs far apart
// (distances 1 − Jaccard similarity): Ward linkage merges each pair, then
// the two, and a cut into two clusters gives the pairs.
func ExampleLinkage() {
	// The condensed matrix: d(0,1) d(0,2) d(0,3) d(1,2) d(1,3) d(2,3).
	d := []float64{0.1, 0.9, 0.8, 0.85, 0.9, 0.2}
	dg, err := cluster.Linkage(d, cluster.Ward)
	if err != nil {
		panic(err)
	}
	for _, m := range dg.Merges {
		fmt.Printf("%d + %d at %.3f (%d traces)\n", m.A, m.B, m.Height, m.Size)
	}
	flat, err := dg.MaxClust(2)
	if err != nil {
		panic(err)
	}
	fmt.Println(flat)
	// Output:
	// 0 + 1 at 0.100 (2 traces)
	// 2 + 3 at 0.200 (2 traces)
	// 4 + 5 at 1.211 (4 traces)
	// [1 1 2 2]
}
