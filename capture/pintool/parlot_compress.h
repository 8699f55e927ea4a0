/*
 * parlot_compress.h - the incremental LZa3|ZE compressor of ParLOT traces.
 *
 * A thread's trace is a sequence of 16-bit values (a function ID at every
 * entry, 0 at every exit). The encoder compresses it one value at a time,
 * byte for byte as the reference ParLOT tool (format version 17) does:
 * stage 1 is a word-level LZ with a 4096-entry hash table and a 64k-entry
 * history, stage 2 is zero elimination over bytes (ParLOT paper, section 3.3;
 * docs/parlot-format.md of this project). Every value costs the same small,
 * bounded amount of work, so a traced thread never stalls on a compression
 * burst (section 3.2).
 *
 * The encoder never allocates and never does I/O: compressed bytes collect in
 * its out[] buffer and the caller drains them. parlot_enc_tail gives the bytes
 * that would end the stream now without ending it, which lets a caller keep
 * a complete, readable file on disk while the trace is still growing.
 *
 * Plain C99, no dependencies: it is compiled into the Pin tool and, by the
 * project's Go tests, with gcc against the Go writer and the reference files.
 */
#ifndef PARLOT_COMPRESS_H
#define PARLOT_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The format version the encoder writes ("Hdbg.17" in the reference tool's
 * file names). */
#define PARLOT_FORMAT_VERSION 17

/* The caller drains out[] once len reaches PARLOT_OUT_DRAIN; one value adds at
 * most PARLOT_MAX_PER_VALUE bytes, and the tail is at most PARLOT_TAIL_MAX. */
#define PARLOT_OUT_DRAIN (32 * 1024)
#define PARLOT_MAX_PER_VALUE 9
#define PARLOT_TAIL_MAX 10

typedef struct parlot_enc {
    /* Stage 1 (LZ). */
    uint16_t hist[65536]; /* the last 65536 values, indexed by pos mod 65536 */
    uint16_t last[4096];  /* hash of three values -> where the next one went */
    uint16_t hash;        /* 12-bit hash of the last three values */
    uint16_t pos;         /* where the next value goes in hist */
    int in_run;           /* a count word is held back and may still grow */
    uint16_t count;       /* the held-back count */
    uint16_t cand;        /* the run expects hist[cand] next */

    /* Stage 2 (ZE): the words of the current, unfinished group. */
    uint16_t group[4];
    unsigned gn;

    uint64_t values; /* values put so far */
    uint64_t words;  /* stage-1 words produced so far */
    int finished;    /* parlot_enc_finish was called */

    /* Compressed bytes not yet taken by the caller. */
    size_t len;
    uint8_t out[PARLOT_OUT_DRAIN + PARLOT_MAX_PER_VALUE + 2 * PARLOT_TAIL_MAX];
} parlot_enc;

/* parlot_enc_init resets e to the empty stream. */
void parlot_enc_init(parlot_enc *e);

/* parlot_enc_put compresses one value. It appends at most
 * PARLOT_MAX_PER_VALUE bytes to out[]; the caller must drain out[] (take the
 * first len bytes and set len to 0) whenever len >= PARLOT_OUT_DRAIN. */
void parlot_enc_put(parlot_enc *e, uint16_t v);

/* parlot_enc_tail writes to tail the bytes that end the stream if it ended
 * after the values put so far (the held-back run count, the unfinished group
 * and the trailer byte) and returns how many (1..PARLOT_TAIL_MAX). The bytes
 * already produced followed by these form a complete trace file. The encoder
 * is not changed: more values may follow, and then the tail changes. */
size_t parlot_enc_tail(const parlot_enc *e, uint8_t tail[PARLOT_TAIL_MAX]);

/* parlot_enc_finish ends the stream: it appends the tail to out[]. No value
 * may be put afterwards. */
void parlot_enc_finish(parlot_enc *e);

#ifdef __cplusplus
}
#endif

#endif
