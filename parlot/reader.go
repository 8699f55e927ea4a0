package parlot

import (
	"errors"
	"fmt"
	"io"
	"math/bits"
)

// DefaultMaxEvents is the decoded-event limit a Reader enforces unless told
// otherwise: a small hostile file can claim billions of events.
const DefaultMaxEvents = 4_000_000_000

// CorruptError reports a ParLOT trace file that fails a check of the format:
// which file, the byte offset where decoding stopped, and what was wrong.
type CorruptError struct {
	File   string // path or name of the trace file
	Offset int64  // byte offset in the file
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s: byte %d: corrupt ParLOT trace: %s (the file is damaged or not a ParLOT trace; recapture it or restore it from the original run)",
		e.File, e.Offset, e.Reason)
}

// LimitError reports a trace that decodes to more events than allowed.
type LimitError struct {
	File   string
	Offset int64
	Max    uint64
	// Param names the parameter that set Max, as the caller knows it (a
	// command line's flag); "" says "the event limit".
	Param string
}

func (e *LimitError) Error() string {
	param, raise := e.Param, e.Param
	if param == "" {
		param, raise = "the event limit", "the limit"
	}
	return fmt.Sprintf("%s: byte %d: the trace holds more than %d events (%s); raise %s if the trace is genuine",
		e.File, e.Offset, e.Max, param, raise)
}

// UnknownIDError reports a trace value that its process's function table
// does not define: the trace or the .info is damaged, or they do not belong
// together. Which is likelier shows in the numbers: an empty table, or an
// ID far beyond the table's last, points at damage.
type UnknownIDError struct {
	File   string // the trace file
	Offset int64  // byte offset of the ZE group that holds the value
	Event  uint64 // index of the event in the trace
	ID     uint16
	Info   string // the function table
	Funcs  int    // IDs the table defines (1 to Funcs)
}

func (e *UnknownIDError) Error() string {
	switch {
	case e.Funcs == 0:
		return fmt.Sprintf("%s: byte %d: event %d calls function ID %d, but %s defines no function at all: the function table is empty or damaged (restore it from the original run, or record the run again)",
			e.File, e.Offset, e.Event, e.ID, e.Info)
	case int(e.ID) > 2*e.Funcs+16:
		return fmt.Sprintf("%s: byte %d: event %d calls function ID %d, but %s defines only IDs 1 to %d: the trace file is probably damaged, or it and the table come from different processes or runs (restore the trace from the original run, or put the .info written by the same process next to it)",
			e.File, e.Offset, e.Event, e.ID, e.Info, e.Funcs)
	}
	return fmt.Sprintf("%s: byte %d: event %d calls function ID %d, but %s defines only IDs 1 to %d: the trace and its function table come from different processes or runs, or one of them is damaged (put the .info written by the same process next to the trace)",
		e.File, e.Offset, e.Event, e.ID, e.Info, e.Funcs)
}

// Reader decodes one ParLOT trace file (LZa3|ZE, docs/parlot-format.md) into
// its sequence of 16-bit values: a function ID at every entry, 0 at every
// exit. It streams: memory use is constant whatever the trace length.
type Reader struct {
	src  io.Reader
	name string
	max  uint64
	n    uint64 // values produced

	// Stage 2 (ZE): raw bytes in buf[bi:bn]; off is the file offset of buf[0].
	buf    []byte
	bi, bn int
	off    int64
	srcEOF bool
	done   bool // the trailer has been read: no more words

	// Words decoded from ZE, waiting for stage 1.
	words  [4]uint16
	wi, wn int
	wOff   int64 // file offset of the group the pending words came from

	// Stage 1 (LZ) state, exactly as the writer keeps it.
	hist [65536]uint16
	last [4096]uint16
	hash uint16
	pos  uint16

	run       int    // values still to copy from the current match
	cand      uint16 // where the current match reads from
	wantLit   bool   // the next word, if any, is a literal
	zeroCount bool   // ... and it must exist: it follows a zero count
	countOff  int64  // offset of the count word that wants a literal
	err       error

	// Values above maxID are refused (see CheckIDs).
	maxID uint16
	info  string
}

// NewReader returns a Reader of the trace in src. name is used in errors
// (normally the file's path); max bounds the number of decoded values
// (0 means DefaultMaxEvents).
func NewReader(src io.Reader, name string, max uint64) *Reader {
	if max == 0 {
		max = DefaultMaxEvents
	}
	return &Reader{src: src, name: name, max: max, buf: make([]byte, 64<<10), maxID: 65535}
}

