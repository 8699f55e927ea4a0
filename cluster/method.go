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

// merge joins clusters x and y, at distance dxy, into slot y of a working
// condensed matrix d (rows at base, see rowBases): every other live cluster
// i gets its distance to the union by m's Lance–Williams update, size[x]
// becomes 0 (x is gone) and size[y] the union's size. live lists the live
// clusters in increasing order; x leaves it. Both linkage algorithms merge
// this way. Each method has its own loop, so that its update is inlined.
func (m Method) merge(d []float64, base, size []int, live *liveSet, x, y int, dxy float64) {
	nx, ny := size[x], size[y]
	size[x] = 0
	size[y] = nx + ny
	live.remove(x)
	switch m {
	case Single:
		for _, i := range live.ids {
			if ix, iy, ok := pairs(base, int(i), x, y); ok {
				d[iy] = single(d[ix], d[iy])
			}
		}
	case Complete:
		for _, i := range live.ids {
			if ix, iy, ok := pairs(base, int(i), x, y); ok {
				d[iy] = complete(d[ix], d[iy])
			}
		}
	case Average:
		for _, i := range live.ids {
			if ix, iy, ok := pairs(base, int(i), x, y); ok {
				d[iy] = average(d[ix], d[iy], nx, ny)
			}
		}
	case Weighted:
		for _, i := range live.ids {
			if ix, iy, ok := pairs(base, int(i), x, y); ok {
				d[iy] = weighted(d[ix], d[iy])
			}
		}
	case Centroid:
		for _, i := range live.ids {
			if ix, iy, ok := pairs(base, int(i), x, y); ok {
				d[iy] = centroid(d[ix], d[iy], dxy, nx, ny)
			}
		}
	case Median:
		for _, i := range live.ids {
			if ix, iy, ok := pairs(base, int(i), x, y); ok {
				d[iy] = median(d[ix], d[iy], dxy)
			}
		}
	case Ward:
		for _, i := range live.ids {
			if ix, iy, ok := pairs(base, int(i), x, y); ok {
				d[iy] = ward(d[ix], d[iy], dxy, nx, ny, size[i])
			}
		}
	}
}

// pairs returns the positions of the distances from i to x and to y; ok is
// false for i = y.
func pairs(base []int, i, x, y int) (ix, iy int, ok bool) {
	return pairAt(base, i, x), pairAt(base, i, y), i != y
}

// The updates are written operation for operation as SciPy evaluates them
// (C doubles, left to right, integer sums and products of sizes in int), so
// that ties come out bit for bit the same. Each product is converted
// explicitly to float64, which forbids the compiler to fuse it with the next
// addition (a fused multiply-add rounds once and could break a tie).

func single(dxi, dyi float64) float64 {
	if dyi < dxi {
		return dyi
	}
	return dxi
}

func complete(dxi, dyi float64) float64 {
	if dyi > dxi {
		return dyi
	}
	return dxi
}

func average(dxi, dyi float64, nx, ny int) float64 {
	return (float64(float64(nx)*dxi) + float64(float64(ny)*dyi)) / float64(nx+ny)
}

func weighted(dxi, dyi float64) float64 { return 0.5 * (dxi + dyi) }

func centroid(dxi, dyi, dxy float64, nx, ny int) float64 {
	a := float64(float64(float64(nx)*dxi) * dxi)
	b := float64(float64(float64(ny)*dyi) * dyi)
	c := float64(float64(float64(nx*ny)*dxy)*dxy) / float64(nx+ny)
	return math.Sqrt(((a + b) - c) / float64(nx+ny))
}

func median(dxi, dyi, dxy float64) float64 {
	a := float64(0.5 * (float64(dxi*dxi) + float64(dyi*dyi)))
	c := float64(float64(0.25*dxy) * dxy)
	return math.Sqrt(a - c)
}

func ward(dxi, dyi, dxy float64, nx, ny, ni int) float64 {
	t := 1.0 / float64(nx+ny+ni)
	a := float64(float64(float64(float64(ni+nx)*t)*dxi) * dxi)
	b := float64(float64(float64(float64(ni+ny)*t)*dyi) * dyi)
	c := float64(float64(float64(float64(ni)*t)*dxy) * dxy)
	return math.Sqrt(float64(a+b) - c)
}

// liveSet is the clusters still live, in increasing order: the loops over
// clusters visit these only, not every slot with a size of 0, which halves
// the work over a whole clustering.
type liveSet struct {
	ids []int32
}

func newLiveSet(n int) *liveSet {
	l := &liveSet{ids: make([]int32, n)}
	for i := range l.ids {
		l.ids[i] = int32(i)
	}
	return l
}

// remove takes x out, keeping the order.
func (l *liveSet) remove(x int) {
	i := l.search(x)
	if i < len(l.ids) && int(l.ids[i]) == x {
		l.ids = append(l.ids[:i], l.ids[i+1:]...)
	}
}

// search returns the position of the first live cluster not below x.
func (l *liveSet) search(x int) int {
	lo, hi := 0, len(l.ids)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if int(l.ids[m]) < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
