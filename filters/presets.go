package filters

import (
	"path"
	"regexp"
	"strings"
	"sync"
)

// A preset is one named keep-rule of seeds/002 Table 3.1. Its pattern is
// matched against a function's base name (see baseName), so MPI_Send,
// MPI_Send@plt (a PLT stub as Pin names it) and MPI_Send@@VERS (a versioned
// symbol) all count as MPI_Send.
type preset struct {
	name string
	doc  string
	re   *regexp.Regexp
	// image, if set, also keeps every function of an image it matches,
	// except those re2 matches: a library's static helpers carry no
	// telling prefix, but their image does.
	image *regexp.Regexp
	but   *regexp.Regexp
}

// keep reports whether the preset keeps base (a base name) in image.
func (p *preset) keep(image, base string) bool {
	if p.re.MatchString(base) {
		return true
	}
	return p.image != nil && image != "" && p.image.MatchString(path.Base(image)) && !p.but.MatchString(base)
}

// mpiAPI matches the MPI interface itself (the mpi preset).
const mpiAPI = `(?i)^p?mpix?_`

// mpiImage matches the file names of MPI libraries and their plugins:
// Open MPI's libmpi*, libopen-pal, libopen-rte, libmca_*, mca_*.so, PMIx;
// MPICH's libmpich*, libmpl, libpmi.
const mpiImage = `^(?:libmpi|libmpich|libmpl|libopen-pal|libopen-rte|libpmix|libpmi2?|libmca_|mca_)[^/]*\.so`

// mpiNames returns a pattern for the named MPI functions in every spelling
// an MPI library exports: the C binding and its profiling twin (MPI_Send,
// PMPI_Send), extensions (MPIX_), the Fortran bindings in upper and lower
// case with their suffixes (MPI_SEND, mpi_send_, mpi_send__, MPI_Send_f,
// MPI_Send_f08, mpi_send_f08_) and the MPI-4 large-count variant (MPI_Send_c).
func mpiNames(names string) string {
	return `(?i)^p?mpix?_(?:` + names + `)(?:_f08_?|_f|_c|__|_)?$`
}