// CheckIDs makes the reader refuse, with an *UnknownIDError, any function ID
// above funcs, the number of functions the table info defines. Only literals
// need checking: a match copies values already checked (or the zeros the
// history starts with), so the check costs nothing on the hot path.
func (r *Reader) CheckIDs(funcs int, info string) {
	r.maxID = uint16(min(max(funcs, 0), 65535))
	r.info = info
}

// Events returns the number of values decoded so far.
func (r *Reader) Events() uint64 { return r.n }

// Read decodes up to len(p) values into p. It returns io.EOF after the last
// value, and a *CorruptError or *LimitError if the file is bad.
func (r *Reader) Read(p []uint16) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n := 0
	for n < len(p) {
		if r.run > 0 {
			k := min(r.run, len(p)-n)
			r.copyRun(p[n : n+k])
			n += k
			r.run -= k
			continue
		}
		w, ok := r.nextWord()
		if !ok {
			if r.err == nil && r.wantLit && r.zeroCount {
				r.err = &CorruptError{r.name, r.countOff, "a zero count is not followed by the literal it announces"}
			}
			if r.err == nil {
				r.err = io.EOF
			}
			break
		}
		if r.wantLit || !r.matchable() {
			r.wantLit = false
			if r.n >= r.max {
				r.err = &LimitError{File: r.name, Offset: r.wOff, Max: r.max}
				break
			}
			if w > r.maxID {
				r.err = &UnknownIDError{r.name, r.wOff, r.n, w, r.info, int(r.maxID)}
				break
			}
			p[n] = w
			r.push(w)
			n++
			r.n++
			continue
		}
		// A count word: c values from the match candidate, then a literal.
		r.wantLit = true
		r.zeroCount = w == 0
		r.countOff = r.wOff
		if w == 0 {
			continue
		}
		if r.n+uint64(w) > r.max {
			r.err = &LimitError{File: r.name, Offset: r.wOff, Max: r.max}
			break
		}
		r.cand = r.last[r.hash&4095]
		r.run = int(w)
		r.n += uint64(w)
	}
	if n > 0 && r.err == io.EOF {
		return n, nil
	}
	return n, r.err
}

// matchable reports whether the three values before the candidate equal the
// three values before the write position: then the next word is a count.
func (r *Reader) matchable() bool {
	c := r.last[r.hash&4095]
	h := &r.hist
	return h[uint16(c-1)] == h[uint16(r.pos-1)] &&
		h[uint16(c-2)] == h[uint16(r.pos-2)] &&
		h[uint16(c-3)] == h[uint16(r.pos-3)]
}

// push advances the LZ state by one value.
func (r *Reader) push(v uint16) {
	r.last[r.hash&4095] = r.pos
	r.hash = lzHash(r.hash, v)
	r.hist[r.pos] = v
	r.pos++
}

// copyRun reproduces len(out) values of the current match. This is the hot
// loop of decoding: most values of a loop-heavy trace come from here.
func (r *Reader) copyRun(out []uint16) {
	d := int(r.pos - r.cand) // the match's distance; 0 is 65,536
	if d == 0 || len(out) < 2*d+minPeriodic {
		r.copySlow(out)
		return
	}
	// The match overlaps itself: from the d-th value on, it repeats its
	// own last d values, and so do the hashes (each is a function of the
	// three values before it). The first d values go the slow way; the
	// rest are copied, and only the last d of them set the hash table,
	// since every hash the repeating values make comes up among them, and
	// the table keeps each hash's last position. (The first three values'
	// hashes also depend on values before the match: they go the slow way
	// too.)
	s := max(d, 3)
	r.copySlow(out[:s])
	for i := s; i < len(out); { // doubling: whole periods from the start
		i += copy(out[i:], out[i%d:i])
	}
	for j := len(out) - d; j < len(out); j++ {
		r.last[(out[j-3]<<8^out[j-2]<<4^out[j-1])&4095] = r.pos + uint16(j-s)
	}
	rest := out[s:]
	if skip := len(rest) - len(r.hist); skip > 0 {
		// Only the last 65,536 values stay in the history.
		r.pos += uint16(skip)
		rest = rest[skip:]
	}
	for len(rest) > 0 { // the history, a ring of 65,536 values
		n := copy(r.hist[r.pos:], rest)
		r.pos += uint16(n)
		rest = rest[n:]
	}
	k := len(out)
	r.hash = (out[k-3]<<8 ^ out[k-2]<<4 ^ out[k-1]) & 4095
	r.cand += uint16(k - s)
}

