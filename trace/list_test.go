package trace

import "testing"

func TestList(t *testing.T) {
	ids := func(ps ...[2]int) []ID {
		var out []ID
		for _, p := range ps {
			out = append(out, ID{Proc: p[0], Thread: p[1]})
		}
		return out
	}
	for _, c := range []struct {
		ids  []ID
		want string
	}{
		{ids([2]int{5, 0}, [2]int{0, 0}, [2]int{1, 0}, [2]int{3, 0}, [2]int{4, 0}, [2]int{9, 0}), "[0-1,3-5,9]"},
		{ids([2]int{0, 0}), "[0]"},
		{nil, "[]"},
		{ids([2]int{0, 1}, [2]int{0, 2}, [2]int{0, 3}, [2]int{2, 1}, [2]int{3, 0}), "0.[1-3], 2.1, 3.0"},
		{ids([2]int{0, 0}, [2]int{0, 1}, [2]int{1, 0}, [2]int{1, 1}, [2]int{2, 0}, [2]int{2, 1}, [2]int{3, 1}, [2]int{4, 1}, [2]int{6, 1}), "[0-2].[0-1], [3-4].1, 6.1"},
	} {
		if got := List(c.ids); got != c.want {
			t.Errorf("List(%v) = %q, want %q", c.ids, got, c.want)
		}
	}
}

func TestRanges(t *testing.T) {
	for _, c := range []struct {
		xs   []int
		want string
	}{
		{nil, ""},
		{[]int{7}, "7"},
		{[]int{0, 1, 3, 4, 5, 9}, "0-1,3-5,9"},
		{[]int{-2, -1, 0}, "-2-0"},
	} {
		if got := Ranges(c.xs); got != c.want {
			t.Errorf("Ranges(%v) = %q, want %q", c.xs, got, c.want)
		}
	}
}
