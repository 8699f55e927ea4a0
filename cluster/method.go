package cluster

import (
	"fmt"
	"math"
	"strings"
)

// Method is a linkage: how the distance from a newly merged cluster to every
// other cluster is computed (a Lance–Williams update).
type Method int

// The seven linkages of scipy.cluster.hierarchy.linkage.
const (
	Single   Method = iota // nearest members
	Complete               // farthest members
	Average                // mean over member pairs (UPGMA)
	Weighted               // mean of the two merged clusters' distances (WPGMA)
	Centroid               // distance of centroids (UPGMC)
	Median                 // distance of midpoints (WPGMC)
	Ward                   // increase of within-cluster variance
)

var methodNames = [...]string{"single", "complete", "average", "weighted", "centroid", "median", "ward"}

// Methods returns every linkage, in the order of their names in SciPy's
// documentation.
func Methods() []Method {
	return []Method{Single, Complete, Average, Weighted, Centroid, Median, Ward}
}

// String returns the method's SciPy name.
func (m Method) String() string {
	if m < 0 || int(m) >= len(methodNames) {
		return fmt.Sprintf("Method(%d)", int(m))
	}
	return methodNames[m]
}

// ParseMethod returns the linkage named s (SciPy's names, any case).
func ParseMethod(s string) (Method, error) {
	for i, name := range methodNames {
		if strings.EqualFold(s, name) {
			return Method(i), nil
		}
	}
	return 0, fmt.Errorf("cluster: unknown linkage method %q (valid: %s)", s, strings.Join(methodNames[:], ", "))
}

// MarshalText and UnmarshalText let a Method appear by name in JSON and flags.
func (m Method) MarshalText() ([]byte, error) {
	if m < 0 || int(m) >= len(methodNames) {
		return nil, fmt.Errorf("cluster: unknown linkage method %d (valid: %s)", int(m), strings.Join(methodNames[:], ", "))
	}
	return []byte(methodNames[m]), nil
}

// UnmarshalText parses a method name as ParseMethod does.
func (m *Method) UnmarshalText(b []byte) error {
	v, err := ParseMethod(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

func (m Method) valid() error {
	if m < 0 || int(m) >= len(methodNames) {
		return fmt.Errorf("cluster: unknown linkage method %d (valid: %s)", int(m), strings.Join(methodNames[:], ", "))
	}
	return nil
}

// update is a Lance–Williams update: the distance from cluster i to the union
// of clusters x and y, given dxi, dyi, dxy and the three sizes.
type update func(dxi, dyi, dxy float64, nx, ny, ni int) float64

// merge joins clusters x and y, at distance dxy, into slot y of a working
// condensed matrix d (rows at base, see rowBases): every other live cluster
// i gets its distance to the union, and size[x] becomes 0 (x is gone) and
// size[y] the union's size. Both linkage algorithms merge this way.
func (upd update) merge(d []float64, base, size []int, x, y int, dxy float64) {
	nx, ny := size[x], size[y]
	size[x] = 0
	size[y] = nx + ny
	for i, ni := range size {
		if ni == 0 || i == y {
			continue
		}
		iy := pairAt(base, i, y)
		d[iy] = upd(d[pairAt(base, i, x)], d[iy], dxy, nx, ny, ni)
	}
}

// The updates are written operation for operation as SciPy evaluates them
// (C doubles, left to right, integer sums and products of sizes in int), so
// that ties come out bit for bit the same. Each product is converted
// explicitly to float64, which forbids the compiler to fuse it with the next
// addition (a fused multiply-add rounds once and could break a tie).
func (m Method) update() update {
	switch m {
	case Single:
		return func(dxi, dyi, _ float64, _, _, _ int) float64 {
			if dyi < dxi {
				return dyi
			}
			return dxi
		}
	case Complete:
		return func(dxi, dyi, _ float64, _, _, _ int) float64 {
			if dyi > dxi {
				return dyi
			}
			return dxi
		}
	case Average:
		return func(dxi, dyi, _ float64, nx, ny, _ int) float64 {
			return (float64(float64(nx)*dxi) + float64(float64(ny)*dyi)) / float64(nx+ny)
		}
	case Weighted:
		return func(dxi, dyi, _ float64, _, _, _ int) float64 {
			return 0.5 * (dxi + dyi)
		}
	case Centroid:
		return func(dxi, dyi, dxy float64, nx, ny, _ int) float64 {
			a := float64(float64(float64(nx)*dxi) * dxi)
			b := float64(float64(float64(ny)*dyi) * dyi)
			c := float64(float64(float64(nx*ny)*dxy)*dxy) / float64(nx+ny)
			return math.Sqrt(((a + b) - c) / float64(nx+ny))
		}
	case Median:
		return func(dxi, dyi, dxy float64, _, _, _ int) float64 {
			a := float64(0.5 * (float64(dxi*dxi) + float64(dyi*dyi)))
			c := float64(float64(0.25*dxy) * dxy)
			return math.Sqrt(a - c)
		}
	case Ward:
		return func(dxi, dyi, dxy float64, nx, ny, ni int) float64 {
			t := 1.0 / float64(nx+ny+ni)
			a := float64(float64(float64(float64(ni+nx)*t)*dxi) * dxi)
			b := float64(float64(float64(float64(ni+ny)*t)*dyi) * dyi)
			c := float64(float64(float64(float64(ni)*t)*dxy) * dxy)
			return math.Sqrt(float64(a+b) - c)
		}
	}
	return nil
}
