package record

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// Stack snapshots close the one gap a uftrace recording has at a hang.
// uftrace writes a call's entry record only when something after it is
// recorded, so the call a deadlocked thread is blocked in — the MPI_Recv of
// seeds/002 §3.2.7's dlBug, the most important event of the trace — never
// reaches the data files. Like STAT, capture takes a stack snapshot of the
// still-running process just before it kills it (--timeout, or a
// terminating signal from the launcher) and later appends the innermost
// traced call of each thread that was still inside it.

// Frame is one frame of a thread's stack.
type Frame struct {
	PC     uint64
	Module string // path of the image holding PC ("" if unknown)
	// Vaddr is the module's own (file) virtual address of the instruction:
	// for a caller's frame, of the call instruction (PC-1).
	Vaddr uint64
	// Call is set for every frame but the innermost: PC is a return
	// address, one past the call.
	Call bool
}

// Snapshot holds the stacks of every thread of a process at one moment.
type Snapshot struct {
	// Time is CLOCK_MONOTONIC, in nanoseconds, read just before the stacks
	// were taken: uftrace stamps its records with the same clock, so a
	// thread with a record after Time moved on while the snapshot was taken.
	Time    uint64
	Threads map[int][]Frame // by thread id; innermost frame first
}

// monotonicNow reads CLOCK_MONOTONIC as uftrace does.
func monotonicNow() uint64 {
	var ts syscall.Timespec
	const clockMonotonic = 1
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic, uintptr(unsafe.Pointer(&ts)), 0)
	return uint64(ts.Sec)*1e9 + uint64(ts.Nsec)
}

// TakeSnapshot records the stacks of all threads of process pid with
// elfutils' eu-stack (which needs permission to ptrace the process: root,
// or kernel.yama.ptrace_scope 0). It gives up after timeout.
func TakeSnapshot(pid int, timeout time.Duration) (*Snapshot, error) {
	tool, err := exec.LookPath("eu-stack")
	if err != nil {
		return nil, errors.New("eu-stack not found in PATH: install elfutils (Debian: apt-get install elfutils) so that capture can record where a killed program hung")
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	s := &Snapshot{Time: monotonicNow()}
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, tool, "-p", strconv.Itoa(pid), "-q", "-m", "-b", "-a", "-n", "128")
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err = cmd.Run()
	s.Threads = parseEuStack(out.Bytes())
	if len(s.Threads) == 0 {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" && err != nil {
			msg = err.Error()
		}
		return nil, fmt.Errorf("stack snapshot of process %d failed: %s", pid, firstLine(msg))
	}
	// eu-stack exits 1 when some unwinding stopped early, which it does at
	// uftrace's return trampolines: the frames it did print are what counts.
	return s, nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// parseEuStack reads the output of eu-stack -m -b -a: per thread a
// "TID n:" line, then per frame
//
//	#3  0x00007f76171f2a71 - 1 name - /path/to/module
//	    [build-id]@0xLOAD+0xVADDR
//
// where "- 1" marks a return address (VADDR is then of the call itself).
func parseEuStack(b []byte) map[int][]Frame {
	threads := map[int][]Frame{}
	tid := -1
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "TID "):
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(line, "TID "), ":"))
			if err != nil {
				tid = -1
				continue
			}
			tid = n
			threads[tid] = nil
		case strings.HasPrefix(line, "#") && tid >= 0:
			fs := strings.Fields(line)
			if len(fs) < 2 {
				continue
			}
			pc, err := strconv.ParseUint(strings.TrimPrefix(fs[1], "0x"), 16, 64)
			if err != nil {
				continue
			}
			f := Frame{PC: pc, Call: len(fs) > 3 && fs[2] == "-" && fs[3] == "1"}
			if i := strings.LastIndex(line, " - /"); i >= 0 {
				f.Module = line[i+3:]
			}
			threads[tid] = append(threads[tid], f)
		case strings.HasPrefix(strings.TrimSpace(line), "[") && tid >= 0:
			fr := threads[tid]
			if len(fr) == 0 {
				continue
			}
			_, tail, ok := strings.Cut(line, "@0x")
			if !ok {
				continue
			}
			_, off, ok := strings.Cut(tail, "+0x")
			if v, err := strconv.ParseUint(off, 16, 64); ok && err == nil {
				fr[len(fr)-1].Vaddr = v
			}
		}
	}
	return threads
}

