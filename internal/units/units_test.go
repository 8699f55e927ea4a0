package units

import (
	"fmt"
	"testing"
)

func TestBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		show string
	}{
		{"1G", 1 << 30, "1G"}, {"500M", 500 << 20, "500M"}, {"64k", 64 << 10, "64K"}, {"65536", 65536, "64K"},
		{"1000", 1000, "1000"}, {"1.5G", 3 << 29, "1536M"}, {"2T", 2 << 40, "2048G"}, {" 20K ", 20 << 10, "20K"},
		{"10485761", 10485761, "0.0G"},
	} {
		var b Bytes
		if err := b.Set(c.in); err != nil || int64(b) != c.want || b.String() != c.show {
			t.Errorf("Set(%q) = %d %q, %v; want %d %q", c.in, int64(b), b.String(), err, c.want, c.show)
		}
	}
	for _, bad := range []string{"0", "-1G", "G", "1X", "", "9e30T"} {
		var b Bytes
		if err := b.Set(bad); err == nil {
			t.Errorf("Set(%q) = %d, want an error", bad, b)
		}
	}
}

func TestCount(t *testing.T) {
	for in, want := range map[string]uint64{"4000000000": 4e9, "4e9": 4e9, "0": 0, "18446744073709551615": 1<<64 - 1, "1.5e3": 1500} {
		var c Count
		if err := c.Set(in); err != nil || uint64(c) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, c, err, want)
		}
	}
	for _, bad := range []string{"-1", "1.5", "x", "1e20"} {
		var c Count
		if err := c.Set(bad); err == nil {
			t.Errorf("Set(%q) = %d, want an error", bad, c)
		}
	}
}

func Example() {
	var split Bytes
	split.Set("500M")
	var max Count
	max.Set("4e9")
	fmt.Println(int64(split), split.String(), uint64(max))
	// Output: 524288000 500M 4000000000
}
