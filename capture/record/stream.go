package record

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing/fstest"
	"time"

	"github.com/difftrace/difftrace/parlot"
	"github.com/difftrace/difftrace/trace"
	"github.com/difftrace/difftrace/uftrace"
)

// uftrace's network protocol, as `uftrace record --host H --port P` speaks
// it to `uftrace recv`: a stream of messages over one TCP connection, each
// an 8-byte header (16-bit magic 0xface, 16-bit type, 32-bit length of what
// follows, all big-endian) and a body. While the program runs, the recorder
// sends every filled shared-memory buffer of a thread as a data message
// (its 32-bit thread id, then the thread's records exactly as its data file
// would hold them); when the program has ended, it sends the files that
// describe the recording (task.txt, the sid-*.map memory maps, the *.sym
// symbol tables, the info file) and an end message.
const (
	msgMagic        = 0xface
	msgDirName      = 101
	msgData         = 102
	msgKernelData   = 103
	msgPerfData     = 104
	msgInfo         = 105
	msgMetaData     = 106
	msgEnd          = 107
	msgHeaderSize   = 8
	maxMessageBytes = 1 << 30
	// readBuffer is the receiving buffer: a few of the recorder's
	// messages (a shared-memory buffer each, uftraceBuffer).
	readBuffer = 4 << 20
	// socketBuffer is the size asked for the socket's receive buffer (the
	// kernel may grant less: net.core.rmem_max), recvLowWater how much of
	// it fills before the receiver wakes.
	socketBuffer = 8 << 20
	recvLowWater = 1 << 20
	recordSize   = uftrace.RecordSize
	// addrCacheSize is the number of address → ID pairs kept in front of
	// the map (a power of two).
	addrCacheSize = 4096
)

// streamer receives one uftrace recording sent over a socket and
// compresses each thread's records into a ParLOT stream as they arrive, so
// that the raw records are never stored. Functions get provisional IDs by
// address, in order of first appearance; once the recording's symbol
// tables have arrived, finish names them and writes the final traces.
type streamer struct {
	ln   net.Listener
	dir  string // where the partial compressed traces go (the run directory)
	base string // their name prefix
	// files holds the files that describe the recording (symbol tables,
	// memory maps, task.txt, info) as they arrive: a few megabytes, kept
	// in memory, for a hundred files or more that would otherwise be made
	// and removed again on disk for every rank (file creation is what a
	// short run's recording cost most, on ext4).
	files fstest.MapFS

	ids   map[uint64]uint16
	addrs []uint64 // addrs[id-1] is the address of provisional ID id

	// threads is the receiver's own until done is closed.
	threads map[int]*streamThread
	done    chan struct{}

	mu    sync.Mutex // guards conn, ended and err
	conn  net.Conn
	ended bool  // the recorder sent its end message
	err   error // what stopped the receiver early
}

type addrID struct {
	addr uint64
	id   uint16
}

// streamThread is one thread's compressed stream and what finish needs to
// know of its records.
type streamThread struct {
	tid  int
	f    *os.File
	bw   *bufio.Writer
	w    *parlot.Writer
	vals []uint16
	rest []byte // the start of a record the next message completes

	// stack[:top] are the provisional IDs of the open calls, outermost
	// first (uftrace numbers depths in 10 bits).
	stack *[maxDepth]uint16
	top   int
	first []uint16 // provisional IDs in order of first appearance here
	seen  []uint64 // bit set of provisional IDs in first
	// cache holds address → ID pairs in front of the streamer's map. It
	// is the thread's own and takes only IDs already in first, so that a
	// call found there needs nothing else looked up.
	cache   *[addrCacheSize]addrID
	written uint64 // values compressed before those in vals
	lost    uint64
	last    uint64 // time of the last record
}

// maxDepth bounds uftrace's call depths (a record has 10 bits for them).
const maxDepth = uftrace.MaxDepth

// calls is the number of entries and exits the thread recorded.
func (t *streamThread) calls() uint64 { return t.written + uint64(len(t.vals)) }

// openCalls returns the provisional IDs of the calls still open, outermost
// first.
func (t *streamThread) openCalls() []uint16 { return t.stack[:t.top] }

