package filters

import (
	"debug/elf"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/internal/testenv"
	"github.com/difftrace/difftrace/trace"
)

// Names as real traces carry them. uftrace records library calls at the PLT
// under their plain names (seen with uftrace 0.13 on an OpenMP program and
// on examples/oddeven under mpirun: GOMP_parallel, main._omp_fn.0,
// GOMP_critical_start, omp_get_thread_num, malloc, memset, free, printf,
// MPI_Init … MPI_Finalize). Pin names PLT stubs "foo@plt", or ".plt",
// ".plt.got", ".plt.sec" when the section has no symbols; with all images
// it sees glibc's IFUNC variants and the MPI library's internals. MPICH
// names are from its source tree.
func TestPresetsOnRealNames(t *testing.T) {
	cases := []struct {
		spec    string
		yes, no []string
	}{
		{"mpi",
			[]string{"MPI_Init", "MPI_Comm_rank", "MPI_Send", "MPI_Send@plt", "PMPI_Send", "MPIX_Query_cuda_support",
				"MPI_SEND", "mpi_send_", "mpi_send", "mpi_send__", "MPI_Send_f08", "mpi_send_f08_", "pmpi_barrier_f08_"},
			[]string{"main", "oddEvenSort", "findPtr", "ompi_mpi_init", "MPIR_Barrier_impl", "MPID_Send", "MPIDI_CH3_iStartMsg",
				"GOMP_parallel", ".plt", "mpirun_main"}},
		{"mpi.col",
			[]string{"MPI_Barrier", "MPI_Bcast", "MPI_Allreduce", "MPI_Reduce", "MPI_Reduce_scatter_block", "MPI_Iallreduce",
				"MPI_Ibarrier", "MPI_Alltoallw", "MPI_Gatherv", "MPI_Exscan", "MPI_Neighbor_alltoallv", "MPI_Ineighbor_allgather",
				"PMPI_Allreduce", "MPI_ALLREDUCE", "mpi_allreduce_", "mpi_allreduce", "mpi_barrier_f08_", "MPIX_Barrier_init", "MPI_Bcast@plt"},
			[]string{"MPI_Send", "MPI_Reduce_local", "MPI_Comm_split", "MPI_Init", "ompi_coll_base_allreduce_intra_ring",
				"MPIR_Allreduce_intra_auto", "MPI_Scan_me"}},
		{"mpi.sr",
			[]string{"MPI_Send", "MPI_Isend", "MPI_Recv", "MPI_Irecv", "MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome",
				"MPI_Test", "MPI_Testall", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Issend", "MPI_Sendrecv",
				"MPI_Sendrecv_replace", "MPI_Probe", "MPI_Iprobe", "MPI_Mrecv", "MPI_Send_init", "MPI_Recv_init",
				"MPI_Start", "MPI_Startall", "MPI_Send@plt", "PMPI_Recv", "MPI_SEND", "mpi_recv_", "mpi_recv", "mpi_isend_f08_", "MPI_Send_c"},
			[]string{"MPI_Barrier", "MPI_Test_cancelled", "MPI_Comm_rank", "MPI_Sendx", "MPID_Send", "MPIC_Send",
				"mca_pml_ob1_send", "send", "recv"}},
		{"mpi.int",
			[]string{"ompi_mpi_init", "ompi_coll_base_allreduce_intra_ring", "opal_progress", "opal_free_list_grow_st",
				"orte_init", "orted_main", "mca_pml_ob1_send", "mca_btl_vader_component_progress", "pmix_server_init",
				"PMIx_Init", "PMIX_Init", "OMPI_CR_Init", "NBC_Progress", "MPIR_Barrier_impl", "MPIR_Allreduce_intra_auto",
				"MPID_Send", "MPIDI_CH3_iStartMsg", "MPIDU_Sched_start", "MPII_Comm_init", "MPIU_Malloc", "MPIC_Send",
				"MPL_malloc", "PMI_Init", "PMI2_Init", "ADIOI_Open", "MPIO_File_resolve"},
			[]string{"MPI_Send", "PMPI_Send", "MPIX_Query_cuda_support", "main", "GOMP_parallel", "malloc"}},
		{"omp",
			[]string{"GOMP_parallel", "GOMP_barrier", "GOMP_critical_start", "omp_get_thread_num", "omp_get_thread_num_",
				"omp_set_lock@@OMP_3.0", "__kmpc_fork_call", "__kmpc_barrier", "kmp_set_stacksize"},
			[]string{"main._omp_fn.0", "ompi_mpi_init", "MPI_Init", "gomp_team_start", "main", "pthread_create"}},
		{"omp.crit",
			[]string{"GOMP_critical_start", "GOMP_critical_end", "GOMP_critical_name_start", "GOMP_critical_name_end",
				"GOMP_critical_start@plt", "__kmpc_critical", "__kmpc_end_critical", "__kmpc_critical_with_hint"},
			[]string{"GOMP_atomic_start", "GOMP_parallel", "omp_set_lock", "CPU_critical", "GOMP_critical_startx"}},
		{"omp.mutex",
			[]string{"omp_set_lock", "omp_unset_lock", "omp_test_lock", "omp_init_lock", "omp_destroy_lock",
				"omp_set_nest_lock", "omp_unset_nest_lock", "omp_set_lock_", "omp_init_lock_with_hint", "omp_set_lock@OMP_1.0",
				"__kmpc_set_lock", "pthread_mutex_lock", "pthread_mutex_unlock", "pthread_mutex_trylock", "__pthread_mutex_lock",
				"pthread_spin_lock", "mtx_lock"},
			[]string{"GOMP_critical_start", "omp_get_thread_num", "pthread_cond_wait", "pthread_create", "my_lock"}},
		{"mem",
			[]string{"memcpy", "memmove", "memset", "memcmp", "memchr", "malloc", "calloc", "realloc", "free", "posix_memalign",
				"aligned_alloc", "memcpy@plt", "__memcpy_avx_unaligned_erms", "__memset_chk", "__libc_malloc", "_int_free",
				"mmap", "munmap", "_Znwm", "_ZdlPv", "operator new", "operator delete[](void*)", "MPI_Alloc_mem", "omp_alloc"},
			[]string{"MPI_Send", "strlen", "printf", "freeze", "main", "MPI_Comm_free", "MPI_Type_free", "opal_free_list_grow_st"}},
		{"net",
			[]string{"socket", "connect", "accept", "send", "recv", "sendmsg", "getaddrinfo", "inet_ntop", "htonl",
				"mca_btl_tcp_component_init", "mca_oob_tcp_send", "opal_socket_errno", "ibv_post_send", "fi_getinfo",
				"ucp_tag_send_nb", "uct_iface_progress", "psm2_mq_isend"},
			[]string{"MPI_Send", "mpi_send_", "main", "memcpy", "finish", "ucs_malloc"}},
		{"poll",
			[]string{"poll", "ppoll", "select", "epoll_wait", "sched_yield", "pthread_yield", "nanosleep", "usleep",
				"opal_progress", "MPID_Progress_wait", "ucp_worker_progress", "mca_btl_vader_poll_handle_frag"},
			[]string{"MPI_Send", "main", "progressive_merge", "memcpy"}},
		{"str",
			[]string{"strlen", "strcpy", "strncpy", "strcmp", "strncmp", "strcat", "strchr", "strstr", "strdup", "strtok_r",
				"strtol", "strtod", "stpcpy", "sprintf", "snprintf", "vsnprintf", "__strlen_avx2", "__strcpy_chk", "wcslen", "strlen@plt"},
			[]string{"memcpy", "printf", "structure_init", "stream_triad", "MPI_Send", "strength"}},
	}
	for _, tc := range cases {
		keeps(t, tc.spec, tc.yes, tc.no)
	}

	// mpi.int also knows MPI libraries by their image.
	f := MustParse("mpi.int")
	for _, tc := range []struct {
		image, fn string
		want      bool
	}{
		{"/usr/lib/x86_64-linux-gnu/libopen-pal.so.40", "event_base_loop", true},
		{"/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_pml_ob1.so", "append_frag_to_list", true},
		{"/usr/lib/x86_64-linux-gnu/libmpi.so.40", "MPI_Send", false},
		{"/usr/lib/x86_64-linux-gnu/libmpi.so.40", "PMPI_Send", false},
		{"/opt/mpich/lib/libmpich.so.12", "MPIR_Err_return_comm", true},
		{"/opt/mpich/lib/libmpich.so.12", "internal_Send", true},
		{"/home/user/oddeven/oddeven", "findPtr", false},
		{"/home/user/oddeven/oddeven", "ompi_helper_in_app", true},
		{"/usr/lib/x86_64-linux-gnu/libc.so.6", "memcpy", false},
		{"/home/user/libmpiwrap/app", "main", false},
	} {
		if got := f.KeepName(trace.Name{Image: tc.image, Func: tc.fn}); got != tc.want {
			t.Errorf("mpi.int keeps %s in %s: %v, want %v", tc.fn, tc.image, got, tc.want)
		}
	}
}

