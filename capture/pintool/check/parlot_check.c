/*
 * parlot_check.c - drives the Pin tool's plain-C parts from the command line,
 * so that the project's Go tests (capture/pintool_test.go) can check them
 * without Intel Pin. Not part of the tool.
 *
 *   parlot_check compress [-t K]
 *       stdin: little-endian uint16 values; stdout: the compressed trace.
 *       With -t K, stop after K values and write the bytes so far followed by
 *       parlot_enc_tail (the stream is not finished).
 *   parlot_check callstack
 *       stdin: lines "e ID SP" (entry) and "x SP" (exit), SP in hex;
 *       stdout: the values the corrected trace holds, one per line.
 *   parlot_check trace PATH [-f MS] [-S DIR] [-L BYTES]
 *       stdin: lines as for callstack, plus "s" (sync now), "k" (take the
 *       trace's lock for good, as a thread killed inside an event would; the
 *       trace is then closed with parlot_trace_close_try) and "b" (print
 *       "blocked" and sleep forever: a hung thread). The events go through a
 *       parlot_trace at PATH while a second thread syncs it every MS
 *       milliseconds (default: no such thread); with -S it copies the file to
 *       DIR/snap.N after each of its syncs, holding the lock. -L limits the
 *       file size (RLIMIT_FSIZE) to provoke write errors. At the end of input
 *       the trace is closed and "values N err E" is printed.
 *   parlot_check info PATH
 *       stdin: lines "+ IMAGE" (a section), "f NAME" (a function: prints its
 *       ID), "n COUNT" (COUNT functions fN: prints the last ID); at the end
 *       "skipped K err E" is printed.
 *   parlot_check names DIR PREFIX NUMBER SUFFIX
 *       prints "rank R VAR", "prefix P", "path X" and "short S" (what
 *       parlot_path returns for an 8-byte buffer).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../parlot_callstack.h"
#include "../parlot_compress.h"
#include "../parlot_info.h"
#include "../parlot_names.h"
#include "../parlot_trace.h"

static void die(const char *msg)
{
    fprintf(stderr, "parlot_check: %s\n", msg);
    exit(2);
}

static void put_all(const uint8_t *p, size_t n)
{
    if (n > 0 && fwrite(p, 1, n, stdout) != n)
        die("writing stdout");
}

static int cmd_compress(int argc, char **argv)
{
    static parlot_enc e;
    static unsigned char b[1 << 16];
    long stop = -1;
    long k = 0;
    size_t have = 0;
    if (argc == 2 && strcmp(argv[0], "-t") == 0)
        stop = atol(argv[1]);
    else if (argc != 0)
        die("usage: compress [-t K]");
    parlot_enc_init(&e);
    for (;;) {
        size_t n = fread(b + have, 1, sizeof b - have, stdin), i;
        have += n;
        if (n == 0) {
            if (have != 0)
                die("odd number of input bytes");
            break;
        }
        for (i = 0; i + 1 < have && (stop < 0 || k < stop); i += 2, k++) {
            parlot_enc_put(&e, (uint16_t)(b[i] | b[i + 1] << 8));
            if (e.len >= PARLOT_OUT_DRAIN) {
                put_all(e.out, e.len);
                e.len = 0;
            }
        }
        if (stop >= 0 && k >= stop)
            break;
        memmove(b, b + i, have - i);
        have -= i;
    }
    if (stop >= 0) {
        uint8_t tail[PARLOT_TAIL_MAX];
        size_t n = parlot_enc_tail(&e, tail);
        put_all(e.out, e.len);
        put_all(tail, n);
    } else {
        parlot_enc_finish(&e);
        put_all(e.out, e.len);
    }
    return fflush(stdout) == 0 ? 0 : 1;
}

/* event reads one event line: returns its kind ('e', 'x', 's', 'b') or 0 at
 * the end of input. */
