package uftrace

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/internal/input"
	"github.com/difftrace/difftrace/internal/readerr"
	"github.com/difftrace/difftrace/trace"
)

// This file reads uftrace data directories (`uftrace record -d DIR`, data
// format version 4 as uftrace 0.13 writes it), so that a recording made by
// uftrace can become ParLOT traces (decode reads them as runs, capture
// converts them). A directory holds:
//
//	info                 a 40-byte binary header, then "key:value" text lines
//	task.txt             one line per session (SESS), thread (TASK), fork
//	                     (FORK), exec (EXEC) and dlopen'ed library (DLOP)
//	sid-<SID>.map        the executable mappings of a session, like /proc/PID/maps
//	<image>.sym          the symbols of each image: "offset type name" lines
//	<TID>.dat            the records of one thread, 16 bytes each
//
// uftrace writes a function's entry only when something after it is
// recorded, so a thread killed inside a call that never returned lacks
// that call's entry (capture adds it back from a stack snapshot).

// pidMax bounds Linux thread ids; creation order is tid order modulo it.
const pidMax = 1 << 22

// Session is one program run inside a recording: the first process,
// or a process that called exec.
type Session struct {
	SID  string
	PID  int
	Time uint64 // when the session started
	Exe  string // the program's path
}

// Task is one traced thread.
type Task struct {
	PID, TID int
	// Thread numbers the threads of a process: 0 is the first thread (the
	// process's main thread), then creation order, which is thread-id order
	// (Linux hands out ids increasingly, modulo pid_max).
	Thread int
	Time   uint64 // when uftrace first saw the thread (0 if unknown)
}

// Data is an opened uftrace data directory. Its methods may be called
// from one goroutine at a time.
type Data struct {
	Dir      string // where the files are, as named in messages
	fsys     fs.FS  // the files (Dir itself, or files held in memory)
	Version  uint32
	Features uint64
	// Info holds the "key:value" lines of the info file (exename, cmdline,
	// exit_status, …); a repeated key keeps its last value, and grouped
	// lines "osinfo:hostname=node01" are also under "osinfo:hostname".
	Info     map[string]string
	Sessions []Session // in task.txt order
	// Tasks lists every thread that has a TASK line or a data file, grouped
	// by process (in order of the processes' first appearance), then by
	// Thread.
	Tasks []Task

	forks   map[int]int // child pid → parent pid
	dlopens []dlopen
	maps    map[string][]mapping // by session id
	images  map[string]*imageSyms
	cache   map[addrKey]trace.Name
}

type dlopen struct {
	time uint64
	sid  string
	base uint64
	path string
}

type mapping struct {
	start, end uint64
	path       string
	buildID    string
}

type addrKey struct {
	sid  string
	addr uint64
}

// Error reports a uftrace data directory that cannot be read: which
// file, where, and what was wrong.
type Error struct {
	File   string
	Offset int64 // byte offset, or -1 when the whole file is at fault
	Line   int   // line number for text files (0 if not a line)
	Reason string
	Err    error // the cause, if any (errors.Is and errors.As see it)
}

func (e *Error) Error() string {
	where := ""
	switch {
	case e.Line > 0:
		where = fmt.Sprintf(":%d", e.Line)
	case e.Offset >= 0:
		where = fmt.Sprintf(": byte %d", e.Offset)
	}
	return fmt.Sprintf("%s%s: %s", e.File, where, e.Reason)
}

func (e *Error) Unwrap() error { return e.Err }

// Open reads the metadata of a uftrace data directory: its header and
// info, sessions, threads and memory maps. Records and symbols are read on
// demand.
func Open(dir string) (*Data, error) {
	if st, err := os.Stat(dir); err != nil {
		return nil, readerr.New(dir, err)
	} else if !st.IsDir() {
		return nil, &Error{dir, -1, 0, "not a directory (give the directory uftrace record wrote, uftrace.data by default)", nil}
	}
	return OpenFS(input.DirFS(dir), dir)
}

