/*
 * peers.c: the MPI wrapper library capture preloads into the traced program
 * (see peers.go). For each thread it keeps, in a slot of a file shared with
 * capture, the blocking MPI call the thread is in and the ranks (of
 * MPI_COMM_WORLD) it waits for, so that the stack snapshot of a hung run
 * can say who waits for whom. It records nothing else and changes no call:
 * every wrapper calls the next definition of its function (another MPI
 * tool's, or the MPI library's) with its own arguments.
 *
 * Slot text, written while the call runs and cleared when it returns:
 *   "MPI_Recv 3"            point-to-point: the peers, comma-separated
 *   "MPI_Recv *"            MPI_ANY_SOURCE
 *   "MPI_Waitall 1,3"       the peers of the requests waited for
 *   "MPI_Allreduce world"   a collective on MPI_COMM_WORLD
 *   "MPI_Allreduce c:0,2,4" a collective on another communicator: its members
 * A slot's sequence number is odd while it is being written.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <dlfcn.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* NEXT(MPI_X) is the next definition of MPI_X after this library's: that
 * of another MPI tool preloaded or linked after it, if any, else the MPI
 * library's own (its PMPI_X). Calling it keeps such a tool in the chain. */
#define NEXT(name)                                                                                 \
	({                                                                                         \
		static __typeof__(&P##name) next_;                                                 \
		if (next_ == NULL) {                                                               \
			next_ = (__typeof__(&P##name))dlsym(RTLD_NEXT, #name);                     \
			if (next_ == NULL)                                                         \
				next_ = P##name;                                                   \
		}                                                                                  \
		next_;                                                                             \
	})

#define SLOTS 256
#define SLOT_SIZE 1024
#define HEADER 64
#define REQS 512

struct slot {
	volatile uint32_t seq;
	int32_t tid;
	char text[SLOT_SIZE - 8];
};

static char *area;
static __thread struct slot *mine;
static __thread int no_slot;

struct req {
	MPI_Request r;
	int peer; /* world rank, -1: any source, -2: unknown */
};
static __thread struct req reqs[REQS];
static __thread int nreqs;

static void open_area(void)
{
	const char *path = getenv("DIFFTRACE_PEERS");
	if (path == NULL || *path == 0)
		return;
	int fd = open(path, O_RDWR);
	if (fd < 0)
		return;
	void *p = mmap(NULL, HEADER + SLOTS * SLOT_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p != MAP_FAILED)
		area = p;
}

static struct slot *slot(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	if (mine != NULL || no_slot)
		return mine;
	pthread_once(&once, open_area);
	if (area == NULL) {
		no_slot = 1;
		return NULL;
	}
	uint32_t i = __atomic_fetch_add((uint32_t *)area, 1, __ATOMIC_SEQ_CST);
	if (i >= SLOTS) {
		no_slot = 1;
		return NULL;
	}
	mine = (struct slot *)(area + HEADER + i * SLOT_SIZE);
	mine->tid = (int32_t)syscall(SYS_gettid);
	return mine;
}

/* buf collects a slot's text before it is published. */
struct buf {
	char s[SLOT_SIZE - 8];
	size_t n;
};

static void put(struct buf *b, const char *s)
{
	size_t l = strlen(s);
	if (b->n + l >= sizeof b->s)
		return;
	memcpy(b->s + b->n, s, l);
	b->n += l;
	b->s[b->n] = 0;
}

static void put_int(struct buf *b, int v)
{
	char t[16];
	snprintf(t, sizeof t, "%d", v);
	put(b, t);
}

static void publish(struct buf *b)
{
	struct slot *s = slot();
	if (s == NULL)
		return;
	__atomic_add_fetch(&s->seq, 1, __ATOMIC_SEQ_CST);
	memcpy(s->text, b->s, b->n + 1);
	__atomic_add_fetch(&s->seq, 1, __ATOMIC_SEQ_CST);
}

static void clear(void)
{
	struct slot *s = mine;
	if (s == NULL)
		return;
	__atomic_add_fetch(&s->seq, 1, __ATOMIC_SEQ_CST);
	s->text[0] = 0;
	__atomic_add_fetch(&s->seq, 1, __ATOMIC_SEQ_CST);
}

/* The ranks in MPI_COMM_WORLD of a few communicators' members, so that
 * a point-to-point call on another communicator costs no group
 * translation. MPI_Comm_free drops a communicator's entry. */
#define COMMS 4
static __thread struct {
	MPI_Comm comm;
	int n;
	int *world;
} comms[COMMS];
static __thread int next_comm;

static int *members(MPI_Comm comm, int *n)
{
	for (int i = 0; i < COMMS; i++)
		if (comms[i].world != NULL && comms[i].comm == comm) {
			*n = comms[i].n;
			return comms[i].world;
		}
	MPI_Group g, w;
	int size = 0;
	if (PMPI_Comm_group(comm, &g) != MPI_SUCCESS)
		return NULL;
	int *out = NULL;
	if (PMPI_Group_size(g, &size) == MPI_SUCCESS && size > 0 &&
	    PMPI_Comm_group(MPI_COMM_WORLD, &w) == MPI_SUCCESS) {
		int *in = malloc(sizeof(int) * size);
		out = malloc(sizeof(int) * size);
		if (in != NULL && out != NULL) {
			for (int i = 0; i < size; i++)
				in[i] = i;
			if (PMPI_Group_translate_ranks(g, size, in, w, out) != MPI_SUCCESS) {
				free(out);
				out = NULL;
			}
		} else {
			free(out);
			out = NULL;
		}
		free(in);
		PMPI_Group_free(&w);
	}
	PMPI_Group_free(&g);
	if (out == NULL)
		return NULL;
	int k = next_comm++ % COMMS;
	free(comms[k].world);
	comms[k].comm = comm;
	comms[k].n = size;
	comms[k].world = out;
	*n = size;
	return out;
}

static void drop_comm(MPI_Comm comm)
{
	for (int i = 0; i < COMMS; i++)
		if (comms[i].world != NULL && comms[i].comm == comm) {
			free(comms[i].world);
			comms[i].world = NULL;
		}
}

/* world returns the MPI_COMM_WORLD rank of rank r of comm: -1 for
 * MPI_ANY_SOURCE, -2 if it cannot tell. */
static int world(MPI_Comm comm, int r)
{
	if (r == MPI_ANY_SOURCE)
		return -1;
	if (r == MPI_PROC_NULL || r < 0)
		return -2;
	if (comm == MPI_COMM_WORLD)
		return r;
	int n = 0;
	int *m = members(comm, &n);
	if (m == NULL || r >= n || m[r] == MPI_UNDEFINED)
		return -2;
	return m[r];
}

static void put_peer(struct buf *b, int p, int first)
{
	if (!first)
		put(b, ",");
	if (p == -1)
		put(b, "*");
	else if (p == -2)
		put(b, "?");
	else
		put_int(b, p);
}

static void p2p(const char *call, int n, const int *peers, MPI_Comm comm)
{
	if (slot() == NULL)
		return;
	struct buf b = {.n = 0};
	put(&b, call);
	put(&b, " ");
	for (int i = 0; i < n; i++)
		put_peer(&b, world(comm, peers[i]), i == 0);
	publish(&b);
}

static void collective(const char *call, MPI_Comm comm)
{
	if (slot() == NULL)
		return;
	struct buf b = {.n = 0};
	put(&b, call);
	if (comm == MPI_COMM_WORLD) {
		put(&b, " world");
		publish(&b);
		return;
	}
	put(&b, " c:");
	int n = 0;
	int *m = members(comm, &n);
	for (int i = 0; m != NULL && i < n && b.n < sizeof b.s - 16; i++)
		put_peer(&b, m[i] == MPI_UNDEFINED ? -2 : m[i], i == 0);
	publish(&b);
}

static void remember(MPI_Request r, MPI_Comm comm, int peer)
{
	if (slot() == NULL)
		return;
	int p = world(comm, peer);
	for (int i = 0; i < nreqs; i++)
		if (reqs[i].r == r) {
			reqs[i].peer = p;
			return;
		}
	if (nreqs < REQS)
		reqs[nreqs++] = (struct req){r, p};
}

static int peer_of(MPI_Request r)
{
	for (int i = 0; i < nreqs; i++)
		if (reqs[i].r == r)
			return reqs[i].peer;
	return -3;
}

static void forget(MPI_Request r)
{
	for (int i = 0; i < nreqs; i++)
		if (reqs[i].r == r) {
			reqs[i] = reqs[--nreqs];
			return;
		}
}

static void waits(const char *call, int n, const MPI_Request *rs)
{
	if (slot() == NULL)
		return;
	struct buf b = {.n = 0};
	put(&b, call);
	put(&b, " ");
	int first = 1;
	for (int i = 0; i < n; i++) {
		if (rs[i] == MPI_REQUEST_NULL)
			continue;
		int p = peer_of(rs[i]);
		if (p == -3)
			continue; /* a request of a call not wrapped (a collective's, say) */
		int done = 0;
		if (PMPI_Request_get_status(rs[i], &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done)
			continue; /* complete already: not waited for */
		put_peer(&b, p, first);
		first = 0;
	}
	publish(&b);
}

/* Requests that completed are no longer waited for; a request handle that
 * MPI set to MPI_REQUEST_NULL is found by its old value. */
static void completed(int n, const MPI_Request *before, const MPI_Request *after)
{
	for (int i = 0; i < n; i++)
		if (before[i] != MPI_REQUEST_NULL && after[i] == MPI_REQUEST_NULL)
			forget(before[i]);
}

#define COPY_REQS(n, rs)                                                                           \
	MPI_Request copy_small[64];                                                               \
	MPI_Request *copy = (n) <= 64 ? copy_small : malloc(sizeof(MPI_Request) * (n));           \
	if (copy != NULL)                                                                          \
		memcpy(copy, rs, sizeof(MPI_Request) * (n));
#define FREE_REQS(n, rs)                                                                           \
	if (copy != NULL) {                                                                        \
		completed(n, copy, rs);                                                            \
		if (copy != copy_small)                                                            \
			free(copy);                                                                \
	}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
	p2p("MPI_Send", 1, &dest, comm);
	int rc = NEXT(MPI_Send)(buf, count, type, dest, tag, comm);
	clear();
	return rc;
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
	p2p("MPI_Ssend", 1, &dest, comm);
	int rc = NEXT(MPI_Ssend)(buf, count, type, dest, tag, comm);
	clear();
	return rc;
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
	     MPI_Status *status)
{
	p2p("MPI_Recv", 1, &source, comm);
	int rc = NEXT(MPI_Recv)(buf, count, type, source, tag, comm, status);
	clear();
	return rc;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	p2p("MPI_Probe", 1, &source, comm);
	int rc = NEXT(MPI_Probe)(source, tag, comm, status);
	clear();
	return rc;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
		 int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
		 MPI_Status *status)
{
	int peers[2] = {dest, source};
	p2p("MPI_Sendrecv", 2, peers, comm);
	int rc = NEXT(MPI_Sendrecv)(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
			       comm, status);
	clear();
	return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int source,
			 int rtag, MPI_Comm comm, MPI_Status *status)
{
	int peers[2] = {dest, source};
	p2p("MPI_Sendrecv_replace", 2, peers, comm);
	int rc = NEXT(MPI_Sendrecv_replace)(buf, count, type, dest, stag, source, rtag, comm, status);
	clear();
	return rc;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
	      MPI_Request *req)
{
	int rc = NEXT(MPI_Isend)(buf, count, type, dest, tag, comm, req);
	if (rc == MPI_SUCCESS)
		remember(*req, comm, dest);
	return rc;
}

int MPI_Issend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
	       MPI_Request *req)
{
	int rc = NEXT(MPI_Issend)(buf, count, type, dest, tag, comm, req);
	if (rc == MPI_SUCCESS)
		remember(*req, comm, dest);
	return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
	      MPI_Request *req)
{
	int rc = NEXT(MPI_Irecv)(buf, count, type, source, tag, comm, req);
	if (rc == MPI_SUCCESS)
		remember(*req, comm, source);
	return rc;
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
	MPI_Request r = *req;
	waits("MPI_Wait", 1, req);
	int rc = NEXT(MPI_Wait)(req, status);
	clear();
	if (*req == MPI_REQUEST_NULL)
		forget(r);
	return rc;
}

/* MPI_Waitall waits with MPI_Testsome, as MPI's own wait loop makes
 * progress, so that the slot names only the requests still pending: the
 * peers a hung rank really waits for, not those whose messages came after
 * the call began. */
int MPI_Waitall(int n, MPI_Request reqs_[], MPI_Status statuses[])
{
	/* Another tool's MPI_Waitall, or no slot: call it as it is. */
	if (slot() == NULL || n <= 0 || NEXT(MPI_Waitall) != PMPI_Waitall)
		return NEXT(MPI_Waitall)(n, reqs_, statuses);
	int *idx = malloc(sizeof(int) * n);
	MPI_Request *before = malloc(sizeof(MPI_Request) * n);
	int ignore = statuses == MPI_STATUSES_IGNORE;
	MPI_Status *st = ignore ? MPI_STATUSES_IGNORE : malloc(sizeof(MPI_Status) * n);
	if (idx == NULL || before == NULL || (!ignore && st == NULL)) {
		free(idx);
		free(before);
		if (!ignore)
			free(st);
		waits("MPI_Waitall", n, reqs_);
		int rc = NEXT(MPI_Waitall)(n, reqs_, statuses);
		clear();
		return rc;
	}
	int rc = MPI_SUCCESS, pending = -1;
	for (;;) {
		int left = 0;
		for (int i = 0; i < n; i++)
			if (reqs_[i] != MPI_REQUEST_NULL)
				left++;
		if (left == 0)
			break;
		if (left != pending) {
			waits("MPI_Waitall", n, reqs_);
			pending = left;
		}
		memcpy(before, reqs_, sizeof(MPI_Request) * n);
		int out = 0;
		rc = PMPI_Testsome(n, reqs_, &out, idx, st);
		if (rc != MPI_SUCCESS || out == MPI_UNDEFINED)
			break;
		for (int k = 0; k < out; k++) {
			if (!ignore)
				statuses[idx[k]] = st[k];
			forget(before[idx[k]]);
		}
	}
	clear();
	free(idx);
	free(before);
	if (!ignore)
		free(st);
	return rc;
}

int MPI_Waitany(int n, MPI_Request reqs_[], int *index, MPI_Status *status)
{
	waits("MPI_Waitany", n, reqs_);
	COPY_REQS(n, reqs_)
	int rc = NEXT(MPI_Waitany)(n, reqs_, index, status);
	clear();
	FREE_REQS(n, reqs_)
	return rc;
}

int MPI_Waitsome(int n, MPI_Request reqs_[], int *outcount, int indices[], MPI_Status statuses[])
{
	waits("MPI_Waitsome", n, reqs_);
	COPY_REQS(n, reqs_)
	int rc = NEXT(MPI_Waitsome)(n, reqs_, outcount, indices, statuses);
	clear();
	FREE_REQS(n, reqs_)
	return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
	MPI_Request r = *req;
	int rc = NEXT(MPI_Test)(req, flag, status);
	if (*req == MPI_REQUEST_NULL)
		forget(r);
	return rc;
}

int MPI_Testall(int n, MPI_Request reqs_[], int *flag, MPI_Status statuses[])
{
	COPY_REQS(n, reqs_)
	int rc = NEXT(MPI_Testall)(n, reqs_, flag, statuses);
	FREE_REQS(n, reqs_)
	return rc;
}

int MPI_Barrier(MPI_Comm comm)
{
	collective("MPI_Barrier", comm);
	int rc = NEXT(MPI_Barrier)(comm);
	clear();
	return rc;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
	collective("MPI_Bcast", comm);
	int rc = NEXT(MPI_Bcast)(buf, count, type, root, comm);
	clear();
	return rc;
}

int MPI_Reduce(const void *s, void *r, int count, MPI_Datatype type, MPI_Op op, int root,
	       MPI_Comm comm)
{
	collective("MPI_Reduce", comm);
	int rc = NEXT(MPI_Reduce)(s, r, count, type, op, root, comm);
	clear();
	return rc;
}

int MPI_Allreduce(const void *s, void *r, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
	collective("MPI_Allreduce", comm);
	int rc = NEXT(MPI_Allreduce)(s, r, count, type, op, comm);
	clear();
	return rc;
}

int MPI_Gather(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt, int root,
	       MPI_Comm comm)
{
	collective("MPI_Gather", comm);
	int rc = NEXT(MPI_Gather)(s, sc, st, r, rc_, rt, root, comm);
	clear();
	return rc;
}

int MPI_Allgather(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
		  MPI_Comm comm)
{
	collective("MPI_Allgather", comm);
	int rc = NEXT(MPI_Allgather)(s, sc, st, r, rc_, rt, comm);
	clear();
	return rc;
}

int MPI_Scatter(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt, int root,
		MPI_Comm comm)
{
	collective("MPI_Scatter", comm);
	int rc = NEXT(MPI_Scatter)(s, sc, st, r, rc_, rt, root, comm);
	clear();
	return rc;
}

int MPI_Alltoall(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
		 MPI_Comm comm)
{
	collective("MPI_Alltoall", comm);
	int rc = NEXT(MPI_Alltoall)(s, sc, st, r, rc_, rt, comm);
	clear();
	return rc;
}

int MPI_Finalize(void)
{
	collective("MPI_Finalize", MPI_COMM_WORLD);
	int rc = NEXT(MPI_Finalize)();
	clear();
	return rc;
}

/*
 * Fortran: Open MPI's Fortran bindings do not go through the C functions
 * above, so the library wraps them too, and forwards to the next definition
 * (the MPI library's), found with dlsym.
 */
#define FWD(name, ...)                                                                             \
	static void (*real)() = NULL;                                                              \
	if (real == NULL)                                                                          \
		real = (void (*)())dlsym(RTLD_NEXT, name);                                          \
	if (real == NULL) {                                                                        \
		*ierr = MPI_ERR_INTERN;                                                            \
		return;                                                                            \
	}                                                                                          \
	real(__VA_ARGS__);

static void fp2p(const char *call, MPI_Fint peer, MPI_Fint comm)
{
	int p = (int)peer;
	p2p(call, 1, &p, MPI_Comm_f2c(comm));
}

void mpi_send_(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *tag,
	       MPI_Fint *comm, MPI_Fint *ierr)
{
	fp2p("mpi_send_", *dest, *comm);
	FWD("mpi_send_", buf, count, type, dest, tag, comm, ierr)
	clear();
}

void mpi_ssend_(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *tag,
		MPI_Fint *comm, MPI_Fint *ierr)
{
	fp2p("mpi_ssend_", *dest, *comm);
	FWD("mpi_ssend_", buf, count, type, dest, tag, comm, ierr)
	clear();
}

void mpi_recv_(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *source, MPI_Fint *tag,
	       MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr)
{
	fp2p("mpi_recv_", *source, *comm);
	FWD("mpi_recv_", buf, count, type, source, tag, comm, status, ierr)
	clear();
}

void mpi_sendrecv_(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, MPI_Fint *dest, MPI_Fint *stag,
		   void *rbuf, MPI_Fint *rcount, MPI_Fint *rtype, MPI_Fint *source, MPI_Fint *rtag,
		   MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr)
{
	int peers[2] = {(int)*dest, (int)*source};
	p2p("mpi_sendrecv_", 2, peers, MPI_Comm_f2c(*comm));
	FWD("mpi_sendrecv_", sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm,
	    status, ierr)
	clear();
}

void mpi_isend_(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *tag,
		MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr)
{
	FWD("mpi_isend_", buf, count, type, dest, tag, comm, req, ierr)
	if (*ierr == MPI_SUCCESS)
		remember(MPI_Request_f2c(*req), MPI_Comm_f2c(*comm), (int)*dest);
}

void mpi_irecv_(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *source, MPI_Fint *tag,
		MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr)
{
	FWD("mpi_irecv_", buf, count, type, source, tag, comm, req, ierr)
	if (*ierr == MPI_SUCCESS)
		remember(MPI_Request_f2c(*req), MPI_Comm_f2c(*comm), (int)*source);
}

static void fwaits(const char *call, int n, const MPI_Fint *freqs, MPI_Request *c)
{
	for (int i = 0; i < n; i++)
		c[i] = MPI_Request_f2c(freqs[i]);
	waits(call, n, c);
}

void mpi_wait_(MPI_Fint *req, MPI_Fint *status, MPI_Fint *ierr)
{
	MPI_Request c;
	fwaits("mpi_wait_", 1, req, &c);
	FWD("mpi_wait_", req, status, ierr)
	clear();
	forget(c);
}

void mpi_waitall_(MPI_Fint *n, MPI_Fint *reqs_, MPI_Fint *statuses, MPI_Fint *ierr)
{
	int k = (int)*n;
	MPI_Request small[64];
	MPI_Request *c = k <= 64 ? small : malloc(sizeof(MPI_Request) * (k > 0 ? k : 1));
	if (c != NULL)
		fwaits("mpi_waitall_", k, reqs_, c);
	FWD("mpi_waitall_", n, reqs_, statuses, ierr)
	clear();
	if (c != NULL) {
		for (int i = 0; i < k; i++)
			forget(c[i]);
		if (c != small)
			free(c);
	}
}

#define FCOLL(fname, cname)                                                                        \
	static void cname(MPI_Fint *comm) { collective(fname, MPI_Comm_f2c(*comm)); }
FCOLL("mpi_barrier_", fbarrier)
FCOLL("mpi_bcast_", fbcast)
FCOLL("mpi_reduce_", freduce)
FCOLL("mpi_allreduce_", fallreduce)

void mpi_barrier_(MPI_Fint *comm, MPI_Fint *ierr)
{
	fbarrier(comm);
	FWD("mpi_barrier_", comm, ierr)
	clear();
}

void mpi_bcast_(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm,
		MPI_Fint *ierr)
{
	fbcast(comm);
	FWD("mpi_bcast_", buf, count, type, root, comm, ierr)
	clear();
}

void mpi_reduce_(void *s, void *r, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *root,
		 MPI_Fint *comm, MPI_Fint *ierr)
{
	freduce(comm);
	FWD("mpi_reduce_", s, r, count, type, op, root, comm, ierr)
	clear();
}

void mpi_allreduce_(void *s, void *r, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
		    MPI_Fint *comm, MPI_Fint *ierr)
{
	fallreduce(comm);
	FWD("mpi_allreduce_", s, r, count, type, op, comm, ierr)
	clear();
}

void mpi_finalize_(MPI_Fint *ierr)
{
	collective("mpi_finalize_", MPI_COMM_WORLD);
	FWD("mpi_finalize_", ierr)
	clear();
}

int MPI_Comm_free(MPI_Comm *comm)
{
	drop_comm(*comm);
	return NEXT(MPI_Comm_free)(comm);
}

void mpi_comm_free_(MPI_Fint *comm, MPI_Fint *ierr)
{
	drop_comm(MPI_Comm_f2c(*comm));
	FWD("mpi_comm_free_", comm, ierr)
}
