package record

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/difftrace/difftrace/internal/testenv"
	"github.com/difftrace/difftrace/rundir"
)

func TestParseWaiting(t *testing.T) {
	for _, c := range []struct {
		in   string
		want *rundir.Waiting
	}{
		{"MPI_Recv 3", &rundir.Waiting{Call: "MPI_Recv", Peers: []int{3}}},
		{"MPI_Recv *", &rundir.Waiting{Call: "MPI_Recv", Peers: []int{}, AnySource: true}},
		{"MPI_Waitall 1,3,?", &rundir.Waiting{Call: "MPI_Waitall", Peers: []int{1, 3}, Unknown: true}},
		{"MPI_Waitall ", &rundir.Waiting{Call: "MPI_Waitall", Peers: []int{}}},
		{"MPI_Allreduce world", &rundir.Waiting{Call: "MPI_Allreduce", Peers: []int{}, Collective: true, World: true}},
		{"mpi_barrier_ c:1,3", &rundir.Waiting{Call: "mpi_barrier", Peers: []int{1, 3}, Collective: true}},
		{"MPI_Recv x", nil},
		{"garbage", nil},
	} {
		got := parseWaiting(c.in)
		if (got == nil) != (c.want == nil) || got != nil && (got.Call != c.want.Call || !slices.Equal(got.Peers, c.want.Peers) ||
			got.Collective != c.want.Collective || got.World != c.want.World || got.AnySource != c.want.AnySource || got.Unknown != c.want.Unknown) {
			t.Errorf("parseWaiting(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

// readPeers takes the slots the library wrote whole, and skips one it was
// writing (odd sequence number) and one of a thread in no call.
func TestReadPeers(t *testing.T) {
	b := make([]byte, peersHeader+peersSlots*peersSlotSize)
	slot := func(i int, seq uint32, tid int32, text string) {
		s := b[peersHeader+i*peersSlotSize:]
		binary.LittleEndian.PutUint32(s, seq)
		binary.LittleEndian.PutUint32(s[4:], uint32(tid))
		copy(s[8:], text)
	}
	slot(0, 4, 100, "MPI_Recv 2")
	slot(1, 5, 101, "MPI_Send 3")
	slot(2, 2, 102, "")
	slot(3, 8, 103, "MPI_Barrier world")
	p := filepath.Join(t.TempDir(), "peers")
	os.WriteFile(p, b, 0o600)
	got, err := readPeers(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[100] == nil || !slices.Equal(got[100].Peers, []int{2}) || got[103] == nil || !got[103].World {
		t.Errorf("readPeers: %v", got)
	}
}

// The library builds with the mpicc in PATH, once, into a private cache
// directory, with its hash beside it: ranks that start together build it
// once (one waits for the other) and a later call finds it.
func TestPeersLibrary(t *testing.T) {
	testenv.Tool(t, "mpicc", "the peers library is built with it")
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	type result struct {
		so, note string
		err      error
	}
	results := make(chan result, 4)
	for range 4 {
		go func() {
			so, note, err := peersLibrary(t.TempDir())
			results <- result{so, note, err}
		}()
	}
	var so string
	for range 4 {
		r := <-results
		if r.err != nil || r.note != "" || so != "" && r.so != so {
			t.Fatalf("%s, %q, %v; want one library, %s", r.so, r.note, r.err, so)
		}
		so = r.so
	}
	dir := filepath.Join(cache, "difftrace")
	if filepath.Dir(so) != dir {
		t.Errorf("built at %s, not in %s", so, dir)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("%s: %v; want mode 0700", dir, err)
	}
	if st, err := os.Stat(so); err != nil || st.Size() == 0 || st.Mode().Perm()&0o022 != 0 {
		t.Fatalf("%s: %v", so, err)
	}
	if err := checkPeers(so); err != nil {
		t.Errorf("the hash recorded beside it: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*build*")); len(left) > 0 {
		t.Errorf("build directories left: %v", left)
	}
	again, _, err := peersLibrary(t.TempDir())
	if err != nil || again != so {
		t.Errorf("second call: %s, %v; want %s", again, err, so)
	}
	env, _, err := peersEnv([]string{"A=1", "LD_PRELOAD=/x.so"}, t.TempDir(), so)
	if err != nil || !slices.Contains(env, "LD_PRELOAD="+so+":/x.so") || slices.Contains(env, "LD_PRELOAD=/x.so") {
		t.Errorf("peersEnv: %v, %v", env, err)
	}

	// Without a cache directory (HOME unset, as in a batch job), it is
	// built for the capture in its work directory, and nowhere else.
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	work := t.TempDir()
	so, note, err := peersLibrary(work)
	if err != nil || note != "" || !strings.HasPrefix(so, work+"/") {
		t.Errorf("with no cache directory: %s, %q, %v; want it in %s", so, note, err, work)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("written to TMPDIR: %v", ents)
	}
}

// plantedSrc is a library another user might plant: loaded, its
// constructor creates the file MARKER.
const plantedSrc = `
#include <stdio.h>
__attribute__((constructor)) static void planted(void) { FILE *f = fopen(MARKER, "w"); if (f) fclose(f); }
`

// No library planted in the cache, or found there in any doubt, is ever
// preloaded: one of another user's, or that others may write, or that does
// not match its recorded hash, is built afresh over; a cache directory of
// another user's, or that others may write, or a lock file planted as a
// link, is left alone with a note and the library built for the capture;
// planted links are not written through.
func TestPeersLibraryNotPlanted(t *testing.T) {
	testenv.Tools(t, "the peers library is built with it", "mpicc", "gcc")
	// A library of our own, to stand for the MPI program (peersEnv checks
	// it links the same MPI).
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	prog, _, err := peersLibrary(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cc, _ := exec.LookPath("mpicc")
	st, _ := os.Stat(cc)
	name := peersName(cc, st)
	marker := filepath.Join(t.TempDir(), "planted-code-ran")
	planted := compileC(t, t.TempDir(), "planted.so", plantedSrc, "-shared", "-fPIC", `-DMARKER="`+marker+`"`)
	lib, err := os.ReadFile(planted)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(lib)
	plantedSum := []byte(hex.EncodeToString(sum[:]) + "\n")
	root := os.Getuid() == 0

	for _, c := range []struct {
		name      string
		needsRoot bool
		// plant fills dir, difftrace's cache directory, made 0700.
		plant func(t *testing.T, dir, so string)
		// note is what the note says, if the cache is not used.
		note string
	}{
		{"a library of another user's", true, func(t *testing.T, dir, so string) {
			os.WriteFile(so, lib, 0o755)
			os.WriteFile(so+".sha256", plantedSum, 0o644)
			os.Chown(so, 65534, 65534)
			os.Chown(so+".sha256", 65534, 65534)
		}, ""},
		{"a library others may write", false, func(t *testing.T, dir, so string) {
			os.WriteFile(so, lib, 0o755)
			os.Chmod(so, 0o777)
			os.WriteFile(so+".sha256", plantedSum, 0o600)
		}, ""},
		{"a library that does not match its hash", false, func(t *testing.T, dir, so string) {
			os.WriteFile(so, lib, 0o700)
			os.WriteFile(so+".sha256", []byte("0123\n"), 0o600)
		}, ""},
		{"a library with no hash", false, func(t *testing.T, dir, so string) {
			os.WriteFile(so, lib, 0o700)
		}, ""},
		{"a cache directory of another user's", true, func(t *testing.T, dir, so string) {
			os.WriteFile(so, lib, 0o755)
			os.WriteFile(so+".sha256", plantedSum, 0o644)
			for _, p := range []string{dir, so, so + ".sha256"} {
				os.Chown(p, 65534, 65534)
			}
			os.Chmod(dir, 0o755)
		}, "belongs to uid 65534, not to this user (uid 0): remove it, or set XDG_CACHE_HOME"},
		{"a cache directory others may write", false, func(t *testing.T, dir, so string) {
			os.WriteFile(so, lib, 0o755)
			os.WriteFile(so+".sha256", plantedSum, 0o644)
			os.Chmod(dir, 0o777|os.ModeSticky)
		}, "may be written by other users (mode 1777)"},
		{"links for the library, its hash, its lock and the source", false, func(t *testing.T, dir, so string) {
			os.Symlink(planted, so)
			elsewhere := t.TempDir()
			os.WriteFile(filepath.Join(elsewhere, "sum"), plantedSum, 0o600)
			os.Symlink(filepath.Join(elsewhere, "sum"), so+".sha256")
			os.Symlink(filepath.Join(elsewhere, "created"), so+".lock")
			os.WriteFile(filepath.Join(elsewhere, "secret"), []byte("secret"), 0o600)
			os.Symlink(filepath.Join(elsewhere, "secret"), filepath.Join(dir, "peers.c"))
			t.Cleanup(func() {
				if _, err := os.Lstat(filepath.Join(elsewhere, "created")); err == nil {
					t.Errorf("the lock's link was followed: its target was created")
				}
				if b, _ := os.ReadFile(filepath.Join(elsewhere, "secret")); string(b) != "secret" {
					t.Errorf("the source's link was followed: its target now holds %.20q", b)
				}
			})
		}, "is a symbolic link: remove it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.needsRoot && !root {
				t.Skip("SKIPPING: planting files of another user needs root")
			}
			cache := t.TempDir()
			t.Setenv("XDG_CACHE_HOME", cache)
			dir := filepath.Join(cache, "difftrace")
			os.Mkdir(dir, 0o700)
			so := filepath.Join(dir, name)
			c.plant(t, dir, so)
			before, _ := os.ReadFile(so)

			work := t.TempDir()
			env, note, err := peersEnv(os.Environ(), work, prog)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("true")
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("running with the library preloaded: %v\n%s", err, out)
			}
			if _, err := os.Stat(marker); err == nil {
				os.Remove(marker)
				t.Fatalf("the planted library was loaded (LD_PRELOAD %s)", env[len(env)-2])
			}
			var got string
			for _, kv := range env {
				if v, ok := strings.CutPrefix(kv, "LD_PRELOAD="); ok {
					got = v
				}
			}
			if c.note == "" {
				if note != "" || got != so || checkPeers(so) != nil {
					t.Errorf("preloads %s (%q); want %s rebuilt", got, note, so)
				}
				return
			}
			if !strings.Contains(note, c.note) || !strings.Contains(note, dir) || !strings.HasPrefix(got, work+"/") {
				t.Errorf("preloads %s, note %q; want a library built in %s, and a note saying %q", got, note, work, c.note)
			}
			if after, _ := os.ReadFile(so); !bytes.Equal(after, before) {
				t.Errorf("the refused cache was changed")
			}
		})
	}
}

// removeShmem removes the buffers of the recording's sessions, and those of
// its threads made since it started; another session's, and a buffer of a
// thread id the recording shares with an older, dead session, stay.
func TestRemoveShmem(t *testing.T) {
	root, meta := t.TempDir(), t.TempDir()
	old := shmemRoot
	shmemRoot = root
	defer func() { shmemRoot = old }()
	start := time.Now()
	touch := func(name string, at time.Time) {
		p := filepath.Join(root, name)
		os.WriteFile(p, []byte("x"), 0o600)
		os.Chtimes(p, at, at)
	}
	os.WriteFile(filepath.Join(meta, "sid-0123abcd.map"), nil, 0o600)
	touch("uftrace-0123abcd-100-000", start)                 // this session
	touch("uftrace-0123abcd-101-001", start)                 // this session, another thread
	touch("uftrace-feedface-102-000", start)                 // a thread of this run whose session is unknown
	touch("uftrace-deadbeef-102-000", start.Add(-time.Hour)) // an old session's thread with that id
	touch("uftrace-cafef00d-555-000", start)                 // another recording's
	removeShmem(sessionsIn(meta), []int{100, 102}, start)
	left, _ := filepath.Glob(filepath.Join(root, "*"))
	var names []string
	for _, l := range left {
		names = append(names, filepath.Base(l))
	}
	if want := []string{"uftrace-cafef00d-555-000", "uftrace-deadbeef-102-000"}; !slices.Equal(names, want) {
		t.Errorf("left %v, want %v", names, want)
	}
}

// The wrapper goes only into a program of its MPI library: Open MPI's C
// and Fortran programs (the latter may link only the Fortran bindings),
// not MPICH's.
func TestMPIMismatch(t *testing.T) {
	ompi := []string{"libmpi.so.40", "libc.so.6"}
	for _, c := range []struct {
		prog []string
		ok   bool
	}{
		{[]string{"libmpi.so.40", "libstdc++.so.6"}, true},
		{[]string{"libmpi_usempi_ignore_tkr.so.40", "libmpi_mpifh.so.40", "libgfortran.so.5"}, true},
		{[]string{"libmpi.so.12"}, false},
		{[]string{"libmpifort.so.12", "libmpi.so.12"}, false},
	} {
		if err := mpiMismatch(c.prog, ompi); (err == nil) != c.ok {
			t.Errorf("program linking %v: %v, want ok %v", c.prog, err, c.ok)
		}
	}
	if err := mpiMismatch([]string{"libmpi.so.12"}, []string{"libc.so.6"}); err != nil {
		t.Errorf("a wrapper that names no MPI library refuses: %v", err)
	}
}

func TestMPILibrary(t *testing.T) {
	if l, ok := mpiLibrary([]string{"libmpi_mpifh.so.40", "libmpi.so.40", "libc.so.6"}); !ok || l != "libmpi.so.40" {
		t.Errorf("Open MPI Fortran program: %q %v", l, ok)
	}
	if l, ok := mpiLibrary([]string{"libmpi.so.12", "libc.so.6"}); !ok || l != "libmpi.so.12" {
		t.Errorf("MPICH program: %q %v", l, ok)
	}
	if _, ok := mpiLibrary([]string{"libc.so.6"}); ok {
		t.Errorf("a program without MPI has an MPI library")
	}
}

func TestSOVersion(t *testing.T) {
	for name, want := range map[string]string{"libmpi.so.40": "40", "libmpi_mpifh.so.40.30.1": "40", "libmpifort.so.12": "12", "libmpi.so": ""} {
		if got := soVersion(name); got != want {
			t.Errorf("soVersion(%q) = %q, want %q", name, got, want)
		}
	}
}
