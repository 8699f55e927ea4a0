/*
 * parlot_callstack.c - call-stack correction by stack pointer (see the header).
 */
#include "parlot_callstack.h"

#include <stdlib.h>

void parlot_callstack_init(parlot_callstack *s)
{
    s->frames = NULL;
    s->depth = 0;
    s->cap = 0;
}

void parlot_callstack_free(parlot_callstack *s)
{
    free(s->frames);
    parlot_callstack_init(s);
}

long parlot_callstack_enter(parlot_callstack *s, uint16_t id, uintptr_t sp)
{
    size_t d = s->depth;
    long missed;
    while (d > 0 && s->frames[d - 1].sp <= sp)
        d--;
    if (d == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        parlot_frame *f = (parlot_frame *)realloc(s->frames, cap * sizeof *f);
        if (f == NULL)
            return -1;
        s->frames = f;
        s->cap = cap;
    }
    missed = (long)(s->depth - d);
    s->frames[d].sp = sp;
    s->frames[d].id = id;
    s->depth = d + 1;
    return missed;
}

long parlot_callstack_exit(parlot_callstack *s, uintptr_t sp)
{
    size_t d = s->depth;
    while (d > 0 && s->frames[d - 1].sp < sp)
        d--;
    if (d > 0 && s->frames[d - 1].sp == sp)
        d--;
    {
        long n = (long)(s->depth - d);
        s->depth = d;
        return n;
    }
}
