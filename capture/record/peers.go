package record

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/difftrace/difftrace/decode"
)

// The peers library (peerslib/peers.c) wraps the blocking and request-making calls
// of MPI's C interface, and keeps for each thread of the program, in a
// file it shares with capture, the call the thread is in and the ranks it
// waits for. uftrace could record the calls' arguments itself, but it
// writes a call's entry only once the call returns or calls something
// traced, so the arguments of the call a rank hangs in — the ones that
// matter — would never reach the trace. The library is built once per MPI
// installation with its mpicc and kept in the user's cache directory.
//
//go:embed peerslib/peers.c
var peersSrc []byte

const (
	peersSlots    = 256
	peersSlotSize = 1024
	peersHeader   = 64
	peersVar      = "DIFFTRACE_PEERS"
)

// peersLibrary returns the path of the peers library built for the
// mpicc in PATH, building it if needed.
func peersLibrary() (string, error) {
	cc, err := exec.LookPath("mpicc")
	if err != nil {
		return "", errors.New("mpicc not found in PATH (Debian: apt-get install libopenmpi-dev)")
	}
	st, err := os.Stat(cc)
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "difftrace")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write(peersSrc)
	fmt.Fprintf(h, "\x00%s\x00%d\x00%d", cc, st.Size(), st.ModTime().UnixNano())
	so := filepath.Join(dir, "peers-"+hex.EncodeToString(h.Sum(nil))[:16]+".so")
	if _, err := os.Stat(so); err == nil {
		return so, nil
	}
	// One rank of a node builds; the others wait for it.
	lf, err := os.OpenFile(so+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lf.Close()
	if err := flock(lf, syscall.LOCK_EX); err != nil {
		return "", err
	}
	defer flock(lf, syscall.LOCK_UN)
	if _, err := os.Stat(so); err == nil {
		return so, nil
	}
	src := filepath.Join(dir, "peers.c")
	tmp := so + ".tmp" + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(src, peersSrc, 0o644); err != nil {
		return "", err
	}
	out, err := exec.Command(cc, "-std=gnu11", "-shared", "-fPIC", "-O2", "-o", tmp, src, "-ldl").CombinedOutput()
	if err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("building the peers library with %s: %v: %s", cc, err, firstLine(strings.TrimSpace(string(out))))
	}
	return so, os.Rename(tmp, so)
}

// peersEnv returns env with the peers library preloaded, before any
// library the user preloads (an MPI tool of theirs then comes next in the
// chain of MPI calls: the library forwards each call to the next
// definition), and its file in work.
func peersEnv(env []string, work, prog string) ([]string, error) {
	so, err := peersLibrary()
	if err != nil {
		return nil, err
	}
	if err := sameMPI(prog, so); err != nil {
		return nil, err
	}
	file, err := newPeersFile(work)
	if err != nil {
		return nil, err
	}
	out := env[:len(env):len(env)]
	preload := so
	for i, kv := range out {
		if v, ok := strings.CutPrefix(kv, "LD_PRELOAD="); ok && v != "" {
			preload = so + ":" + v
			out = append(out[:i:i], out[i+1:]...)
			break
		}
	}
	return append(out, "LD_PRELOAD="+preload, peersVar+"="+file), nil
}

// sameMPI checks that the library, built with the mpicc in PATH, is for
// the MPI library the program links: preloaded into a program of another
// MPI (MPICH's libmpi.so.12 against Open MPI's libmpi.so.40), it would load
// a second MPI library into it.
func sameMPI(prog, so string) error {
	p, err := importedLibraries(prog)
	if err != nil {
		return err
	}
	l, err := importedLibraries(so)
	if err != nil {
		return err
	}
	return mpiMismatch(p, l)
}

// mpiMismatch compares the libraries a program and the wrapper need.
func mpiMismatch(p, l []string) error {
	want, ok := mpiLibrary(l)
	if !ok {
		return nil
	}
	// A Fortran program may link only the Fortran bindings
	// (libmpi_mpifh.so.40, MPICH's libmpifort.so.12), which carry the
	// MPI library's version.
	got := ""
	for _, x := range p {
		if strings.HasPrefix(x, "libmpi") {
			if soVersion(x) == soVersion(want) {
				return nil
			}
			got = x
		}
	}
	return fmt.Errorf("the program links %s, and the mpicc in PATH builds for %s", got, want)
}

// mpiLibrary returns the C MPI library among libs (libmpi.so.N).
func mpiLibrary(libs []string) (string, bool) {
	for _, l := range libs {
		if strings.HasPrefix(l, "libmpi.so") {
			return l, true
		}
	}
	return "", false
}

// soVersion returns a shared library's major version: "40" for
// libmpi.so.40 or libmpi_mpifh.so.40.1.
func soVersion(name string) string {
	_, v, _ := strings.Cut(name, ".so.")
	v, _, _ = strings.Cut(v, ".")
	return v
}

// isMPIProgram says the program links an MPI library.
func isMPIProgram(prog string) bool {
	libs, err := importedLibraries(prog)
	if err != nil {
		return false
	}
	for _, l := range libs {
		if strings.HasPrefix(l, "libmpi") {
			return true
		}
	}
	return false
}

// newPeersFile creates the file the library's slots live in.
func newPeersFile(work string) (string, error) {
	p := filepath.Join(work, "peers")
	return p, os.WriteFile(p, make([]byte, peersHeader+peersSlots*peersSlotSize), 0o600)
}

// readPeers reads what each thread of a stopped program waits for, by
// thread id.
func readPeers(path string) (map[int]*decode.Waiting, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[int]*decode.Waiting{}
	for i := 0; i < peersSlots; i++ {
		off := peersHeader + i*peersSlotSize
		if off+peersSlotSize > len(b) {
			break
		}
		s := b[off : off+peersSlotSize]
		seq, tid := binary.LittleEndian.Uint32(s), int(int32(binary.LittleEndian.Uint32(s[4:])))
		if tid == 0 {
			continue
		}
		text := s[8:]
		if n := bytes.IndexByte(text, 0); n >= 0 {
			text = text[:n]
		}
		if seq%2 == 1 || len(text) == 0 {
			continue // stopped while writing it, or in no wrapped call
		}
		if w := parseWaiting(string(text)); w != nil {
			out[tid] = w
		}
	}
	return out, nil
}

// parseWaiting reads one slot's text (see peers.c).
func parseWaiting(s string) *decode.Waiting {
	call, rest, ok := strings.Cut(s, " ")
	if !ok {
		return nil
	}
	// Calls are named as the traces name them (mpi_recv_ reads mpi_recv).
	w := &decode.Waiting{Call: decode.Written("", call).Func, Peers: []int{}}
	switch {
	case rest == "world":
		w.Collective, w.World = true, true
		return w
	case strings.HasPrefix(rest, "c:"):
		w.Collective = true
		rest = rest[2:]
	}
	for _, f := range strings.Split(rest, ",") {
		switch f {
		case "":
		case "*":
			w.AnySource = true
		case "?":
			w.Unknown = true
		default:
			n, err := strconv.Atoi(f)
			if err != nil {
				return nil
			}
			w.Peers = append(w.Peers, n)
		}
	}
	return w
}

// importedLibraries lists the shared libraries an ELF file needs.
func importedLibraries(path string) ([]string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ImportedLibraries()
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