// presets lists the keep-rules in the order they are documented and listed
// in errors. They are compiled when first needed, not when the program
// starts: every capture process starts difftrace, and most never filter.
var presets = sync.OnceValue(func() []preset {
	mpiAPI, mpiImage := regexp.MustCompile(mpiAPI), regexp.MustCompile(mpiImage)
	return []preset{
		{name: "all", doc: "every function", re: regexp.MustCompile(``)},
		{name: "mpi", doc: "MPI calls (MPI_*, PMPI_*, MPIX_*, Fortran mpi_*)", re: mpiAPI},
		{name: "mpi.col", doc: "MPI collectives (MPI_Barrier, MPI_Bcast, MPI_Allreduce, …, and their nonblocking forms)", re: regexp.MustCompile(mpiNames(
			`i?(?:barrier|bcast|gatherv?|scatterv?|allgatherv?|alltoall[vw]?|reduce|allreduce|reduce_scatter(?:_block)?|scan|exscan)(?:_init)?` +
				`|i?neighbor_(?:allgatherv?|alltoall[vw]?)(?:_init)?`))},
		{name: "mpi.sr", doc: "MPI point-to-point: MPI_Send, MPI_Isend, MPI_Recv, MPI_Irecv, MPI_Wait and kin", re: regexp.MustCompile(mpiNames(
			`i?[bsr]?send|[bsr]?send_init|i?m?recv|recv_init|sendrecv(?:_replace)?|i?m?probe` +
				`|wait(?:all|any|some)?|test(?:all|any|some)?|start(?:all)?`))},
		{name: "mpi.int", doc: "MPI library internals (Open MPI ompi_/opal_/orte_/mca_/pmix_, MPICH MPIR_/MPID_/MPII_/MPL_, PMI, ROMIO, and any non-API function of an MPI library image)",
			re: regexp.MustCompile(
				`(?i)^(?:ompi|opal|orte|orted|mca|pmix|nbc|mpir|mpid|mpidi|mpidu|mpidig|mpii|mpiu|mpic|mpl|mpio|adio|adioi|pmi|pmi2|hyd|hydu)_`),
			image: mpiImage, but: mpiAPI},
		{name: "omp", doc: "OpenMP runtime calls (GOMP_*, omp_*, __kmpc_*, kmp_*)", re: regexp.MustCompile(`^(?:GOMP_|omp_|__kmpc_|kmp_)`)},
		{name: "omp.crit", doc: "OpenMP critical sections (GOMP_critical_start/end, GOMP_critical_name_start/end, __kmpc_critical, __kmpc_end_critical)", re: regexp.MustCompile(
			`^(?:GOMP_critical_(?:name_)?(?:start|end)|__kmpc_(?:end_)?critical(?:_with_hint)?)$`)},
		{name: "omp.mutex", doc: "locks: omp_set_lock, omp_unset_lock, … (and nest locks), pthread_mutex_*, pthread_spin_*", re: regexp.MustCompile(
			`^(?:omp_(?:init|destroy|set|unset|test)_(?:nest_)?lock(?:_with_hint)?_?` +
				`|__kmpc_(?:init|destroy|set|unset|test)_(?:nest_)?lock(?:_with_hint)?` +
				`|_*pthread_mutex_\w+|_*pthread_spin_(?:lock|unlock|trylock|init|destroy)` +
				`|mtx_(?:lock|unlock|trylock|timedlock|init|destroy))$`)},
		{name: "mem", doc: "memory: memcpy, memmove, memset, memcmp, malloc, calloc, realloc, free, mmap, new/delete, …", re: regexp.MustCompile(
			`^_*(?:libc_|int_)?(?:malloc|calloc|realloc|reallocarray|free|cfree|valloc|pvalloc|memalign|aligned_alloc|posix_memalign|malloc_\w+)$` +
				`|^_*w?(?:mem(?:cpy|move|set|cmp|chr|rchr|ccpy|pcpy|mem)|rawmemchr|bcopy|bzero|explicit_bzero|bcmp)(?:_\w+)?$` +
				`|^_*(?:mmap|mmap64|munmap|mremap|brk|sbrk|mprotect|madvise|mlock|munlock)$` +
				`|^_Z(?:nw|na|dl|da)|^operator (?:new|delete)` +
				`|^(?:omp|GOMP)_(?:aligned_)?(?:alloc|calloc|realloc|free)$` +
				`|(?i:^p?mpi_(?:alloc|free)_mem(?:_f08_?|_f|__|_)?$)`)},
		{name: "net", doc: "network: sockets, name lookup, TCP/UDP, InfiniBand verbs, libfabric, UCX, PSM", re: regexp.MustCompile(
			`^_*(?:socket|socketpair|connect|accept4?|bind|listen|shutdown|send|sendto|sendmsg|sendmmsg|recv|recvfrom|recvmsg|recvmmsg` +
				`|getsockopt|setsockopt|getsockname|getpeername|getaddrinfo|freeaddrinfo|gai_strerror|getnameinfo` +
				`|gethostbyname2?(?:_r)?|gethostbyaddr(?:_r)?|gethostname|inet_\w+|hton[ls]|ntoh[ls]|if_\w+)$` +
				`|(?i:tcp|udp|sock|network)|^(?:ibv|rdma|fi|ucp|uct|psm2?)_`)},
		{name: "poll", doc: "polling and yielding: poll, select, epoll_*, sched_*, *yield*, sleeps, progress engines", re: regexp.MustCompile(
			`^_*(?:ppoll|p?select|pselect6|epoll_\w+|sched_\w+|sleep|usleep|nanosleep|clock_nanosleep)$` +
				`|(?i:poll|yield|(?:^|_)progress(?:_|$))`)},
		{name: "str", doc: "strings: strlen, strcpy, strcmp, strdup, strto*, sprintf, wcs*, …", re: regexp.MustCompile(
			`^_*(?:str(?:len|nlen|cpy|ncpy|lcpy|cat|ncat|lcat|cmp|ncmp|casecmp|ncasecmp|coll|xfrm|chr|chrnul|rchr|str|casestr|spn|cspn|pbrk` +
				`|tok|sep|dup|ndup|dupa|ndupa|error|signal|to[a-z]+)|stpn?cpy|wcs[a-z]+|v?sn?printf|v?asprintf|v?sscanf)(?:_\w+)?$`)},
	}
})

// Modifiers change what every filter drops rather than adding calls.
const (
	modPLT     = "plt" // drop PLT stubs
	modReturns = "ret" // keep the returns of kept calls
	custPrefix = "cust="
)

// pltStub matches the names tools give to PLT stubs: Pin's "foo@plt" and the
// ".plt", ".plt.got", ".plt.sec" section routines of ParLOT traces.
var pltStub = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`@plt$|^\.plt(?:\.\w+)?$`) })

// IsPLTStub reports whether a function name is a PLT stub.
func IsPLTStub(fn string) bool { return pltStub().MatchString(fn) }

// baseName is the name presets match: a symbol version or "@plt" suffix is
// cut ("omp_set_lock@@OMP_3.0", "MPI_Send@plt"), as is a compiler clone
// suffix ("memcpy.part.0") or a demangled signature ("operator new(unsigned
// long)"). A name that starts with "." (".plt") is kept as it is.
func baseName(fn string) string {
	if i := strings.IndexAny(fn, "@.("); i > 0 {
		// "operator new(…)": cut at the parenthesis, not at a dot inside it.
		return fn[:i]
	}
	return fn
}

// presetNames returns the valid terms of a spec, for errors and help.
func presetNames() []string {
	names := make([]string, 0, len(presets())+3)
	for _, p := range presets() {
		names = append(names, p.name)
	}
	return append(names, modPLT, modReturns, custPrefix+"REGEXP")
}

func lookupPreset(name string) (*preset, bool) {
	ps := presets()
	for i := range ps {
		if ps[i].name == name {
			return &ps[i], true
		}
	}
	return nil, false
}
