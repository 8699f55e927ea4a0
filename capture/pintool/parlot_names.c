/*
 * parlot_names.c - rank detection and file names (see the header).
 */
#if !defined(_POSIX_C_SOURCE) && !defined(PIN_CRT)
#define _POSIX_C_SOURCE 200809L
#endif

#include "parlot_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parlot_compress.h"

/* decimal parses a plain non-negative decimal number below 2^31, or -1. */
static long decimal(const char *s)
{
    long v = 0;
    if (s == NULL || *s == '\0')
        return -1;
    for (; *s != '\0'; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (*s - '0');
        if (v > 2147483647L)
            return -1;
    }
    return v;
}

long parlot_env_rank(const char **var)
{
    static const char *const vars[] = {
        "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", "MV2_COMM_WORLD_RANK",
    };
    size_t i;
    for (i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        long r = decimal(getenv(vars[i]));
        if (r >= 0) {
            if (var != NULL)
                *var = vars[i];
            return r;
        }
    }
    if (var != NULL)
        *var = NULL;
    return -1;
}

int parlot_default_prefix(char *buf, size_t size)
{
    char host[256];
    size_t i;
    int n;
    memset(host, 0, sizeof host);
    if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0')
        strcpy(host, "localhost");
    for (i = 0; host[i] != '\0'; i++) {
        if (host[i] == '.') {
            host[i] = '\0';
            break;
        }
        if (host[i] == '/')
            host[i] = '_';
    }
    if (host[0] == '\0')
        strcpy(host, "localhost");
    n = snprintf(buf, size, "Hdbg.%d.%s", PARLOT_FORMAT_VERSION, host);
    return (n < 0 || (size_t)n >= size) ? -1 : 0;
}

int parlot_path(char *buf, size_t size, const char *dir, const char *prefix,
                long number, const char *suffix)
{
    int n;
    if (dir == NULL || dir[0] == '\0')
        n = snprintf(buf, size, "%s.%ld.%s", prefix, number, suffix);
    else
        n = snprintf(buf, size, "%s/%s.%ld.%s", dir, prefix, number, suffix);
    return (n < 0 || (size_t)n >= size) ? -1 : 0;
}
