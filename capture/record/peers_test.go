package record

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/internal/testenv"
)

func TestParseWaiting(t *testing.T) {
	for _, c := range []struct {
		in   string
		want *decode.Waiting
	}{
		{"MPI_Recv 3", &decode.Waiting{Call: "MPI_Recv", Peers: []int{3}}},
		{"MPI_Recv *", &decode.Waiting{Call: "MPI_Recv", Peers: []int{}, AnySource: true}},
		{"MPI_Waitall 1,3,?", &decode.Waiting{Call: "MPI_Waitall", Peers: []int{1, 3}, Unknown: true}},
		{"MPI_Waitall ", &decode.Waiting{Call: "MPI_Waitall", Peers: []int{}}},
		{"MPI_Allreduce world", &decode.Waiting{Call: "MPI_Allreduce", Peers: []int{}, Collective: true, World: true}},
		{"mpi_barrier_ c:1,3", &decode.Waiting{Call: "mpi_barrier", Peers: []int{1, 3}, Collective: true}},
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

// The library builds with the mpicc in PATH, once: a second call finds it.
func TestPeersLibrary(t *testing.T) {
	testenv.Tool(t, "mpicc", "the peers library is built with it")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	so, err := peersLibrary()
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(so)
	if err != nil || st.Size() == 0 {
		t.Fatalf("%s: %v", so, err)
	}
	again, err := peersLibrary()
	if err != nil || again != so {
		t.Errorf("second call: %s, %v; want %s", again, err, so)
	}
	env, err := peersEnv([]string{"A=1", "LD_PRELOAD=/x.so"}, t.TempDir(), so)
	if err != nil || !slices.Contains(env, "LD_PRELOAD="+so+":/x.so") || slices.Contains(env, "LD_PRELOAD=/x.so") {
		t.Errorf("peersEnv: %v, %v", env, err)
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