// OpenFS is Open for the files of a recording held in fsys,
// such as those uftrace sends over its network protocol and capture keeps
// in memory; dir names them in messages.
func OpenFS(fsys fs.FS, dir string) (*Data, error) {
	d := &Data{
		Dir:    dir,
		fsys:   fsys,
		Info:   map[string]string{},
		forks:  map[int]int{},
		maps:   map[string][]mapping{},
		images: map[string]*imageSyms{},
		cache:  map[addrKey]trace.Name{},
	}
	if err := d.readInfo(); err != nil {
		return nil, err
	}
	if err := d.readTasks(); err != nil {
		return nil, err
	}
	for _, s := range d.Sessions {
		if _, done := d.maps[s.SID]; done {
			continue
		}
		if err := d.readMap(s.SID); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func (d *Data) readInfo() error {
	path := filepath.Join(d.Dir, "info")
	b, err := fs.ReadFile(d.fsys, "info")
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return &Error{d.Dir, -1, 0, "no info file: not a uftrace data directory, or uftrace was killed before it started writing; record the run again", err}
		}
		return readerr.New(path, err)
	}
	if len(b) < HeaderSize || string(b[:8]) != Magic {
		return &Error{path, 0, 0, "not a uftrace info file (bad magic): the recording is damaged; record the run again", nil}
	}
	d.Version = binary.LittleEndian.Uint32(b[8:])
	hsize := int(binary.LittleEndian.Uint16(b[12:]))
	if b[14] != 1 || b[15] != 2 {
		return &Error{path, 14, 0, "only little-endian 64-bit recordings are supported (record on x86-64 or arm64)", nil}
	}
	if d.Version < 4 {
		return &Error{path, 8, 0, fmt.Sprintf("uftrace data format version %d is too old (need 4, uftrace 0.9 or newer)", d.Version), nil}
	}
	d.Features = binary.LittleEndian.Uint64(b[16:])
	if hsize < HeaderSize || hsize > len(b) {
		hsize = HeaderSize
	}
	for _, line := range strings.Split(string(b[hsize:]), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		d.Info[k] = v
		// Grouped lines such as "osinfo:hostname=node01" are also kept
		// under "osinfo:hostname".
		if sub, val, ok := strings.Cut(v, "="); ok && sub != "" && !strings.ContainsAny(sub, " /") {
			d.Info[k+":"+sub] = val
		}
	}
	return nil
}

// taskFields splits a task.txt line into its keyword and key=value fields;
// values may be double-quoted.
func taskFields(line string) (string, map[string]string, bool) {
	kw, rest, _ := strings.Cut(line, " ")
	f := map[string]string{}
	for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
		k, v, ok := strings.Cut(rest, "=")
		if !ok {
			return kw, f, false
		}
		if strings.HasPrefix(v, `"`) {
			end := strings.IndexByte(v[1:], '"')
			if end < 0 {
				return kw, f, false
			}
			f[k] = v[1 : 1+end]
			rest = v[2+end:]
		} else {
			val, tail, _ := strings.Cut(v, " ")
			f[k] = val
			rest = tail
		}
	}
	return kw, f, true
}

// parseTime reads "SEC.NSEC" into nanoseconds.
func parseTime(s string) (uint64, bool) {
	sec, ns, _ := strings.Cut(s, ".")
	a, err1 := strconv.ParseUint(sec, 10, 64)
	if ns == "" {
		ns = "0"
	}
	for len(ns) < 9 {
		ns += "0"
	}
	b, err2 := strconv.ParseUint(ns[:9], 10, 64)
	return a*1e9 + b, err1 == nil && err2 == nil
}

