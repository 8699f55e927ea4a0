/*
 * parlot_info.h - the .info function table of a traced process.
 *
 * The table gives every traced routine its 16-bit function ID (ParLOT paper,
 * section 3.1) in the format of docs/parlot-format.md:
 *
 *     +
 *     /path/to/image
 *     func_a
 *     func_b
 *
 * one section per image, IDs 1, 2, 3, ... in the order the names appear
 * across sections; 0 is reserved for exits and the largest ID is 65534.
 * Sections are written whole as each image is loaded (before any of its code
 * runs), so the table on disk always covers every ID a trace can hold, even
 * if the process is killed later.
 *
 * Plain C99 plus POSIX file calls; compiled into the Pin tool and tested.
 */
#ifndef PARLOT_INFO_H
#define PARLOT_INFO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest function ID. */
#define PARLOT_MAX_ID 65534u

typedef struct parlot_info {
    int fd;
    int err;          /* errno of the first failure */
    unsigned next;    /* the next ID to give */
    unsigned skipped; /* routines left without an ID: the table was full */
    char *buf;        /* the section being built */
    size_t len, cap;
    size_t funcs;     /* functions in the section being built */
} parlot_info;

/* parlot_info_create creates (or truncates) the table at path. It returns 0
 * or an errno value. */
int parlot_info_create(parlot_info *in, const char *path);

/* parlot_info_begin starts the section of an image. */
void parlot_info_begin(parlot_info *in, const char *image);

/* parlot_info_add gives the next ID to function name in the current section
 * and returns it, or returns 0 - the routine is then not traced - when all
 * 65534 IDs are taken or the table failed (memory, a write). Line breaks in
 * names become '?', an empty name is written "(anonymous)" and a name "+"
 * (which would start a section) "?+"; an empty image path is written
 * "(unnamed image)". */
uint16_t parlot_info_add(parlot_info *in, const char *name);

/* parlot_info_end writes the current section, unless it has no function. It
 * returns 0 or an errno value. */
int parlot_info_end(parlot_info *in);

/* parlot_info_close closes the table. It returns 0 or the errno of the first
 * failure. */
int parlot_info_close(parlot_info *in);

#ifdef __cplusplus
}
#endif

#endif