static int event(FILE *in, unsigned *id, uintptr_t *sp)
{
    char line[256];
    unsigned long long s;
    while (fgets(line, sizeof line, in) != NULL) {
        switch (line[0]) {
        case 'e':
            if (sscanf(line + 1, "%u %llx", id, &s) != 2)
                die("bad entry line");
            *sp = (uintptr_t)s;
            return 'e';
        case 'x':
            if (sscanf(line + 1, "%llx", &s) != 1)
                die("bad exit line");
            *sp = (uintptr_t)s;
            return 'x';
        case 's':
        case 'k':
        case 'b':
            return line[0];
        case '\n':
            continue;
        default:
            die("bad event line");
        }
    }
    return 0;
}

static int cmd_callstack(void)
{
    parlot_callstack s;
    unsigned id;
    uintptr_t sp;
    int kind;
    parlot_callstack_init(&s);
    while ((kind = event(stdin, &id, &sp)) != 0) {
        long k;
        if (kind == 'e') {
            k = parlot_callstack_enter(&s, (uint16_t)id, sp);
            if (k < 0)
                die("out of memory");
            while (k-- > 0)
                printf("0\n");
            printf("%u\n", id);
        } else if (kind == 'x') {
            k = parlot_callstack_exit(&s, sp);
            while (k-- > 0)
                printf("0\n");
        }
    }
    parlot_callstack_free(&s);
    return fflush(stdout) == 0 ? 0 : 1;
}

static struct {
    parlot_trace *t;
    const char *path;
    const char *snapdir;
    long ms;
    int stop;
    int snaps;
} flusher;

static void copy_file(const char *from, const char *to)
{
    char buf[1 << 16];
    int in = open(from, O_RDONLY), out;
    ssize_t n;
    if (in < 0)
        die("opening the trace for a snapshot");
    out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0)
        die("creating a snapshot");
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n)
            die("writing a snapshot");
    close(in);
    close(out);
}

static void *flush_loop(void *arg)
{
    struct timespec d;
    (void)arg;
    d.tv_sec = flusher.ms / 1000;
    d.tv_nsec = (flusher.ms % 1000) * 1000000L;
    while (!__atomic_load_n(&flusher.stop, __ATOMIC_ACQUIRE)) {
        nanosleep(&d, NULL);
        if (flusher.snapdir != NULL && flusher.snaps < 50) {
            char to[4096];
            parlot_trace_lock(flusher.t);
            if (!flusher.t->closed && parlot_trace_sync_locked(flusher.t) == 0) {
                snprintf(to, sizeof to, "%s/snap.%d", flusher.snapdir, flusher.snaps++);
                copy_file(flusher.path, to);
            }
            parlot_trace_unlock(flusher.t);
        } else {
            parlot_trace_sync(flusher.t);
        }
    }
    return NULL;
}

static int cmd_trace(int argc, char **argv)
{
    pthread_t th;
    unsigned id;
    uintptr_t sp;
    int kind, err, i, stolen = 0;
    if (argc < 1)
        die("usage: trace PATH [-f MS] [-S DIR] [-L BYTES]");
    flusher.path = argv[0];
    for (i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-f") == 0) {
            flusher.ms = atol(argv[i + 1]);
        } else if (strcmp(argv[i], "-S") == 0) {
            flusher.snapdir = argv[i + 1];
        } else if (strcmp(argv[i], "-L") == 0) {
            struct rlimit rl;
            rl.rlim_cur = rl.rlim_max = (rlim_t)atol(argv[i + 1]);
            signal(SIGXFSZ, SIG_IGN);
            if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
                die("setrlimit");
        } else {
            die("unknown trace option");
        }
    }
    flusher.t = parlot_trace_create(flusher.path, &err);
    if (flusher.t == NULL) {
        fprintf(stderr, "parlot_check: %s: %s\n", flusher.path, strerror(err));
        return 1;
    }
    if (flusher.ms > 0 && pthread_create(&th, NULL, flush_loop, NULL) != 0)
        die("pthread_create");
    while ((kind = event(stdin, &id, &sp)) != 0) {
        switch (kind) {
        case 'e':
            parlot_trace_enter(flusher.t, (uint16_t)id, sp);
            break;
        case 'x':
            parlot_trace_exit(flusher.t, sp);
            break;
        case 's':
            parlot_trace_sync(flusher.t);
            break;
        case 'k':
            /* A thread killed inside an event: its lock stays taken. */
            parlot_trace_lock(flusher.t);
            stolen = 1;
            break;
        case 'b':
            printf("blocked\n");
            fflush(stdout);
            for (;;)
                pause();
        }
    }
    if (flusher.ms > 0) {
        __atomic_store_n(&flusher.stop, 1, __ATOMIC_RELEASE);
        pthread_join(th, NULL);
    }
    err = stolen ? parlot_trace_close_try(flusher.t, 1000) : parlot_trace_close(flusher.t);
    printf("values %llu err %d\n", (unsigned long long)parlot_trace_values(flusher.t), err);
    parlot_trace_free(flusher.t);
    return fflush(stdout) == 0 ? 0 : 1;
}

