// Package units reads and writes quantities as people write them on a
// command line: sizes in bytes (1G, 500M, 65536) and counts of events
// (4000000000 or 4e9). Each type is a flag value (String, Set, Type).
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Bytes is a size in bytes: 1073741824, 1G, 500M, 64K (powers of 1024).
type Bytes int64

// String writes b with the largest unit that divides it (1G, 500M),
// in G with one decimal from 10M when none does, else in bytes.
func (b Bytes) String() string {
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if b >= Bytes(u.size) && int64(b)%u.size == 0 {
			return strconv.FormatInt(int64(b)/u.size, 10) + u.suffix
		}
	}
	if b >= 10<<20 {
		return fmt.Sprintf("%.1fG", float64(b)/(1<<30))
	}
	return strconv.FormatInt(int64(b), 10)
}

// Type names the value in a flag's help.
func (b *Bytes) Type() string { return "size" }

// Set reads a size above 0: a number of bytes, or of K, M, G or T.
func (b *Bytes) Set(s string) error {
	mult := int64(1)
	num := strings.TrimSpace(s)
	if n := len(num); n > 0 {
		switch strings.ToUpper(num[n-1:]) {
		case "K":
			mult = 1 << 10
		case "M":
			mult = 1 << 20
		case "G":
			mult = 1 << 30
		case "T":
			mult = 1 << 40
		}
		if mult > 1 {
			num = num[:n-1]
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 || v*float64(mult) >= math.MaxInt64 {
		return fmt.Errorf("want a size in bytes, such as 1G, 500M or 65536")
	}
	*b = Bytes(v * float64(mult))
	return nil
}

// Count is a number of events, written in full (4000000000) or with an
// exponent (4e9).
type Count uint64

func (c *Count) String() string { return strconv.FormatUint(uint64(*c), 10) }

// Type names the value in a flag's help.
func (c *Count) Type() string { return "count" }

// Set reads a whole number, in full or with an exponent.
func (c *Count) Set(s string) error {
	if v, err := strconv.ParseUint(s, 10, 64); err == nil {
		*c = Count(v)
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v != math.Trunc(v) || v >= 1<<64 {
		return fmt.Errorf("want a whole number of events, such as 4000000000 or 4e9")
	}
	*c = Count(v)
	return nil
}
