package cluster

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func sprint(v any) string { return fmt.Sprint(v) }

func TestFowlkesMallows(t *testing.T) {
	cases := []struct {
		a, b []int
		want float64
	}{
		// Identical up to renaming.
		{[]int{1, 1, 2, 2, 3}, []int{7, 7, 5, 5, 9}, 1},
		// a is {0,1,2} {3,4}: P = 9+4-5 = 8; b is {0,1} {2,3,4}:
		// Q = 4+9-5 = 8; m = [[2 1] [0 2]]: T = 4+1+4-5 = 4. B = 4/8.
		{[]int{1, 1, 1, 2, 2}, []int{1, 1, 2, 2, 2}, 0.5},
		// One cluster against two halves: P = 16-4 = 12, Q = 4+4-4 = 4,
		// T = 4. B = 4/√48.
		{[]int{1, 1, 1, 1}, []int{1, 1, 2, 2}, 4 / math.Sqrt(48)},
		// Crossed halves share no pair: T = 0.
		{[]int{1, 1, 2, 2}, []int{1, 2, 1, 2}, 0},
		// Zero denominators: both all singletons, one all singletons.
		{[]int{1, 2, 3}, []int{3, 1, 2}, 1},
		{[]int{1, 2, 3}, []int{1, 1, 2}, 0},
		{[]int{5}, []int{6}, 1},
		{nil, nil, 1},
	}
	for _, c := range cases {
		got, err := FowlkesMallows(c.a, c.b)
		if err != nil || math.Abs(got-c.want) > 1e-15 {
			t.Errorf("FowlkesMallows(%v, %v) = %v, %v; want %v", c.a, c.b, got, err, c.want)
		}
		back, _ := FowlkesMallows(c.b, c.a)
		if back != got {
			t.Errorf("FowlkesMallows is not symmetric on %v, %v: %v and %v", c.a, c.b, got, back)
		}
	}
	if _, err := FowlkesMallows([]int{1, 2}, []int{1}); err == nil || !strings.Contains(err.Error(), "2 and 1") {
		t.Errorf("length mismatch error %v", err)
	}
}

func TestBScore(t *testing.T) {
	// Two well-separated pairs, then the same observations with the pairs
	// swapped: the 2-cluster cuts disagree completely.
	normal := []float64{0.1, 0.9, 0.9, 0.9, 0.9, 0.1} // {0,1} {2,3}
	faulty := []float64{0.9, 0.1, 0.9, 0.9, 0.1, 0.9} // {0,2} {1,3}
	a, err := Linkage(normal, Ward)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Linkage(faulty, Ward)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := BScore(a, a, 2); err != nil || got != 1 {
		t.Errorf("BScore(a, a, 2) = %v, %v; want 1", got, err)
	}
	if got, err := BScore(a, b, 2); err != nil || got != 0 {
		t.Errorf("BScore(a, b, 2) = %v, %v; want 0", got, err)
	}
	c, _ := Linkage([]float64{1, 1, 1}, Ward)
	if _, err := BScore(a, c, 2); err == nil {
		t.Error("BScore of dendrograms of different sizes: no error")
	}
	if _, err := BScore(a, b, 5); err == nil {
		t.Error("BScore with k > n: no error")
	}
}
