/*
 * parlot_trace.h - one thread's ParLOT trace file, kept readable while it grows.
 *
 * A parlot_trace joins the call-stack correction (parlot_callstack.h) and the
 * compressor (parlot_compress.h) to a file <prefix>.<rank>.<thread>. The
 * traced thread calls parlot_trace_enter/exit at every function entry and
 * exit; compressed bytes go to the file every PARLOT_OUT_DRAIN bytes and
 * whenever parlot_trace_sync is called (by a periodic flusher thread, or on a
 * terminating signal).
 *
 * Every write leaves a complete trace on disk: the final bytes so far are
 * followed by the tail that would end the stream now, and the next write
 * replaces that tail. A process killed at any moment - even by SIGKILL, when
 * no handler runs - leaves a file that decodes to every event up to its last
 * write, with the calls that were open (a rank blocked in MPI_Recv) still
 * open. A failed write (full disk, file size limit) puts the last complete
 * trace back, stops recording for that thread and is reported by
 * parlot_trace_error.
 *
 * Each trace has a small spin lock: the traced thread holds it for one event,
 * a flusher for one write. Plain C99 plus POSIX file calls and GCC atomic
 * builtins; compiled into the Pin tool and tested with gcc and threads.
 */
#ifndef PARLOT_TRACE_H
#define PARLOT_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "parlot_callstack.h"
#include "parlot_compress.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct parlot_trace {
    int lock;       /* 0 free, 1 held */
    int fd;         /* -1 once closed */
    int closed;     /* parlot_trace_close or _detach was called */
    int err;        /* errno of the first failure; recording stopped there */
    parlot_enc *enc; /* NULL once closed */
    parlot_callstack stack;
    uint64_t committed;    /* bytes of the file that are final */
    uint64_t ondisk;       /* length of the file as last written */
    uint64_t synced;       /* values in the file as last written */
    uint64_t dropped;      /* events ignored after a failure or close */
    uint8_t disk_tail[PARLOT_TAIL_MAX]; /* the provisional tail on disk */
    size_t disk_tail_len;
} parlot_trace;

/* parlot_trace_create creates (or truncates) the file at path and writes the
 * empty trace to it. It returns NULL and sets *err to an errno value on
 * failure. */
parlot_trace *parlot_trace_create(const char *path, int *err);

/* parlot_trace_enter records the entry of function id (1..65535) with the
 * stack pointer sp at the routine's first instruction. */
void parlot_trace_enter(parlot_trace *t, uint16_t id, uintptr_t sp);

/* parlot_trace_exit records a function exit with the stack pointer sp at the
 * return instruction. */
void parlot_trace_exit(parlot_trace *t, uintptr_t sp);

/* parlot_trace_sync writes everything recorded so far, leaving a complete
 * trace on disk. It does nothing if nothing changed since the last write. It
 * returns 0 or the errno of the failure. */
int parlot_trace_sync(parlot_trace *t);

/* parlot_trace_try_sync is parlot_trace_sync for contexts that must not wait
 * (signal paths): it gives up after spins attempts to take the lock and then
 * returns -1. */
int parlot_trace_try_sync(parlot_trace *t, unsigned spins);

/* parlot_trace_close writes the final trace and closes the file. Events after
 * it are ignored. It returns 0 or the errno of the first failure. The struct
 * itself stays valid (a flusher may still look at it) until
 * parlot_trace_free. */
int parlot_trace_close(parlot_trace *t);

/* parlot_trace_close_try is parlot_trace_close for process exit, when the
 * other threads are gone: if the lock is not free after spins attempts, its
 * holder is taken to be dead (killed inside an event) and the trace is closed
 * anyway. */
int parlot_trace_close_try(parlot_trace *t, unsigned spins);

/* parlot_trace_detach closes the file without writing and without taking the
 * lock: for a forked child, whose copy of the trace belongs to the parent. */
void parlot_trace_detach(parlot_trace *t);

/* parlot_trace_free releases a closed or detached trace. */
void parlot_trace_free(parlot_trace *t);

/* Locking, for callers that need a consistent view of the file while they
 * look at it (tests); parlot_trace_sync_locked is parlot_trace_sync with the
 * lock already held. */
void parlot_trace_lock(parlot_trace *t);
int parlot_trace_trylock(parlot_trace *t, unsigned spins);
void parlot_trace_unlock(parlot_trace *t);
int parlot_trace_sync_locked(parlot_trace *t);

/* parlot_trace_values returns the number of values recorded; call it with the
 * lock held or after close. */
uint64_t parlot_trace_values(const parlot_trace *t);

/* parlot_trace_error returns the errno of the first failure, or 0. */
int parlot_trace_error(const parlot_trace *t);

#ifdef __cplusplus
}
#endif

#endif
