package compare

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"sync/atomic"

	"github.com/difftrace/difftrace/nlr"
)

// seqStore holds the NLRs of a comparison's traces compactly: each distinct
// NLR once, packed (nlr.Packed, 1–3 bytes an element where a Sequence takes
// 12), and for every trace of every run the one it has. A run of a million
// traces has about as many distinct NLRs under a filter that keeps every
// call; expanded they would not fit in memory, packed they do. Readers
// expand one trace's at a time (get), through a small cache so that the
// analyses reading the same traces again and again expand each once as
// long as it stays there.
type seqStore struct {
	packed []nlr.Packed
	of     [][]int32 // of[r][i]: the NLR of trace IDs[i] in run r; -1: none (nil)

	// While NLRs are added: the distinct ones by hash, the slab their
	// bytes are cut from, a buffer to pack into.
	index map[uint64][]int32
	seed  maphash.Seed
	slab  []byte
	buf   []byte

	cache []atomic.Pointer[cachedSeq] // direct-mapped by distinct NLR
}

type cachedSeq struct {
	x   int32
	seq nlr.Sequence
}

// storeCache is how many expanded NLRs the store keeps: at the ~750
// elements a trace of a large run has under the filter all, some 70 MB.
const storeCache = 8192

// storeSlab is the size of the blocks packed NLRs are cut from.
const storeSlab = 4 << 20

func newSeqStore(runs, traces int) *seqStore {
	s := &seqStore{of: make([][]int32, runs), index: map[uint64][]int32{}, seed: maphash.MakeSeed(),
		cache: make([]atomic.Pointer[cachedSeq], storeCache)}
	for r := range s.of {
		s.of[r] = make([]int32, traces)
		for i := range s.of[r] {
			s.of[r][i] = -1
		}
	}
	return s
}

// add returns the number of seq among the distinct NLRs, adding it if new.
// It is not safe for concurrent use, nor with get.
func (s *seqStore) add(seq nlr.Sequence) int32 {
	s.buf = nlr.Pack(s.buf[:0], seq)
	h := maphash.Bytes(s.seed, s.buf)
	for _, x := range s.index[h] {
		if bytes.Equal(s.packed[x], s.buf) {
			return x
		}
	}
	if len(s.buf) > cap(s.slab)-len(s.slab) {
		s.slab = make([]byte, 0, max(storeSlab, len(s.buf)))
	}
	at := len(s.slab)
	s.slab = append(s.slab, s.buf...)
	x := int32(len(s.packed))
	s.packed = append(s.packed, nlr.Packed(s.slab[at:len(s.slab):len(s.slab)]))
	s.index[h] = append(s.index[h], x)
	return x
}

// seal ends adding: the index and buffers go.
func (s *seqStore) seal() {
	s.index, s.slab, s.buf = nil, nil, nil
}

// get returns distinct NLR x expanded (nil for -1). The result is shared:
// callers must not change it.
func (s *seqStore) get(x int32) nlr.Sequence {
	if x < 0 {
		return nil
	}
	slot := &s.cache[int(x)%len(s.cache)]
	if c := slot.Load(); c != nil && c.x == x {
		return c.seq
	}
	seq, err := s.packed[x].Sequence()
	if err != nil {
		// The bytes are the store's own, packed by add.
		panic(fmt.Sprintf("compare: stored NLR %d: %v", x, err))
	}
	slot.Store(&cachedSeq{x: x, seq: seq})
	return seq
}

// getInto is get for a reader that is done with the result before it asks
// again: an NLR not in the cache is expanded into buf (grown as need be)
// instead of a new slice, and not cached. It returns the NLR and the
// buffer to pass next time.
func (s *seqStore) getInto(x int32, buf nlr.Sequence) (seq, next nlr.Sequence) {
	if x < 0 {
		return nil, buf
	}
	if c := s.cache[int(x)%len(s.cache)].Load(); c != nil && c.x == x {
		return c.seq, buf
	}
	seq, err := s.packed[x].AppendSequence(buf[:0])
	if err != nil {
		panic(fmt.Sprintf("compare: stored NLR %d: %v", x, err))
	}
	return seq, seq
}

// at returns the NLR of trace IDs[i] in run r.
func (s *seqStore) at(r, i int) nlr.Sequence { return s.get(s.of[r][i]) }

// bytesOf returns the packed NLR of trace IDs[i] in run r; none packs as
// empty.
func (s *seqStore) bytesOf(r, i int) nlr.Packed {
	if x := s.of[r][i]; x >= 0 {
		return s.packed[x]
	}
	return nlr.Pack(nil, nil)
}
