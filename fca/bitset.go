package fca

import "math/bits"

// Bitset is a set of small non-negative integers (attributes or objects), one
// bit each. Sets that are compared share one length in words.
type Bitset []uint64

// NewBitset returns an empty set able to hold 0 … n-1.
func NewBitset(n int) Bitset { return make(Bitset, (n+63)/64) }

// Set adds i.
func (s Bitset) Set(i int) { s[i>>6] |= 1 << (uint(i) & 63) }

// Has reports whether i is in s.
func (s Bitset) Has(i int) bool { return s[i>>6]&(1<<(uint(i)&63)) != 0 }

// Len returns the number of members.
func (s Bitset) Len() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// Members returns the members in increasing order.
func (s Bitset) Members() []int {
	var out []int
	for i, w := range s {
		for w != 0 {
			out = append(out, i*64+bits.TrailingZeros64(w))
			w &= w - 1
		}
	}
	return out
}

// Equal reports whether s and t hold the same members.
func (s Bitset) Equal(t Bitset) bool {
	for i := range s {
		if s[i] != t[i] {
			return false
		}
	}
	return true
}

// SubsetOf reports whether every member of s is in t.
func (s Bitset) SubsetOf(t Bitset) bool {
	for i := range s {
		if s[i]&^t[i] != 0 {
			return false
		}
	}
	return true
}

// IntersectionLen returns |s ∩ t|.
func (s Bitset) IntersectionLen(t Bitset) int {
	n := 0
	for i := range s {
		n += bits.OnesCount64(s[i] & t[i])
	}
	return n
}

// Clone returns a copy of s.
func (s Bitset) Clone() Bitset { return append(Bitset(nil), s...) }