func (d *Data) readTasks() error {
	path := filepath.Join(d.Dir, "task.txt")
	f, err := d.fsys.Open("task.txt")
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return &Error{d.Dir, -1, 0, "no task.txt: the recording is incomplete or was made by a uftrace older than 0.9", err}
		}
		return readerr.New(path, err)
	}
	defer f.Close()
	type key struct{ pid, tid int }
	seen := map[key]bool{}
	var order []int // pids in first-appearance order
	pidSeen := map[int]bool{}
	dlSeen := map[dlopen]bool{}
	addPID := func(pid int) {
		if !pidSeen[pid] {
			pidSeen[pid] = true
			order = append(order, pid)
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		kw, fs, ok := taskFields(line)
		bad := func(what string) error {
			return &Error{path, -1, n, fmt.Sprintf("malformed %s line: %s (the recording is damaged; record the run again)", kw, what), nil}
		}
		if !ok {
			return bad("unbalanced field")
		}
		t, okT := parseTime(fs["timestamp"])
		num := func(k string) (int, bool) {
			v, err := strconv.Atoi(fs[k])
			return v, err == nil
		}
		switch kw {
		case "SESS":
			pid, ok := num("pid")
			if !ok || !okT || fs["sid"] == "" {
				return bad("want timestamp, pid, sid and exename")
			}
			d.Sessions = append(d.Sessions, Session{SID: fs["sid"], PID: pid, Time: t, Exe: fs["exename"]})
			addPID(pid)
		case "TASK":
			pid, ok1 := num("pid")
			tid, ok2 := num("tid")
			if !ok1 || !ok2 || !okT {
				return bad("want timestamp, tid and pid")
			}
			if !seen[key{pid, tid}] {
				seen[key{pid, tid}] = true
				d.Tasks = append(d.Tasks, Task{PID: pid, TID: tid, Time: t})
			}
			addPID(pid)
		case "FORK":
			pid, ok1 := num("pid")
			ppid, ok2 := num("ppid")
			if !ok1 || !ok2 {
				return bad("want pid and ppid")
			}
			d.forks[pid] = ppid
			addPID(pid)
		case "DLOP":
			base, err := strconv.ParseUint(fs["base"], 16, 64)
			if err != nil || !okT || fs["libname"] == "" {
				return bad("want timestamp, base and libname")
			}
			dl := dlopen{time: t, sid: fs["sid"], base: base, path: fs["libname"]}
			// uftrace 0.13 repeats every earlier DLOP line at each dlopen.
			if !dlSeen[dl] {
				dlSeen[dl] = true
				d.dlopens = append(d.dlopens, dl)
			}
		case "EXEC":
			// The new program's SESS line says all that is needed.
		default:
			return bad("unknown keyword")
		}
	}
	if err := sc.Err(); err != nil {
		return readerr.New(path, err)
	}
	if len(d.Sessions) == 0 {
		return &Error{path, -1, 0, "no session (SESS line): the recording is empty or incomplete; record the run again", nil}
	}
	// Threads that wrote data but have no TASK line (uftrace killed early).
	dats, _ := fs.Glob(d.fsys, "*.dat")
	for _, p := range dats {
		tid, err := strconv.Atoi(strings.TrimSuffix(p, ".dat"))
		if err != nil {
			continue // perf-cpuN.dat and the like
		}
		found := false
		for _, t := range d.Tasks {
			if t.TID == tid {
				found = true
				break
			}
		}
		if !found {
			pid := d.Sessions[0].PID
			if _, ok := pidSeen[tid]; ok {
				pid = tid
			}
			d.Tasks = append(d.Tasks, Task{PID: pid, TID: tid})
		}
	}
	rank := map[int]int{}
	for i, p := range order {
		rank[p] = i
	}
	slices.SortStableFunc(d.Tasks, func(a, b Task) int {
		if a.PID != b.PID {
			return rank[a.PID] - rank[b.PID]
		}
		ka, kb := ((a.TID-a.PID)%pidMax+pidMax)%pidMax, ((b.TID-b.PID)%pidMax+pidMax)%pidMax
		if ka != kb {
			return ka - kb
		}
		return a.TID - b.TID
	})
	for i := range d.Tasks {
		if i > 0 && d.Tasks[i-1].PID == d.Tasks[i].PID {
			d.Tasks[i].Thread = d.Tasks[i-1].Thread + 1
		}
	}
	return nil
}