// minPeriodic is how much longer than twice its distance a match must be
// for copyRun to copy it as repeating values.
const minPeriodic = 64

// copySlow is copyRun one value at a time.
func (r *Reader) copySlow(out []uint16) {
	h := &r.hist
	l := &r.last
	hash, pos, cand := r.hash, r.pos, r.cand
	for i := range out {
		v := h[cand]
		cand++
		out[i] = v
		l[hash&4095] = pos
		hash = lzHash(hash, v)
		h[pos] = v
		pos++
	}
	r.hash, r.pos, r.cand = hash, pos, cand
}

// nextWord returns the next 16-bit word of stage 2, or false at the end of
// the words (or on error, which is left in r.err).
func (r *Reader) nextWord() (uint16, bool) {
	if r.wi < r.wn {
		w := r.words[r.wi]
		r.wi++
		return w, true
	}
	if r.done || r.err != nil {
		return 0, false
	}
	if !r.readGroup() {
		return 0, false
	}
	w := r.words[0]
	r.wi = 1
	return w, true
}

// fill makes sure at least need bytes are buffered, or that the source is
// exhausted.
func (r *Reader) fill(need int) error {
	for r.bn-r.bi < need && !r.srcEOF {
		if r.bi > 0 {
			copy(r.buf, r.buf[r.bi:r.bn])
			r.off += int64(r.bi)
			r.bn -= r.bi
			r.bi = 0
		}
		m, err := r.src.Read(r.buf[r.bn:])
		r.bn += m
		if errors.Is(err, io.EOF) {
			r.srcEOF = true
		} else if err != nil {
			return fmt.Errorf("%s: byte %d: %w", r.name, r.off+int64(r.bn), err)
		}
	}
	return nil
}

// readGroup decodes the next ZE group into r.words. The last byte of the file
// is the trailer (the number of words in the last group), so a group is only
// final when the byte after it is the file's last.
func (r *Reader) readGroup() bool {
	if err := r.fill(11); err != nil {
		r.err = err
		return false
	}
	avail := r.bn - r.bi
	start := r.off + int64(r.bi)
	if avail == 0 {
		r.err = &CorruptError{r.name, start, "the file ends without its trailer byte"}
		return false
	}
	if avail == 1 && r.srcEOF {
		// Only the trailer is left.
		t := r.buf[r.bi]
		r.bi++
		r.done = true
		if t != 0 {
			r.err = &CorruptError{r.name, start, fmt.Sprintf("trailer byte is %d but the file holds no groups (an empty trace is the single byte 0)", t)}
		}
		return false
	}
	bm := r.buf[r.bi]
	size := 1 + bits.OnesCount8(bm)
	if avail < size+1 {
		// The group runs into (or past) the trailer: the file is cut short.
		r.err = &CorruptError{r.name, start, fmt.Sprintf("group needs %d bytes but only %d remain before the trailer; the file is truncated", size, avail-1)}
		return false
	}
	nw := 4
	if avail == size+1 && r.srcEOF {
		// The final group: the trailer says how many words it holds.
		t := int(r.buf[r.bi+size])
		if t < 1 || t > 4 {
			r.err = &CorruptError{r.name, r.off + int64(r.bi+size), fmt.Sprintf("trailer byte is %d, want 1 to 4 after a group", t)}
			return false
		}
		if t < 4 && bm>>(2*t) != 0 {
			r.err = &CorruptError{r.name, start, fmt.Sprintf("last group's bitmap %08b marks bytes beyond the %d words the trailer announces", bm, t)}
			return false
		}
		nw = t
		r.done = true
	}
	var b [8]byte
	j := r.bi + 1
	for k := 0; k < 8; k++ {
		if bm&(1<<k) != 0 {
			b[k] = r.buf[j]
			j++
		}
	}
	for k := 0; k < nw; k++ {
		r.words[k] = uint16(b[2*k]) | uint16(b[2*k+1])<<8
	}
	r.wOff = start
	r.wn = nw
	r.bi = j
	if r.done {
		r.bi++ // the trailer
	}
	return true
}

// ReadAll decodes a whole trace into memory. Use it only for traces known to
// be small; stream with Read otherwise.
func ReadAll(src io.Reader, name string, max uint64) ([]uint16, error) {
	r := NewReader(src, name, max)
	var out []uint16
	buf := make([]uint16, 32<<10)
	for {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}
