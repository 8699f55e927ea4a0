/*
 * parlot_trace.c - one thread's ParLOT trace file (see the header).
 */
#if !defined(_POSIX_C_SOURCE) && !defined(PIN_CRT)
#define _POSIX_C_SOURCE 200809L
#endif

#include "parlot_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

void parlot_trace_lock(parlot_trace *t)
{
    while (__atomic_exchange_n(&t->lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&t->lock, __ATOMIC_RELAXED))
            relax();
}

int parlot_trace_trylock(parlot_trace *t, unsigned spins)
{
    do {
        if (!__atomic_exchange_n(&t->lock, 1, __ATOMIC_ACQUIRE))
            return 1;
        relax();
    } while (spins-- > 0);
    return 0;
}

void parlot_trace_unlock(parlot_trace *t)
{
    __atomic_store_n(&t->lock, 0, __ATOMIC_RELEASE);
}

/* write_at writes all n bytes at offset off; it returns 0 or an errno. */
static int write_at(int fd, const uint8_t *p, size_t n, uint64_t off)
{
    while (n > 0) {
        ssize_t k = pwrite(fd, p, n, (off_t)off);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (k == 0)
            return EIO;
        p += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

/* restore puts the last complete trace back after a failed write: the final
 * bytes followed by the tail that was on disk. */
static void restore(parlot_trace *t)
{
    if (ftruncate(t->fd, (off_t)t->committed) == 0)
        write_at(t->fd, t->disk_tail, t->disk_tail_len, t->committed);
}

/* parlot_trace_sync_locked writes the pending bytes and the current tail in
 * one write. */
int parlot_trace_sync_locked(parlot_trace *t)
{
    parlot_enc *e = t->enc;
    size_t n, tn;
    uint64_t end;
    int err;

    if (t->closed || t->err != 0)
        return t->err;
    if (e->len == 0 && e->values == t->synced && t->ondisk > 0)
        return 0;
    n = e->len;
    tn = parlot_enc_tail(e, e->out + n);
    err = write_at(t->fd, e->out, n + tn, t->committed);
    if (err != 0) {
        restore(t);
        t->err = err;
        return err;
    }
    end = t->committed + n + tn;
    if (end < t->ondisk && ftruncate(t->fd, (off_t)end) != 0) {
        err = errno;
        restore(t);
        t->err = err;
        return err;
    }
    t->committed += n;
    t->ondisk = end;
    memcpy(t->disk_tail, e->out + n, tn);
    t->disk_tail_len = tn;
    t->synced = e->values;
    e->len = 0;
    return 0;
}

parlot_trace *parlot_trace_create(const char *path, int *err)
{
    parlot_trace *t = (parlot_trace *)calloc(1, sizeof *t);
    if (t == NULL) {
        *err = ENOMEM;
        return NULL;
    }
    t->enc = (parlot_enc *)malloc(sizeof *t->enc);
    if (t->enc == NULL) {
        free(t);
        *err = ENOMEM;
        return NULL;
    }
    parlot_enc_init(t->enc);
    parlot_callstack_init(&t->stack);
    t->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (t->fd < 0) {
        *err = errno;
        free(t->enc);
        free(t);
        return NULL;
    }
    if (parlot_trace_sync_locked(t) != 0) {
        *err = t->err;
        close(t->fd);
        free(t->enc);
        free(t);
        return NULL;
    }
    return t;
}

static int usable(const parlot_trace *t)
{
    return !t->closed && t->err == 0;
}

static void put(parlot_trace *t, uint16_t v)
{
    parlot_enc_put(t->enc, v);
    if (t->enc->len >= PARLOT_OUT_DRAIN)
        parlot_trace_sync_locked(t);
}

void parlot_trace_enter(parlot_trace *t, uint16_t id, uintptr_t sp)
{
    parlot_trace_lock(t);
    if (usable(t) && id != 0) {
        long k = parlot_callstack_enter(&t->stack, id, sp);
        if (k < 0) {
            t->err = ENOMEM;
            t->dropped++;
        } else {
            while (k-- > 0 && usable(t))
                put(t, 0);
            if (usable(t))
                put(t, id);
        }
    } else {
        t->dropped++;
    }
    parlot_trace_unlock(t);
}

void parlot_trace_exit(parlot_trace *t, uintptr_t sp)
{
    parlot_trace_lock(t);
    if (usable(t)) {
        long k = parlot_callstack_exit(&t->stack, sp);
        while (k-- > 0 && usable(t))
            put(t, 0);
    } else {
        t->dropped++;
    }
    parlot_trace_unlock(t);
}

int parlot_trace_sync(parlot_trace *t)
{
    int err;
    parlot_trace_lock(t);
    err = parlot_trace_sync_locked(t);
    parlot_trace_unlock(t);
    return err;
}

int parlot_trace_try_sync(parlot_trace *t, unsigned spins)
{
    int err;
    if (!parlot_trace_trylock(t, spins))
        return -1;
    err = parlot_trace_sync_locked(t);
    parlot_trace_unlock(t);
    return err;
}

/* close_locked writes the final trace and closes the file. */
static void close_locked(parlot_trace *t)
{
    if (!t->closed) {
        parlot_trace_sync_locked(t);
        if (close(t->fd) != 0 && t->err == 0)
            t->err = errno;
        t->fd = -1;
        t->closed = 1;
        t->synced = t->enc->values;
        free(t->enc);
        t->enc = NULL;
        parlot_callstack_free(&t->stack);
    }
}

int parlot_trace_close(parlot_trace *t)
{
    int err;
    parlot_trace_lock(t);
    close_locked(t);
    err = t->err;
    parlot_trace_unlock(t);
    return err;
}

int parlot_trace_close_try(parlot_trace *t, unsigned spins)
{
    int err;
    parlot_trace_trylock(t, spins); /* taken either way */
    close_locked(t);
    err = t->err;
    parlot_trace_unlock(t);
    return err;
}

void parlot_trace_detach(parlot_trace *t)
{
    if (t->closed)
        return;
    close(t->fd);
    t->fd = -1;
    t->closed = 1;
    t->lock = 0;
}

void parlot_trace_free(parlot_trace *t)
{
    if (t == NULL)
        return;
    if (!t->closed)
        parlot_trace_close(t);
    free(t->enc);
    parlot_callstack_free(&t->stack);
    free(t);
}

uint64_t parlot_trace_values(const parlot_trace *t)
{
    return t->enc != NULL ? t->enc->values : t->synced;
}

int parlot_trace_error(const parlot_trace *t)
{
    return t->err;
}