static int cmd_info(int argc, char **argv)
{
    parlot_info in;
    char line[4096];
    int open_section = 0, err;
    if (argc != 1)
        die("usage: info PATH");
    if ((err = parlot_info_create(&in, argv[0])) != 0) {
        fprintf(stderr, "parlot_check: %s: %s\n", argv[0], strerror(err));
        return 1;
    }
    while (fgets(line, sizeof line, stdin) != NULL) {
        size_t n = strlen(line);
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = '\0';
        if (n < 2)
            die("bad info line");
        /* "\\n" in a name stands for a line break. */
        {
            char *p = line, *q = line;
            while (*p != '\0') {
                if (p[0] == '\\' && p[1] == 'n') {
                    *q++ = '\n';
                    p += 2;
                } else {
                    *q++ = *p++;
                }
            }
            *q = '\0';
        }
        switch (line[0]) {
        case '+':
            if (open_section)
                parlot_info_end(&in);
            parlot_info_begin(&in, line + 2);
            open_section = 1;
            break;
        case 'f':
            printf("%u\n", (unsigned)parlot_info_add(&in, line + 2));
            break;
        case 'n': {
            long count = atol(line + 2), j;
            unsigned lastid = 0;
            char name[32];
            for (j = 0; j < count; j++) {
                snprintf(name, sizeof name, "f%ld", j);
                lastid = parlot_info_add(&in, name);
            }
            printf("%u\n", lastid);
            break;
        }
        default:
            die("bad info line");
        }
    }
    if (open_section)
        parlot_info_end(&in);
    printf("skipped %u err %d\n", in.skipped, parlot_info_close(&in));
    return fflush(stdout) == 0 ? 0 : 1;
}

static int cmd_names(int argc, char **argv)
{
    const char *var = NULL;
    long r = parlot_env_rank(&var);
    char buf[4096];
    if (argc != 4)
        die("usage: names DIR PREFIX NUMBER SUFFIX");
    printf("rank %ld %s\n", r, var != NULL ? var : "-");
    if (parlot_default_prefix(buf, sizeof buf) != 0)
        die("prefix too long");
    printf("prefix %s\n", buf);
    if (parlot_path(buf, sizeof buf, argv[0], argv[1], atol(argv[2]), argv[3]) != 0)
        die("path too long");
    printf("path %s\n", buf);
    printf("short %d\n", parlot_path(buf, 8, argv[0], argv[1], atol(argv[2]), argv[3]));
    return fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        die("usage: parlot_check compress|callstack|trace|info|names ...");
    if (strcmp(argv[1], "compress") == 0)
        return cmd_compress(argc - 2, argv + 2);
    if (strcmp(argv[1], "callstack") == 0)
        return cmd_callstack();
    if (strcmp(argv[1], "trace") == 0)
        return cmd_trace(argc - 2, argv + 2);
    if (strcmp(argv[1], "info") == 0)
        return cmd_info(argc - 2, argv + 2);
    if (strcmp(argv[1], "names") == 0)
        return cmd_names(argc - 2, argv + 2);
    die("unknown command");
    return 2;
}