// TestPresetsOnLibraries checks the presets against every function the
// system's Open MPI and libgomp export.
func TestPresetsOnLibraries(t *testing.T) {
	mpi := dynamicFuncs(t, "libmpi.so.40")
	gomp := dynamicFuncs(t, "libgomp.so.1")
	if len(mpi) < 500 || len(gomp) < 100 {
		t.Fatalf("suspiciously few functions: libmpi %d, libgomp %d", len(mpi), len(gomp))
	}

	// Every exported function of libmpi is either API or internal, never both.
	fMPI, fInt := MustParse("mpi"), MustParse("mpi.int")
	for _, n := range mpi {
		api := strings.HasPrefix(n, "MPI_") || strings.HasPrefix(n, "PMPI_") || strings.HasPrefix(n, "MPIX_") || strings.HasPrefix(n, "PMPIX_")
		internal := hasAnyPrefix(n, "ompi_", "opal_", "orte_", "mca_", "OMPI_", "pmix_", "PMIx_")
		if api && (!fMPI.Keep(n) || fInt.Keep(n)) {
			t.Errorf("%s: API function: mpi keeps %v, mpi.int keeps %v", n, fMPI.Keep(n), fInt.Keep(n))
		}
		if internal && (fMPI.Keep(n) || !fInt.Keep(n)) {
			t.Errorf("%s: internal function: mpi keeps %v, mpi.int keeps %v", n, fMPI.Keep(n), fInt.Keep(n))
		}
	}

	// Seen in its image, every non-API function of libmpi is internal.
	img := libPath(t, "libmpi.so.40")
	for _, n := range mpi {
		api := fMPI.Keep(n)
		if got := fInt.KeepName(trace.Name{Image: img, Func: n}); got == api {
			t.Errorf("%s in %s: mpi keeps %v, mpi.int keeps %v", n, img, api, got)
		}
	}

	// The collectives and the point-to-point calls, exactly.
	col := []string{"Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather", "Allgatherv",
		"Alltoall", "Alltoallv", "Alltoallw", "Reduce", "Allreduce", "Reduce_scatter", "Reduce_scatter_block",
		"Scan", "Exscan", "Neighbor_allgather", "Neighbor_allgatherv", "Neighbor_alltoall", "Neighbor_alltoallv",
		"Neighbor_alltoallw"}
	sr := []string{"Send", "Bsend", "Ssend", "Rsend", "Isend", "Ibsend", "Issend", "Irsend", "Send_init",
		"Bsend_init", "Ssend_init", "Rsend_init", "Recv", "Irecv", "Recv_init", "Mrecv", "Imrecv", "Sendrecv",
		"Sendrecv_replace", "Probe", "Iprobe", "Mprobe", "Improbe", "Wait", "Waitall", "Waitany", "Waitsome",
		"Test", "Testall", "Testany", "Testsome", "Start", "Startall"}
	var wantCol, wantSR []string
	for _, c := range col {
		wantCol = append(wantCol, "MPI_"+c, "MPI_I"+strings.ToLower(c[:1])+c[1:])
	}
	for _, s := range sr {
		wantSR = append(wantSR, "MPI_"+s)
	}
	onlyMPI := func(n string) bool { return strings.HasPrefix(n, "MPI_") }
	sameSet(t, "mpi.col", keptOf(MustParse("mpi.col"), mpi, onlyMPI), wantCol)
	sameSet(t, "mpi.sr", keptOf(MustParse("mpi.sr"), mpi, onlyMPI), wantSR)

	// libgomp: every GOMP_ and omp_ function is OpenMP; the critical and
	// lock presets pick exactly their functions.
	fOMP := MustParse("omp")
	for _, n := range gomp {
		if (strings.HasPrefix(n, "GOMP_") || strings.HasPrefix(n, "omp_")) != fOMP.Keep(n) {
			t.Errorf("%s: omp keeps %v", n, fOMP.Keep(n))
		}
	}
	all := func(string) bool { return true }
	sameSet(t, "omp.crit", keptOf(MustParse("omp.crit"), gomp, all),
		[]string{"GOMP_critical_start", "GOMP_critical_end", "GOMP_critical_name_start", "GOMP_critical_name_end"})
	var locks []string
	for _, n := range gomp {
		if strings.HasPrefix(n, "omp_") && strings.Contains(n, "_lock") && !strings.Contains(n, "@") {
			locks = append(locks, n)
		}
	}
	if len(locks) < 20 {
		t.Errorf("libgomp exports %d omp_*lock functions, want ≥ 20: %v", len(locks), locks)
	}
	sameSet(t, "omp.mutex", keptOf(MustParse("omp.mutex"), gomp, all), locks)

	// The two libraries share nothing under the MPI and OpenMP presets.
	for _, spec := range []string{"mpi", "mpi.col", "mpi.sr", "mpi.int"} {
		if k := keptOf(MustParse(spec), gomp, all); len(k) > 0 {
			t.Errorf("%s keeps libgomp functions %v", spec, k)
		}
	}
	for _, spec := range []string{"omp", "omp.crit", "omp.mutex"} {
		if k := keptOf(MustParse(spec), mpi, all); len(k) > 0 {
			t.Errorf("%s keeps libmpi functions %v", spec, k)
		}
	}
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// keptOf returns the names f keeps among those considered, without their
// symbol versions.
func keptOf(f *Filter, names []string, consider func(string) bool) []string {
	var out []string
	for _, n := range names {
		if consider(n) && f.Keep(n) {
			base, _, _ := strings.Cut(n, "@")
			out = append(out, base)
		}
	}
	return out
}

func sameSet(t *testing.T, what string, got, want []string) {
	t.Helper()
	g, w := slices.Clone(got), slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	g, w = slices.Compact(g), slices.Compact(w)
	for _, n := range w {
		if _, ok := slices.BinarySearch(g, n); !ok {
			t.Errorf("%s drops %s", what, n)
		}
	}
	for _, n := range g {
		if _, ok := slices.BinarySearch(w, n); !ok {
			t.Errorf("%s keeps %s, which it should not", what, n)
		}
	}
}

// libPath finds a system library.
func libPath(t *testing.T, lib string) string {
	t.Helper()
	for _, pat := range []string{"/usr/lib/*/" + lib, "/usr/lib64/" + lib, "/usr/lib/" + lib} {
		if m, _ := filepath.Glob(pat); len(m) > 0 {
			return m[0]
		}
	}
	if testenv.InCI() {
		t.Fatalf("%s not found: CI must install it (libopenmpi-dev, gcc)", lib)
	}
	t.Skipf("SKIPPING: %s not found on this machine; install libopenmpi-dev and gcc to check the presets against it", lib)
	return ""
}

// dynamicFuncs returns the functions a system library exports, each name
// also in its versioned spelling ("omp_set_lock@@OMP_3.0") when it has a
// version, as tools may report either. A missing library fails under CI
// (it installs libopenmpi-dev and gcc) and skips loudly elsewhere.
func dynamicFuncs(t *testing.T, lib string) []string {
	t.Helper()
	path := libPath(t, lib)
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC && elf.ST_TYPE(s.Info) != elf.STT_GNU_IFUNC {
			continue
		}
		if s.Section == elf.SHN_UNDEF {
			continue
		}
		out = append(out, s.Name)
		if s.Version != "" {
			out = append(out, s.Name+"@@"+s.Version)
		}
	}
	return out
}
