package fca

import (
	"hash/maphash"
	"math/bits"
	"slices"
)

// wordSets holds a context's class intents: each attribute set as its
// nonzero 64-bit words only, all sets in two shared arrays. A class of a
// large run has a few dozen attributes among tens of thousands, numbered in
// order of first appearance, so its set touches a handful of words where a
// Bitset over every attribute would take hundreds (seeds/002's contexts
// are small; a million-trace run's are not).
type wordSets struct {
	off  []int    // set k's words are at [off[k], off[k+1])
	at   []uint32 // a word's index: it holds attributes at*64 … at*64+63
	word []uint64
	size []int32 // set k's number of members
	// find sets by their members: a hash of the members → the sets
	// with it (more than one only when hashes collide).
	seed maphash.Seed
	find map[uint64][]int32
}

func newWordSets() *wordSets {
	return &wordSets{off: []int{0}, seed: maphash.MakeSeed(), find: map[uint64][]int32{}}
}

// len returns the number of sets.
func (s *wordSets) len() int { return len(s.off) - 1 }

// index returns the set whose members are as (increasing), adding it if
// there is none yet, and whether it was added.
func (s *wordSets) index(as []int) (int, bool) {
	var h maphash.Hash
	h.SetSeed(s.seed)
	var b [8]byte
	for _, a := range as {
		for i := range b {
			b[i] = byte(a >> (8 * i))
		}
		h.Write(b[:])
	}
	key := h.Sum64()
	for _, k := range s.find[key] {
		if s.equal(int(k), as) {
			return int(k), false
		}
	}
	k := s.len()
	s.find[key] = append(s.find[key], int32(k))
	for _, a := range as {
		w := uint32(a >> 6)
		if n := len(s.at); n == s.off[k] || s.at[n-1] != w {
			s.at = append(s.at, w)
			s.word = append(s.word, 0)
		}
		s.word[len(s.word)-1] |= 1 << (uint(a) & 63)
	}
	s.off = append(s.off, len(s.at))
	s.size = append(s.size, int32(len(as)))
	return k, true
}

// done drops what only index needs.
func (s *wordSets) done() {
	s.find = nil
	s.at = slices.Clip(s.at)
	s.word = slices.Clip(s.word)
}

// equal reports whether set k's members are as (increasing).
func (s *wordSets) equal(k int, as []int) bool {
	if int(s.size[k]) != len(as) {
		return false
	}
	i := 0
	for x := s.off[k]; x < s.off[k+1]; x++ {
		w, base := s.word[x], int(s.at[x])*64
		for w != 0 {
			if as[i] != base+bits.TrailingZeros64(w) {
				return false
			}
			i++
			w &= w - 1
		}
	}
	return true
}

// appendMembers appends set k's members, increasing, to dst.
func (s *wordSets) appendMembers(dst []int, k int) []int {
	for x := s.off[k]; x < s.off[k+1]; x++ {
		w, base := s.word[x], int(s.at[x])*64
		for w != 0 {
			dst = append(dst, base+bits.TrailingZeros64(w))
			w &= w - 1
		}
	}
	return dst
}

// has reports whether a is in set k.
func (s *wordSets) has(k, a int) bool {
	at := s.at[s.off[k]:s.off[k+1]]
	x, ok := slices.BinarySearch(at, uint32(a>>6))
	return ok && s.word[s.off[k]+x]&(1<<(uint(a)&63)) != 0
}

// bitset returns set k as a Bitset able to hold 0 … n-1.
func (s *wordSets) bitset(k, n int) Bitset {
	b := NewBitset(n)
	for x := s.off[k]; x < s.off[k+1]; x++ {
		b[s.at[x]] = s.word[x]
	}
	return b
}

// interLen returns the number of members sets p and q share.
func (s *wordSets) interLen(p, q int) int {
	x, xe := s.off[p], s.off[p+1]
	y, ye := s.off[q], s.off[q+1]
	n := 0
	for x < xe && y < ye {
		switch a, b := s.at[x], s.at[y]; {
		case a < b:
			x++
		case a > b:
			y++
		default:
			n += bits.OnesCount64(s.word[x] & s.word[y])
			x++
			y++
		}
	}
	return n
}

// spread writes set p's words into dst at their indices, grown and
// cleared as needed, and returns it: for counting p's intersections with
// many sets (interLenSpread).
func (s *wordSets) spread(dst []uint64, p int) []uint64 {
	n := 0
	if e := s.off[p+1]; e > s.off[p] {
		n = int(s.at[e-1]) + 1
	}
	if cap(dst) < n {
		dst = make([]uint64, n)
	}
	dst = dst[:n]
	clear(dst)
	for x := s.off[p]; x < s.off[p+1]; x++ {
		dst[s.at[x]] = s.word[x]
	}
	return dst
}

// interLenSpread returns the number of members set q shares with the set
// spread into sp.
func (s *wordSets) interLenSpread(sp []uint64, q int) int {
	n := 0
	for x := s.off[q]; x < s.off[q+1]; x++ {
		a := int(s.at[x])
		if a >= len(sp) {
			break
		}
		n += bits.OnesCount64(sp[a] & s.word[x])
	}
	return n
}