// newStreamer listens on a loopback port for one recorder.
func newStreamer(dir, base string) (*streamer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening for uftrace's records on a loopback port: %w", err)
	}
	s := &streamer{
		ln: ln, dir: dir, base: base, files: fstest.MapFS{},
		ids:     map[uint64]uint16{},
		threads: map[int]*streamThread{},
		done:    make(chan struct{}),
	}
	go s.serve()
	return s, nil
}

// port is the port uftrace record --port connects to.
func (s *streamer) port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// serve takes the recorder's connection and reads it to its end. Only one
// recorder sends to a streamer; a second connection is refused.
func (s *streamer) serve() {
	defer close(s.done)
	conn, err := s.ln.Accept()
	s.ln.Close()
	if err != nil {
		if !errors.Is(err, net.ErrClosed) {
			s.fail(fmt.Errorf("accepting uftrace's connection: %w", err))
		}
		return
	}
	defer conn.Close()
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetReadBuffer(socketBuffer)
		lowWater(tc, recvLowWater)
	}
	s.mu.Lock()
	s.conn = conn
	s.mu.Unlock()
	if err := s.read(bufio.NewReaderSize(conn, readBuffer)); err != nil {
		s.fail(err)
	}
}

// lowWater asks the kernel to report the connection readable only once n
// bytes have arrived (SO_RCVLOWAT), or it is closed. The receiver then
// wakes once for every few of the recorder's buffers instead of once for
// every segment of each: on a node whose cores the program's ranks keep
// busy, every wake-up of a capture is a switch away from a rank. Without
// it (an older kernel), the receiver wakes more often and works the same.
func lowWater(tc *net.TCPConn, n int) {
	rc, err := tc.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT, n)
	})
}

func (s *streamer) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
}

// wait waits, at most limit, for the recorder to close its connection;
// with no connection made (the recorder never started), it stops listening
// and returns.
func (s *streamer) wait(limit time.Duration) {
	s.ln.Close()
	select {
	case <-s.done:
	case <-time.After(limit):
		s.mu.Lock()
		if s.conn != nil {
			s.conn.SetReadDeadline(time.Now())
		}
		s.mu.Unlock()
		<-s.done
	}
}

// read handles messages until the end message or the end of the stream.
func (s *streamer) read(r *bufio.Reader) error {
	var big []byte
	for {
		hdr, err := r.Peek(msgHeaderSize)
		if err != nil {
			if err == io.EOF && len(hdr) == 0 {
				return nil // the recorder died before its end message: keep what came
			}
			return fmt.Errorf("reading uftrace's records: %w", err)
		}
		magic := binary.BigEndian.Uint16(hdr[0:])
		typ := binary.BigEndian.Uint16(hdr[2:])
		n := binary.BigEndian.Uint32(hdr[4:])
		r.Discard(msgHeaderSize)
		if magic != msgMagic {
			return fmt.Errorf("uftrace sent a message with magic %#x, not %#x: not uftrace's recording protocol", magic, msgMagic)
		}
		if n > maxMessageBytes {
			return fmt.Errorf("uftrace sent a message of %d bytes (type %d), more than this receiver takes", n, typ)
		}
		// A body that fits the buffer is decoded where it lies; a larger
		// one (a symbol table) is read into a slice of its own.
		var body []byte
		if int(n) <= r.Size() {
			if body, err = r.Peek(int(n)); err != nil {
				return fmt.Errorf("reading uftrace's records: message of type %d cut short: %w", typ, err)
			}
		} else {
			if cap(big) < int(n) {
				big = make([]byte, n)
			}
			body = big[:n]
			if _, err := io.ReadFull(r, body); err != nil {
				return fmt.Errorf("reading uftrace's records: message of type %d cut short: %w", typ, err)
			}
			n = 0
		}
		err = s.message(typ, body)
		r.Discard(int(n))
		if err != nil || typ == msgEnd {
			return err
		}
	}
}

