package parlot

import (
	"fmt"
	"io"
)

// Writer compresses a sequence of 16-bit values (function IDs at entries, 0
// at exits) into the ParLOT trace format (LZa3|ZE, docs/parlot-format.md),
// byte for byte as the reference ParLOT tool writes it. It works
// incrementally: memory use is constant whatever the trace length. Close
// must be called to flush the last group and write the trailer.
type Writer struct {
	dst io.Writer
	err error

	// Stage 1 (LZ) state.
	hist [65536]uint16
	last [4096]uint16
	hash uint16
	pos  uint16

	inRun bool   // a count word is held back and may still grow
	count uint16 // the held-back count
	cand  uint16 // the next value the match expects is hist[cand]

	// Stage 2 (ZE): words of the current group.
	group [4]uint16
	gn    int
	out   []byte
	words uint64
	n     uint64
}

// NewWriter returns a Writer that writes the compressed trace to dst.
func NewWriter(dst io.Writer) *Writer {
	return &Writer{dst: dst, out: make([]byte, 0, 64<<10)}
}

// Values returns the number of values written so far.
func (w *Writer) Values() uint64 { return w.n }

// Write compresses vals. Errors from the underlying writer are returned here
// or from Close.
func (w *Writer) Write(vals []uint16) error {
	if w.err != nil {
		return w.err
	}
	h := &w.hist
	for i := 0; i < len(vals); i++ {
		v := vals[i]
		if w.inRun {
			// Extend the match as far as it goes in one tight loop.
			cand, count, pos, hash := w.cand, w.count, w.pos, w.hash
			l := &w.last
			for ; i < len(vals); i++ {
				v = vals[i]
				if count == 65535 || h[cand] != v {
					break
				}
				l[hash&4095] = pos
				hash = lzHash(hash, v)
				h[pos] = v
				pos++
				cand++
				count++
			}
			w.cand, w.count, w.pos, w.hash = cand, count, pos, hash
			if i == len(vals) {
				break
			}
			// v stopped the run (or the count is full): it goes out as a literal.
			w.inRun = false
			w.word(count)
			w.word(v)
			w.push(v)
			continue
		}
		c := w.last[w.hash&4095]
		if h[uint16(c-1)] == h[uint16(w.pos-1)] &&
			h[uint16(c-2)] == h[uint16(w.pos-2)] &&
			h[uint16(c-3)] == h[uint16(w.pos-3)] {
			if h[c] == v {
				w.inRun = true
				w.count = 1
				w.cand = c + 1
				w.push(v)
				continue
			}
			w.word(0)
		}
		w.word(v)
		w.push(v)
	}
	w.n += uint64(len(vals))
	if len(w.out) >= cap(w.out)-64 {
		w.flush()
	}
	return w.err
}

// Close ends the stream: it emits a run still held back, the last group and
// the trailer byte. It does not close the underlying writer.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.inRun {
		w.inRun = false
		w.word(w.count)
	}
	trailer := byte(w.gn)
	if w.gn > 0 {
		w.emitGroup(w.gn)
	} else if w.words > 0 {
		trailer = 4
	}
	w.out = append(w.out, trailer)
	w.flush()
	return w.err
}

func (w *Writer) push(v uint16) {
	w.last[w.hash&4095] = w.pos
	w.hash = lzHash(w.hash, v)
	w.hist[w.pos] = v
	w.pos++
}

// word hands one stage-1 word to stage 2.
func (w *Writer) word(x uint16) {
	w.group[w.gn] = x
	w.gn++
	w.words++
	if w.gn == 4 {
		w.emitGroup(4)
		w.gn = 0
		if len(w.out) >= cap(w.out)-64 {
			w.flush()
		}
	}
}

// emitGroup writes the bitmap byte and the non-zero bytes of the first n
// words of the group.
func (w *Writer) emitGroup(n int) {
	at := len(w.out)
	w.out = append(w.out, 0)
	var bm byte
	for k := 0; k < n; k++ {
		lo, hi := byte(w.group[k]), byte(w.group[k]>>8)
		if lo != 0 {
			bm |= 1 << (2 * k)
			w.out = append(w.out, lo)
		}
		if hi != 0 {
			bm |= 1 << (2*k + 1)
			w.out = append(w.out, hi)
		}
	}
	w.out[at] = bm
}

func (w *Writer) flush() {
	if w.err != nil || len(w.out) == 0 {
		return
	}
	if _, err := w.dst.Write(w.out); err != nil {
		w.err = fmt.Errorf("writing ParLOT trace: %w", err)
	}
	w.out = w.out[:0]
}