func (d *Data) readMap(sid string) error {
	path := filepath.Join(d.Dir, "sid-"+sid+".map")
	f, err := d.fsys.Open("sid-" + sid + ".map")
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			d.maps[sid] = nil // symbols of this session cannot be resolved
			return nil
		}
		return readerr.New(path, err)
	}
	defer f.Close()
	var ms []mapping
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		fs := strings.Fields(sc.Text())
		if len(fs) < 6 {
			continue // anonymous mappings
		}
		lo, hi, ok := strings.Cut(fs[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if !ok || err1 != nil || err2 != nil {
			return &Error{path, -1, n, "malformed address range " + fs[0] + " (the recording is damaged; record the run again)", nil}
		}
		if len(fs[1]) < 3 || fs[1][2] != 'x' || !strings.HasPrefix(fs[5], "/") {
			continue
		}
		m := mapping{start: start, end: end, path: fs[5]}
		for _, x := range fs[6:] {
			if id, ok := strings.CutPrefix(x, "build-id:"); ok {
				m.buildID = id
			}
		}
		// uftrace writes each image once, starting at its load address; keep
		// the first line of an image should it repeat.
		dup := false
		for i := range ms {
			if ms[i].path == m.path {
				ms[i].end = max(ms[i].end, m.end)
				dup = true
			}
		}
		if !dup {
			ms = append(ms, m)
		}
	}
	if err := sc.Err(); err != nil {
		return readerr.New(path, err)
	}
	d.maps[sid] = ms
	return nil
}

// Processes returns the pids of the traced processes in order of first
// appearance (the traced program first, then its forked children).
func (d *Data) Processes() []int {
	var ps []int
	for _, t := range d.Tasks {
		if len(ps) == 0 || ps[len(ps)-1] != t.PID {
			ps = append(ps, t.PID)
		}
	}
	if len(ps) == 0 {
		ps = append(ps, d.Sessions[0].PID)
	}
	return ps
}

// Threads returns the traced threads of process pid, by Thread.
func (d *Data) Threads(pid int) []Task {
	var ts []Task
	for _, t := range d.Tasks {
		if t.PID == pid {
			ts = append(ts, t)
		}
	}
	return ts
}

// session returns the session a process was running at time t: its own
// latest session started by then, else its parent's (a fork keeps the
// parent's program until it calls exec).
func (d *Data) session(pid int, t uint64) *Session {
	for hops := 0; hops < 64; hops++ {
		var best *Session
		for i := range d.Sessions {
			s := &d.Sessions[i]
			if s.PID == pid && (best == nil || s.Time <= t && s.Time >= best.Time) {
				best = s
			}
		}
		if best != nil {
			return best
		}
		ppid, ok := d.forks[pid]
		if !ok {
			break
		}
		pid = ppid
	}
	return &d.Sessions[0]
}

// Records reads the records of one thread's data file in order.
type Records struct {
	f    fs.File
	br   *bufio.Reader
	name string
	off  int64
	buf  [RecordSize]byte
	// Truncated is set when the file ended inside a record (a recording cut
	// short by a full disk or a killed recorder); the records before it are
	// all returned.
	Truncated bool
}

// OpenRecords opens the data file of thread tid. A thread without a data
// file (it recorded nothing) reads as empty.
func (d *Data) OpenRecords(tid int) (*Records, error) {
	if d.Features&(FeatArgument|FeatRetval) != 0 && d.Info["argspec"] != "" {
		return nil, &Error{d.Dir, -1, 0, "recorded with function arguments or return values (uftrace -A/-R/-a), which difftrace does not read; record without them", nil}
	}
	name := filepath.Join(d.Dir, strconv.Itoa(tid)+".dat")
	f, err := d.fsys.Open(strconv.Itoa(tid) + ".dat")
	if errors.Is(err, os.ErrNotExist) {
		return &Records{name: name}, nil
	}
	if err != nil {
		return nil, readerr.New(name, err)
	}
	return &Records{f: f, br: bufio.NewReaderSize(f, 256<<10), name: name}, nil
}

