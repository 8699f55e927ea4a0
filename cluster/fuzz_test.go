package cluster

import "testing"

// FuzzLinkage feeds arbitrary small distance matrices (few distinct values,
// so many ties) to every method and checks that nothing panics and that the
// dendrograms and their flat cuts are well formed.
func FuzzLinkage(f *testing.F) {
	f.Add([]byte{1, 2, 3})
	f.Add([]byte{0, 0, 0, 0, 0, 0})
	f.Add([]byte{3, 1, 2, 2, 0, 1, 3, 3, 1, 2})
	f.Fuzz(func(t *testing.T, b []byte) {
		n := 1
		for n*(n+1)/2 <= len(b) && n < 40 {
			n++
		}
		d := make([]float64, n*(n-1)/2)
		for i := range d {
			d[i] = float64(b[i]%7) / 6
		}
		for _, m := range Methods() {
			dg, err := Linkage(d, m)
			if err != nil {
				t.Fatalf("%v: %v", m, err)
			}
			if err := dg.Validate(); err != nil {
				t.Fatalf("%v: %v", m, err)
			}
			for k := 1; k <= n; k++ {
				labels, err := dg.MaxClust(k)
				if err != nil {
					t.Fatalf("%v k=%d: %v", m, k, err)
				}
				seen := map[int]bool{}
				for _, l := range labels {
					seen[l] = true
				}
				if len(seen) > k {
					t.Fatalf("%v k=%d: %d clusters", m, k, len(seen))
				}
				for l := 1; l <= len(seen); l++ {
					if !seen[l] {
						t.Fatalf("%v k=%d: labels %v skip %d", m, k, labels, l)
					}
				}
			}
		}
	})
}