// isRecorderModule reports whether path is uftrace's in-process library,
// whose trampolines replace the return addresses of traced calls.
func isRecorderModule(path string) bool {
	return strings.HasPrefix(filepath.Base(path), "libmcount")
}

// InnermostTraced returns the innermost frame of a thread that is a traced
// call. uftrace replaces a traced call's return address by one of its
// trampolines, so the frame that "returns" into the recorder library at an
// address no call instruction precedes is a trampoline, and the frame just
// inside it is the traced call. A thread whose recorder frame follows a
// real call is inside the recorder itself (writing its buffers): it
// reports false, as does a thread in no traced call.
func InnermostTraced(frames []Frame) (Frame, bool) {
	for i, f := range frames {
		if !isRecorderModule(f.Module) {
			continue
		}
		if i == 0 || !f.Call || followsCall(f.Module, f.Vaddr+1) {
			return Frame{}, false
		}
		in := frames[i-1]
		return in, in.Module != "" && !isRecorderModule(in.Module)
	}
	return Frame{}, false
}

var (
	codeMu    sync.Mutex
	codeCache = map[string]*elf.File{}
)

// openCode returns the ELF file at path, opened once per process and kept
// for the snapshot frames and tail calls that read its code, or nil when it
// cannot be read.
func openCode(path string) *elf.File {
	codeMu.Lock()
	defer codeMu.Unlock()
	f, ok := codeCache[path]
	if !ok {
		f, _ = elf.Open(path)
		codeCache[path] = f
	}
	return f
}

// readVaddr reads size bytes at virtual address addr from the file's
// loadable segments, or returns nil.
func readVaddr(f *elf.File, addr, size uint64) []byte {
	if size > 1<<20 {
		return nil
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && addr >= p.Vaddr && addr+size <= p.Vaddr+p.Filesz {
			b := make([]byte, size)
			if _, err := p.ReadAt(b, int64(addr-p.Vaddr)); err != nil {
				return nil
			}
			return b
		}
	}
	return nil
}

// followsCall reports whether the instruction that ends just before the
// virtual address ret of the ELF file at path is a call: a near call
// (E8 rel32) or an indirect call (FF /2, with any addressing form and an
// optional REX prefix). Unreadable code counts as a call, so that unknown
// frames are never taken for trampolines.
func followsCall(path string, ret uint64) bool {
	f := openCode(path)
	if f == nil || ret < 8 {
		return true
	}
	b := readVaddr(f, ret-8, 8)
	read := b != nil
	if !read {
		return true
	}
	if b[3] == 0xe8 {
		return true
	}
	// FF /2: the ModRM byte's reg field is 2; its length follows from mod,
	// r/m and (for r/m 100) the SIB byte.
	for l := 2; l <= 7; l++ {
		op := 8 - l
		if b[op] != 0xff {
			continue
		}
		m := b[op+1]
		if m>>3&7 != 2 {
			continue
		}
		n := 2
		mod, rm := m>>6, m&7
		if mod != 3 && rm == 4 {
			n++ // SIB
			if mod == 0 && op+2 < 8 && b[op+2]&7 == 5 {
				n += 4
			}
		}
		switch {
		case mod == 1:
			n++
		case mod == 2, mod == 0 && rm == 5:
			n += 4
		}
		if n == l {
			return true
		}
	}
	return false
}

// directCallee returns the file virtual address a near call (E8 rel32)
// that ends just before ret calls, in the ELF file at path.
func directCallee(path string, ret uint64) (uint64, bool) {
	f := openCode(path)
	if f == nil || ret < 5 {
		return 0, false
	}
	b := readVaddr(f, ret-5, 5)
	if b == nil || b[0] != 0xe8 {
		return 0, false
	}
	return uint64(int64(ret) + int64(int32(binary.LittleEndian.Uint32(b[1:])))), true
}

// threadIDs lists the snapshot's threads (none for a nil snapshot).
func (s *Snapshot) threadIDs() []int {
	if s == nil {
		return nil
	}
	ids := make([]int, 0, len(s.Threads))
	for tid := range s.Threads {
		ids = append(ids, tid)
	}
	return ids
}
