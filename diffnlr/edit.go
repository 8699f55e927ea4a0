package diffnlr

// hunk is one change of a minimal edit script between two sequences:
// a[A:A+Del] deleted and b[B:B+Ins] inserted in their place, after
// everything before them matched.
type hunk struct {
	A, Del, B, Ins int
}

// maxEdits bounds the edits Myers' algorithm looks for: beyond it the two
// sequences are one hunk (a change this large is named by its first calls
// anyway).
const maxEdits = 1024

// editHunks returns the hunks of a minimal edit script turning a into b
// (Myers' O((N+M)·D) algorithm), in order. Of equally short scripts it
// takes the one that matches elements as early as it can, so that a
// change is placed where the sequences first part. openA (openB) says a
// (b) is a window of a longer sequence: the script may end where it
// does, what is left of the other being matched beyond it, so that the
// cut does not make a cheaper script of another alignment.
func editHunks(a, b []uint64, openA, openB bool) []hunk {
	n, m := len(a), len(b)
	max := min(n+m, maxEdits)
	off := max + 1
	v := make([]int, 2*max+3)
	// trace[d] holds v after d edits, for the diagonals -d..d.
	var trace [][]int
	found, endX, endY := -1, n, m
	for d := 0; d <= max && found < 0; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1] // an insertion: down from diagonal k+1
			} else {
				x = v[off+k-1] + 1 // a deletion: right from diagonal k-1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m || x >= n && openA || y >= m && openB {
				found, endX, endY = d, min(x, n), min(y, m)
				break
			}
		}
		trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
	}
	if found < 0 {
		// Too many edits: one hunk from the first element that differs.
		p := 0
		for p < n && p < m && a[p] == b[p] {
			p++
		}
		return []hunk{{A: p, Del: n - p, B: p, Ins: m - p}}
	}
	// Walk back, one edit at a time.
	type edit struct {
		x, y int
		del  bool
	}
	var edits []edit
	x, y := endX, endY
	for d := found; d > 0; d-- {
		prev := trace[d-1]
		at := func(k int) int { return prev[k+d-1] }
		k := x - y
		var px int
		del := false
		if k == -d || k != d && at(k-1) < at(k+1) {
			px = at(k + 1)
		} else {
			px = at(k-1) + 1
			del = true
		}
		py := px - k
		if del {
			edits = append(edits, edit{px - 1, py, true})
		} else {
			edits = append(edits, edit{px, py - 1, false})
		}
		x, y = px, py
		if del {
			x--
		} else {
			y--
		}
	}
	// edits are last first; group adjacent ones into hunks.
	var out []hunk
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		if len(out) > 0 {
			h := &out[len(out)-1]
			if e.del && e.x == h.A+h.Del && e.y == h.B+h.Ins {
				h.Del++
				continue
			}
			if !e.del && e.y == h.B+h.Ins && e.x == h.A+h.Del {
				h.Ins++
				continue
			}
		}
		if e.del {
			out = append(out, hunk{A: e.x, Del: 1, B: e.y})
		} else {
			out = append(out, hunk{A: e.x, B: e.y, Ins: 1})
		}
	}
	return out
}