// Next returns the next record, io.EOF after the last one, or an
// *Error for a damaged file.
func (r *Records) Next() (Record, error) {
	if r.br == nil {
		return Record{}, io.EOF
	}
	n, err := io.ReadFull(r.br, r.buf[:])
	if err == io.EOF {
		return Record{}, io.EOF
	}
	if err == io.ErrUnexpectedEOF {
		r.Truncated = true
		r.off += int64(n)
		return Record{}, io.EOF
	}
	if err != nil {
		return Record{}, readerr.New(r.name, err)
	}
	at := r.off
	r.off += RecordSize
	rec, w := Parse(r.buf[:])
	if !w.Valid() {
		return rec, &Error{r.name, at, 0, "bad record magic: the data file is damaged or not a uftrace v4 record; record the run again, or move this file out of the directory to read the other threads", nil}
	}
	if w.More() {
		if rec.Kind != Event {
			return rec, &Error{r.name, at, 0, "record carries function arguments (uftrace -A/-R/-a), which difftrace does not read; record without them", nil}
		}
		// Event payload: a 16-bit size, the data, padded to 8 bytes.
		var sz [2]byte
		if _, err := io.ReadFull(r.br, sz[:]); err != nil {
			r.Truncated = true
			return Record{}, io.EOF
		}
		skip := int64(PayloadSize(binary.LittleEndian.Uint16(sz[:])) - 2)
		if _, err := r.br.Discard(int(skip)); err != nil {
			r.Truncated = true
			return Record{}, io.EOF
		}
		r.off += skip + 2
	}
	return rec, nil
}

// Offset returns the byte offset of the next record.
func (r *Records) Offset() int64 { return r.off }

// Close closes the data file.
func (r *Records) Close() error {
	if r.f == nil {
		return nil
	}
	return r.f.Close()
}

// Resolve names the function at address addr of process pid at time t:
// its image (executable or library path, as mapped) and its symbol. A call
// through the procedure linkage table is named by the called function and
// belongs to the calling image, as uftrace reports it. An address no symbol
// covers is named by its hexadecimal offset ("0x1a2b") in its image, or by
// the bare address in image "?" when no image covers it.
func (d *Data) Resolve(pid int, t, addr uint64) trace.Name {
	s := d.session(pid, t)
	k := addrKey{s.SID, addr}
	if n, ok := d.cache[k]; ok {
		return n
	}
	n := d.resolve(s, t, addr)
	d.cache[k] = n
	return n
}

func (d *Data) resolve(s *Session, t, addr uint64) trace.Name {
	for _, m := range d.maps[s.SID] {
		if addr >= m.start && addr < m.end {
			return d.image(m.path, m.buildID).name(m.path, addr-m.start)
		}
	}
	// A library loaded with dlopen: the one with the highest base at or
	// below addr among those loaded by then.
	var best *dlopen
	for i := range d.dlopens {
		dl := &d.dlopens[i]
		if dl.base <= addr && dl.time <= t && (dl.sid == "" || dl.sid == s.SID) &&
			(best == nil || dl.base > best.base || dl.base == best.base && dl.time >= best.time) {
			best = dl
		}
	}
	if best != nil {
		img := d.image(best.path, "")
		if off := addr - best.base; img.covers(off) {
			return img.name(best.path, off)
		}
	}
	return trace.Name{Image: "?", Func: fmt.Sprintf("0x%x", addr)}
}

// Image returns the symbols uftrace saved for the image at path, or, if it
// saved none, those read from the image's ELF file (when it still exists
// and has the recorded build id).
func (d *Data) image(path, buildID string) *imageSyms {
	if img, ok := d.images[path]; ok {
		return img
	}
	img, err := readSymFile(d.fsys, filepath.Base(path)+".sym", filepath.Join(d.Dir, filepath.Base(path)+".sym"), path)
	if err != nil {
		img = readELFSyms(path, buildID)
	}
	d.images[path] = img
	return img
}