// message handles one message of the recorder.
func (s *streamer) message(typ uint16, body []byte) error {
	switch typ {
	case msgData:
		if len(body) < 4 {
			return fmt.Errorf("uftrace sent a data message of %d bytes, too short for its thread id", len(body))
		}
		tid := int(int32(binary.BigEndian.Uint32(body)))
		if err := s.data(tid, body[4:]); err != nil {
			return err
		}
	case msgMetaData:
		if err := s.metadata(body); err != nil {
			return err
		}
	case msgInfo:
		if err := s.info(body); err != nil {
			return err
		}
	case msgEnd:
		s.mu.Lock()
		s.ended = true
		s.mu.Unlock()
	case msgDirName, msgKernelData, msgPerfData:
		// The recorder's directory name is not used; kernel and perf
		// data are not recorded.
	default:
		// A newer uftrace's message: its body is skipped.
	}
	return nil
}

// data compresses a buffer of thread tid's records.
func (s *streamer) data(tid int, b []byte) error {
	t := s.threads[tid]
	if t == nil {
		f, err := os.CreateTemp(s.dir, s.base+".partial-"+strconv.Itoa(tid)+"-*")
		if err != nil {
			return fileError(s.dir, err)
		}
		t = &streamThread{tid: tid, f: f, vals: make([]uint16, 0, 8192), stack: new([maxDepth]uint16), cache: new([addrCacheSize]addrID)}
		t.bw = bufio.NewWriterSize(f, 64<<10)
		t.w = parlot.NewWriter(t.bw)
		s.threads[tid] = t
	}
	if len(t.rest) > 0 {
		// The last buffer ended inside a record.
		b = append(t.rest, b...)
		t.rest = nil
	}
	return s.records(t, b)
}

// records decodes whole records of b into t's stream; an incomplete record
// at its end is kept for the next buffer.
func (s *streamer) records(t *streamThread, b []byte) error {
	var last uint64
	for len(b) >= recordSize {
		// Most records go through the loop of plainRecords; it stops
		// at the first that needs more (a function not yet in the
		// thread's cache, a record of another kind), or when vals is full.
		var n int
		b, t.vals, t.top, n, last = plainRecords(b, t.vals, t.stack, t.top, t.cache, last)
		if len(t.vals) == cap(t.vals) {
			if err := t.w.Write(t.vals); err != nil {
				return fileError(t.f.Name(), err)
			}
			t.written += uint64(len(t.vals))
			t.vals = t.vals[:0]
			continue
		}
		if n > 0 || len(b) < recordSize {
			continue
		}
		w := uftrace.WordOf(b)
		size := recordSize
		if !w.Valid() {
			return fmt.Errorf("thread %d: uftrace sent a record with a bad magic: the recording is damaged", t.tid)
		}
		if w.More() {
			if w.Kind() != uftrace.Event {
				return fmt.Errorf("thread %d: uftrace sent a record with function arguments (-A/-R/-a), which difftrace does not read", t.tid)
			}
			if len(b) < recordSize+2 {
				break
			}
			size = recordSize + uftrace.PayloadSize(binary.LittleEndian.Uint16(b[recordSize:]))
			if len(b) < size {
				break
			}
		}
		last = uftrace.TimeOf(b)
		switch w.Kind() {
		case uftrace.Entry:
			// Its function is not in the cache: look it up, and let
			// plainRecords take the record.
			addr := w.Addr()
			id, err := s.id(t, addr)
			if err != nil {
				return err
			}
			t.cache[cacheSlot(addr)] = addrID{addr, id}
			continue
		case uftrace.Lost:
			t.lost += w.Addr()
		}
		b = b[size:]
	}
	if last != 0 {
		// A thread's records come in the order of their times.
		t.last = max(t.last, last)
	}
	t.rest = append(t.rest[:0], b...)
	return nil
}

// cacheSlot is the slot of addr in a thread's address cache.
func cacheSlot(addr uint64) uint64 { return (addr ^ addr>>12) & (addrCacheSize - 1) }

