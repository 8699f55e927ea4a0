/*
 * parlot_compress.c - the incremental LZa3|ZE compressor (see the header).
 *
 * Stage 1, per value v: if a run is being extended and v is the value the
 * run predicts, the held-back count grows (up to 65535). Otherwise the
 * position the hash of the last three values points to is a candidate; if the
 * three values before it equal the three before the current position, v is
 * coded against it: a new run (count 1, held back) if the candidate holds v,
 * else the word 0 followed by the literal v. Without a candidate v is a plain
 * literal. After every value the history, hash table and hash advance.
 *
 * Stage 2 groups the words four at a time (8 bytes), writing a bitmap of the
 * non-zero bytes followed by those bytes; a trailer byte holds the number of
 * words in the last group.
 */
#include "parlot_compress.h"

#include <string.h>

void parlot_enc_init(parlot_enc *e)
{
    memset(e, 0, sizeof *e);
}

/* push advances the stage-1 state past value v. */
static void push(parlot_enc *e, uint16_t v)
{
    e->last[e->hash] = e->pos;
    e->hash = (uint16_t)(((unsigned)e->hash << 4 ^ v) & 4095u);
    e->hist[e->pos] = v;
    e->pos = (uint16_t)(e->pos + 1u);
}

/* emit_group appends the bitmap and the non-zero bytes of n words. */
static size_t emit_group(uint8_t *dst, const uint16_t *group, unsigned n)
{
    size_t k = 1;
    unsigned i;
    uint8_t bm = 0;
    for (i = 0; i < n; i++) {
        uint8_t lo = (uint8_t)(group[i] & 0xff), hi = (uint8_t)(group[i] >> 8);
        if (lo != 0) {
            bm = (uint8_t)(bm | 1u << (2 * i));
            dst[k++] = lo;
        }
        if (hi != 0) {
            bm = (uint8_t)(bm | 1u << (2 * i + 1));
            dst[k++] = hi;
        }
    }
    dst[0] = bm;
    return k;
}

/* word hands one stage-1 word to stage 2. */
static void word(parlot_enc *e, uint16_t x)
{
    e->group[e->gn++] = x;
    e->words++;
    if (e->gn == 4) {
        e->len += emit_group(e->out + e->len, e->group, 4);
        e->gn = 0;
    }
}

void parlot_enc_put(parlot_enc *e, uint16_t v)
{
    uint16_t c;
    e->values++;
    if (e->in_run) {
        if (e->count < 65535u && e->hist[e->cand] == v) {
            e->count++;
            e->cand = (uint16_t)(e->cand + 1u);
            push(e, v);
            return;
        }
        /* v stopped the run (or the count is full): it goes out as a literal. */
        e->in_run = 0;
        word(e, e->count);
        word(e, v);
        push(e, v);
        return;
    }
    c = e->last[e->hash];
    if (e->hist[(uint16_t)(c - 1u)] == e->hist[(uint16_t)(e->pos - 1u)] &&
        e->hist[(uint16_t)(c - 2u)] == e->hist[(uint16_t)(e->pos - 2u)] &&
        e->hist[(uint16_t)(c - 3u)] == e->hist[(uint16_t)(e->pos - 3u)]) {
        if (e->hist[c] == v) {
            e->in_run = 1;
            e->count = 1;
            e->cand = (uint16_t)(c + 1u);
            push(e, v);
            return;
        }
        word(e, 0);
    }
    word(e, v);
    push(e, v);
}

size_t parlot_enc_tail(const parlot_enc *e, uint8_t tail[PARLOT_TAIL_MAX])
{
    uint16_t group[4];
    unsigned gn = e->gn;
    uint64_t words = e->words;
    size_t n = 0;
    uint8_t trailer;

    memcpy(group, e->group, sizeof group);
    if (e->in_run) {
        group[gn++] = e->count;
        words++;
        if (gn == 4) {
            n += emit_group(tail, group, 4);
            gn = 0;
        }
    }
    trailer = (uint8_t)gn;
    if (gn > 0)
        n += emit_group(tail + n, group, gn);
    else if (words > 0)
        trailer = 4;
    tail[n++] = trailer;
    return n;
}

void parlot_enc_finish(parlot_enc *e)
{
    if (e->finished)
        return;
    e->len += parlot_enc_tail(e, e->out + e->len);
    e->in_run = 0;
    e->gn = 0;
    e->finished = 1;
}