// Program returns the path of the program process pid was running at time t
// (^uint64(0) for its last one: a process that called exec runs another
// program afterwards): the executable of the session, as uftrace saved it
// (a symbolic link resolved), or when uftrace did not name it, the first
// image mapped in the session (executables load below their libraries).
// "" if the recording knows neither.
func (d *Data) Program(pid int, t uint64) string {
	if len(d.Sessions) == 0 {
		return ""
	}
	s := d.session(pid, t)
	if s.Exe != "" {
		return s.Exe
	}
	if ms := d.maps[s.SID]; len(ms) > 0 {
		return ms[0].path
	}
	return ""
}

// PLTNames returns the names of the functions the images of process pid
// call through their procedure linkage tables (the library calls uftrace
// can record), for each image path.
func (d *Data) PLTNames(pid int) map[string][]string {
	s := d.session(pid, ^uint64(0))
	out := map[string][]string{}
	for _, m := range d.maps[s.SID] {
		img := d.image(m.path, m.buildID)
		for _, sy := range img.syms {
			if sy.kind == 'P' {
				out[m.path] = append(out[m.path], sy.name)
			}
		}
	}
	return out
}

// ImagePaths returns the images mapped in process pid's main session, in
// map order (the executable first).
func (d *Data) ImagePaths(pid int) []string {
	s := d.session(pid, ^uint64(0))
	var ps []string
	for _, m := range d.maps[s.SID] {
		ps = append(ps, m.path)
	}
	return ps
}

// Call is a function entry or exit of a thread, with the function's
// name.
type Call struct {
	Exit  bool
	Name  trace.Name
	Addr  uint64 // the recorded address (one name may have several)
	Depth int
	Time  uint64
}

// ThreadStats summarises the records of one thread.
type ThreadStats struct {
	Calls     uint64 // entry and exit records
	Lost      uint64 // records uftrace lost (its buffers were full)
	LastTime  uint64 // time of the last record (0 if none)
	Truncated bool   // the data file ends inside a record
	// Open lists the calls still open after the last record, outermost
	// first: a thread that ended normally has none.
	Open []trace.Name
}

// ReadCalls streams the entries and exits of thread t, in order, to fn
// (which may be nil to only gather the statistics). Lost-record markers and
// events are counted or skipped, not passed on.
func (d *Data) ReadCalls(t Task, fn func(Call) error) (ThreadStats, error) {
	var st ThreadStats
	r, err := d.OpenRecords(t.TID)
	if err != nil {
		return st, err
	}
	defer r.Close()
	// Names by address for this thread: one program throughout unless the
	// process called exec.
	sessions := 0
	for _, s := range d.Sessions {
		if s.PID == t.PID {
			sessions++
		}
	}
	local := map[uint64]trace.Name{}
	name := func(tm, addr uint64) trace.Name {
		if sessions > 1 {
			return d.Resolve(t.PID, tm, addr)
		}
		n, ok := local[addr]
		if !ok {
			n = d.Resolve(t.PID, tm, addr)
			local[addr] = n
		}
		return n
	}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return st, err
		}
		st.LastTime = max(st.LastTime, rec.Time)
		switch rec.Kind {
		case Lost:
			st.Lost += rec.Addr
			continue
		case Event:
			continue
		}
		c := Call{Exit: rec.Kind == Exit, Name: name(rec.Time, rec.Addr), Addr: rec.Addr, Depth: rec.Depth, Time: rec.Time}
		// The record's depth keeps the open-call stack right even across
		// lost records.
		if c.Exit {
			if len(st.Open) > c.Depth {
				st.Open = st.Open[:c.Depth]
			}
		} else {
			if len(st.Open) > c.Depth {
				st.Open = st.Open[:c.Depth]
			}
			st.Open = append(st.Open, c.Name)
		}
		st.Calls++
		if fn != nil {
			if err := fn(c); err != nil {
				return st, err
			}
		}
	}
	st.Truncated = r.Truncated
	return st, nil
}