// plainRecords decodes the entry and exit records at the start of b, for
// functions in cache, into vals and the stack of open calls stack[:top],
// until vals is full. It returns the rest of b, vals, top, the number of
// records decoded and the time of the last. It calls nothing, so that the
// compiler keeps the loop's state in registers.
func plainRecords(b []byte, vals []uint16, stack *[maxDepth]uint16, top int, cache *[addrCacheSize]addrID, last uint64) ([]byte, []uint16, int, int, uint64) {
	n := 0
	for len(b) >= recordSize && len(vals) < cap(vals) {
		w := uftrace.WordOf(b)
		// The magic, no arguments, and an entry or an exit.
		if !w.Plain() {
			break
		}
		depth := w.Depth()
		if w.Kind() == uftrace.Entry {
			addr := w.Addr()
			c := &cache[cacheSlot(addr)]
			id := c.id
			if c.addr != addr || id == 0 {
				break
			}
			// A call deeper than the open ones (records lost between
			// them) goes on top of them.
			d := min(depth, top)
			stack[d&(maxDepth-1)] = id
			top = d + 1
			vals = append(vals, id)
		} else {
			top = min(top, depth)
			vals = append(vals, 0)
		}
		last = uftrace.TimeOf(b)
		b = b[recordSize:]
		n++
	}
	return b, vals, top, n, last
}

// id returns the provisional ID of the function at addr, numbering it if
// it is new, and notes it among those thread t called.
func (s *streamer) id(t *streamThread, addr uint64) (uint16, error) {
	id, ok := s.ids[addr]
	if !ok {
		if len(s.addrs) >= parlot.MaxFuncID {
			return 0, fmt.Errorf("the program called more than %d distinct functions, more than a ParLOT trace can number (record the main image only)", parlot.MaxFuncID)
		}
		s.addrs = append(s.addrs, addr)
		id = uint16(len(s.addrs))
		s.ids[addr] = id
	}
	if int(id>>6) >= len(t.seen) {
		t.seen = append(t.seen, make([]uint64, int(id>>6)+1-len(t.seen))...)
	}
	if t.seen[id>>6]&(1<<(id&63)) == 0 {
		t.seen[id>>6] |= 1 << (id & 63)
		t.first = append(t.first, id)
	}
	return id, nil
}

// metadata keeps one of the recording's files (a symbol table, a memory
// map, task.txt).
func (s *streamer) metadata(b []byte) error {
	if len(b) < 4 {
		return errors.New("uftrace sent a file without its name")
	}
	n := binary.BigEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return errors.New("uftrace sent a file whose name is longer than the message")
	}
	name := filepath.Base(string(b[4 : 4+n]))
	if name == "." || name == ".." || name == "/" || strings.ContainsRune(name, 0) {
		return fmt.Errorf("uftrace sent a file named %q", string(b[4:4+n]))
	}
	s.files[name] = &fstest.MapFile{Data: slices.Clone(b[4+n:]), Mode: 0o600}
	return nil
}

// info stores the recording's info file; uftrace sends its header's fields
// in network byte order, and the file holds them in the machine's.
func (s *streamer) info(b []byte) error {
	if len(b) < uftrace.HeaderSize {
		return errors.New("uftrace sent an info file shorter than its header")
	}
	h := make([]byte, len(b))
	copy(h, b)
	binary.LittleEndian.PutUint32(h[8:], binary.BigEndian.Uint32(b[8:]))
	binary.LittleEndian.PutUint16(h[12:], binary.BigEndian.Uint16(b[12:]))
	binary.LittleEndian.PutUint64(h[16:], binary.BigEndian.Uint64(b[16:]))
	binary.LittleEndian.PutUint64(h[24:], binary.BigEndian.Uint64(b[24:]))
	binary.LittleEndian.PutUint16(h[32:], binary.BigEndian.Uint16(b[32:]))
	s.files["info"] = &fstest.MapFile{Data: h, Mode: 0o600}
	return nil
}

// flush writes what each thread's stream still holds and closes the
// partial files; their compressed streams are complete.
func (s *streamer) flush() error {
	var first error
	for _, t := range s.threads {
		err := t.w.Write(t.vals)
		t.written += uint64(len(t.vals))
		t.vals = t.vals[:0]
		if err == nil {
			err = t.w.Close()
		}
		if err == nil {
			err = t.bw.Flush()
		}
		if cerr := t.f.Close(); err == nil {
			err = cerr
		}
		if err != nil && first == nil {
			first = fileError(t.f.Name(), err)
		}
	}
	return first
}

