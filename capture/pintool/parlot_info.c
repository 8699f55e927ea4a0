/*
 * parlot_info.c - the .info function table (see the header).
 */
#if !defined(_POSIX_C_SOURCE) && !defined(PIN_CRT)
#define _POSIX_C_SOURCE 200809L
#endif

#include "parlot_info.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

int parlot_info_create(parlot_info *in, const char *path)
{
    memset(in, 0, sizeof *in);
    in->next = 1;
    in->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in->fd < 0) {
        in->err = errno;
        return in->err;
    }
    return 0;
}

/* line appends s (line breaks replaced) and a newline to the section. */
static int line(parlot_info *in, const char *s)
{
    size_t n = strlen(s), i;
    if (in->len + n + 1 > in->cap) {
        size_t cap = in->cap ? in->cap : 4096;
        char *b;
        while (cap < in->len + n + 1)
            cap *= 2;
        b = (char *)realloc(in->buf, cap);
        if (b == NULL)
            return ENOMEM;
        in->buf = b;
        in->cap = cap;
    }
    for (i = 0; i < n; i++)
        in->buf[in->len++] = (s[i] == '\n' || s[i] == '\r') ? '?' : s[i];
    in->buf[in->len++] = '\n';
    return 0;
}

void parlot_info_begin(parlot_info *in, const char *image)
{
    int err;
    in->len = 0;
    in->funcs = 0;
    if (image == NULL || image[0] == '\0')
        image = "(unnamed image)";
    if ((err = line(in, "+")) != 0 || (err = line(in, image)) != 0) {
        if (in->err == 0)
            in->err = err;
    }
}

uint16_t parlot_info_add(parlot_info *in, const char *name)
{
    int err;
    if (in->next > PARLOT_MAX_ID || in->err != 0) {
        in->skipped++;
        return 0;
    }
    /* A blank line would shift every later ID in a reader, and a line "+"
     * would start a section. */
    if (name == NULL || name[0] == '\0')
        name = "(anonymous)";
    else if (strcmp(name, "+") == 0)
        name = "?+";
    if ((err = line(in, name)) != 0) {
        if (in->err == 0)
            in->err = err;
        in->skipped++;
        return 0;
    }
    in->funcs++;
    return (uint16_t)in->next++;
}

int parlot_info_end(parlot_info *in)
{
    const char *p = in->buf;
    size_t n = in->len;
    if (in->funcs == 0 || in->fd < 0) {
        in->len = 0;
        return 0;
    }
    while (n > 0) {
        ssize_t k = write(in->fd, p, n);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            if (in->err == 0)
                in->err = errno;
            break;
        }
        p += k;
        n -= (size_t)k;
    }
    in->len = 0;
    in->funcs = 0;
    return n == 0 ? 0 : in->err;
}

int parlot_info_close(parlot_info *in)
{
    if (in->fd >= 0 && close(in->fd) != 0 && in->err == 0)
        in->err = errno;
    in->fd = -1;
    free(in->buf);
    in->buf = NULL;
    in->len = in->cap = 0;
    return in->err;
}
