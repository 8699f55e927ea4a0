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
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/difftrace/difftrace/internal/private"
	"github.com/difftrace/difftrace/rundir"
	"github.com/difftrace/difftrace/symname"
)

// The peers library (peerslib/peers.c) wraps the blocking and request-making calls
// of MPI's C interface, and keeps for each thread of the program, in a
// file it shares with capture, the call the thread is in and the ranks it
// waits for. uftrace could record the calls' arguments itself, but it
// writes a call's entry only once the call returns or calls something
// traced, so the arguments of the call a rank hangs in — the ones that
// matter — would never reach the trace. The library is built once per MPI
// installation with its mpicc and kept in the user's cache directory, if
// that is private (peersLibrary).
//
//go:embed peerslib/peers.c
var peersSrc []byte

const (
	peersSlots    = 256
	peersSlotSize = 1024
	peersHeader   = 64
	peersVar      = "DIFFTRACE_PEERS"
)

// peersLibrary returns the path of the peers library built for the mpicc
// in PATH, to be preloaded into the program. It is kept in difftrace's
// cache directory (cachedPeers) when that is private to this user: anybody
// who could plant or change a file there would run code as this user in
// every capture. Otherwise (no cache directory, as with HOME unset in a
// batch job, or one that is not private) it is built for this capture in
// work, the recorder's private work directory that capture removes, and
// note says why the cache was not used (nothing when there is none).
func peersLibrary(work string) (so, note string, err error) {
	cc, err := exec.LookPath("mpicc")
	if err != nil {
		return "", "", errors.New("mpicc not found in PATH (Debian: apt-get install libopenmpi-dev)")
	}
	st, err := os.Stat(cc)
	if err != nil {
		return "", "", err
	}
	name := peersName(cc, st)
	if cache, err := os.UserCacheDir(); err == nil {
		so, err := cachedPeers(cc, filepath.Join(cache, "difftrace"), name)
		var be *buildError
		if err == nil || errors.As(err, &be) {
			return so, "", err
		}
		fix := ""
		if errors.Is(err, private.ErrNotPrivate) {
			fix = ", or set XDG_CACHE_HOME to a directory of your own"
		}
		note = fmt.Sprintf("not using the cache for the MPI peers library: %v%s; building it for this capture", err, fix)
	}
	dir := filepath.Join(work, "peerslib")
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", note, err
	}
	so = filepath.Join(dir, name)
	return so, note, buildPeers(cc, so)
}

// peersName names the library built from peers.c with the mpicc cc (st):
// another MPI installation, or the same one updated, gets another.
func peersName(cc string, st fs.FileInfo) string {
	h := sha256.New()
	h.Write(peersSrc)
	fmt.Fprintf(h, "\x00%s\x00%d\x00%d", cc, st.Size(), st.ModTime().UnixNano())
	return "peers-" + hex.EncodeToString(h.Sum(nil))[:16] + ".so"
}

// cachedPeers returns the library name in dir, a directory made private
// (internal/private), building it first unless a library is there whose
// contents match the hash recorded beside it when it was built, and that
// is this user's file that nobody else may write. A library that fails
// these checks (damaged, or not this user's) is built afresh and replaces
// it; errors about dir, and about the lock, are returned as they are.
func cachedPeers(cc, dir, name string) (string, error) {
	if err := private.MkdirAll(dir); err != nil {
		return "", err
	}
	so := filepath.Join(dir, name)
	if checkPeers(so) == nil {
		return so, nil
	}
	// One rank of a node builds; the others wait for it.
	lf, err := private.OpenFile(so+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return "", err
	}
	defer lf.Close()
	if err := flock(lf, syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("locking %s: %w", lf.Name(), err)
	}
	defer flock(lf, syscall.LOCK_UN)
	if checkPeers(so) == nil {
		return so, nil
	}
	return so, buildPeers(cc, so)
}

// checkPeers checks the library so against the hash recorded in
// so.sha256 when it was built, reading both as files of this user's that
// nobody else may write (private.ReadFile).
func checkPeers(so string) error {
	lib, err := private.ReadFile(so)
	if err != nil {
		return err
	}
	want, err := private.ReadFile(so + ".sha256")
	if err != nil {
		return err
	}
	if sum := sha256.Sum256(lib); hex.EncodeToString(sum[:]) != strings.TrimSpace(string(want)) {
		return fmt.Errorf("%s does not match the hash recorded when it was built", so)
	}
	return nil
}

// A buildError is mpicc failing to build the library.
type buildError struct{ err error }

func (e *buildError) Error() string { return e.err.Error() }
func (e *buildError) Unwrap() error { return e.err }

// buildPeers builds the library so with cc, in a fresh private directory
// beside it (the source written there, created exclusively), records its
// hash in so.sha256, and renames it into place. The caller holds the
// library's lock, if others could build it at the same time: what killed
// builders left is removed.
func buildPeers(cc, so string) error {
	dir, name := filepath.Split(so)
	stale, _ := filepath.Glob(filepath.Join(dir, "."+name+".build-*"))
	for _, s := range stale {
		os.RemoveAll(s)
	}
	tmp, err := os.MkdirTemp(dir, "."+name+".build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	src, out := filepath.Join(tmp, "peers.c"), filepath.Join(tmp, "peers.so")
	f, err := private.OpenFile(src, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(peersSrc)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", src, err)
	}
	msg, err := exec.Command(cc, "-std=gnu11", "-shared", "-fPIC", "-O2", "-o", out, src, "-ldl").CombinedOutput()
	if err != nil {
		return &buildError{fmt.Errorf("building the peers library with %s: %w: %s", cc, err, firstLine(strings.TrimSpace(string(msg))))}
	}
	// The linker gives the library the mode the umask allows, which may
	// let others write it.
	if err := os.Chmod(out, 0o700); err != nil {
		return err
	}
	lib, err := private.ReadFile(out)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(lib)
	if err := private.WriteFile(so+".sha256", []byte(hex.EncodeToString(sum[:])+"\n"), 0o600); err != nil {
		return err
	}
	return os.Rename(out, so)
}

// peersEnv returns env with the peers library preloaded, before any
// library the user preloads (an MPI tool of theirs then comes next in the
// chain of MPI calls: the library forwards each call to the next
// definition), and its file in work; and peersLibrary's note.
func peersEnv(env []string, work, prog string) ([]string, string, error) {
	so, note, err := peersLibrary(work)
	if err != nil {
		return nil, note, err
	}
	if err := sameMPI(prog, so); err != nil {
		return nil, note, err
	}
	file, err := newPeersFile(work)
	if err != nil {
		return nil, note, err
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
	return append(out, "LD_PRELOAD="+preload, peersVar+"="+file), note, nil
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
func readPeers(path string) (map[int]*rundir.Waiting, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[int]*rundir.Waiting{}
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
func parseWaiting(s string) *rundir.Waiting {
	call, rest, ok := strings.Cut(s, " ")
	if !ok {
		return nil
	}
	// Calls are named as the traces name them (mpi_recv_ reads mpi_recv).
	w := &rundir.Waiting{Call: symname.Written("", call).Func, Peers: []int{}}
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