// remove deletes the partial files.
func (s *streamer) remove() {
	for _, t := range s.threads {
		os.Remove(t.f.Name())
	}
}

// sessions returns the session ids of the recording: those of the memory
// maps uftrace sent.
func (s *streamer) sessions() []string {
	var sids []string
	for name := range s.files {
		if sid, ok := strings.CutPrefix(name, "sid-"); ok {
			if sid, ok = strings.CutSuffix(sid, ".map"); ok {
				sids = append(sids, sid)
			}
		}
	}
	return sids
}

// convert writes the ParLOT files of process opt.PID from the streamed
// recording: it names the provisional IDs with the symbol tables uftrace
// sent last, numbers them as ConvertUftrace does, and rewrites each
// thread's stream with the final IDs (the calls a snapshot adds at its
// end). The partial files are removed whatever happens.
func (s *streamer) convert(opt ConvertOptions) (*ConvertResult, error) {
	defer s.remove()
	if err := s.flush(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	err, ended := s.err, s.ended
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	data, err := uftrace.OpenFS(s.files, "the recording uftrace sent")
	if err != nil {
		if !ended {
			return nil, fmt.Errorf("uftrace's recorder ended before it sent the recording's symbol tables (%w): the calls recorded cannot be named", err)
		}
		return nil, err
	}
	pid := opt.PID
	res := &ConvertResult{PID: pid}
	var plans []*threadPlan
	known := map[int]bool{}
	for _, t := range data.Threads(pid) {
		plans = append(plans, &threadPlan{task: t})
		known[t.TID] = true
	}
	var strays []int
	for tid := range s.threads {
		if !known[tid] {
			strays = append(strays, tid)
		}
	}
	slices.Sort(strays)
	for _, tid := range strays {
		plans = append(plans, &threadPlan{task: uftrace.Task{PID: pid, TID: tid, Thread: len(plans)}})
		res.Notes = append(res.Notes, fmt.Sprintf("thread %d (tid %d) is not in uftrace's task list; numbered after the others", len(plans)-1, tid))
	}

	name := func(t *streamThread, id uint16) trace.Name {
		return data.Resolve(pid, t.last, s.addrs[id-1])
	}
	var order []trace.Name
	seen := map[trace.Name]bool{}
	note := func(n trace.Name) { order = appendNew(order, seen, n) }
	for _, p := range plans {
		t := s.threads[p.task.TID]
		if t == nil {
			continue
		}
		for _, id := range t.first {
			note(name(t, id))
		}
		p.stats = uftrace.ThreadStats{Calls: t.calls(), Lost: t.lost, LastTime: t.last, Truncated: len(t.rest) > 0}
		for _, id := range t.openCalls() {
			p.stats.Open = append(p.stats.Open, name(t, id))
		}
	}
	order = finishPlans(data, pid, opt, plans, res, order)
	err = writeProcess(data, pid, opt, plans, order, res, func(p *threadPlan, ids map[trace.Name]uint16, pw *parlot.Writer) error {
		t := s.threads[p.task.TID]
		if t == nil {
			return nil
		}
		final := make([]uint16, len(s.addrs)+1)
		for _, id := range t.first {
			final[id] = ids[name(t, id)]
		}
		f, err := os.Open(t.f.Name())
		if err != nil {
			return err
		}
		defer f.Close()
		r := parlot.NewReader(f, t.f.Name(), ^uint64(0))
		buf := make([]uint16, 64<<10)
		for {
			n, err := r.Read(buf)
			for i, v := range buf[:n] {
				buf[i] = final[v]
			}
			if werr := pw.Write(buf[:n]); werr != nil {
				return werr
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}, func(p *threadPlan, ids map[trace.Name]uint16) (string, uint64, bool) {
		// The partial stream is the trace when its provisional IDs are
		// the final ones (a single-threaded process usually): copied, not
		// decoded and compressed again.
		t := s.threads[p.task.TID]
		if t == nil {
			return "", 0, false
		}
		for _, id := range t.first {
			if ids[name(t, id)] != id {
				return "", 0, false
			}
		}
		return t.f.Name(), t.w.Values(), true
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}
