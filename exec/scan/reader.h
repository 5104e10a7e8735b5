/* reader.h: turns an input stream into regions of whole lines.
 *
 * Reads in large blocks into one buffer and hands out regions: runs of
 * complete lines, each ending in '\n', pointing into the buffer (valid until
 * the next call). No syscall and no allocation per line. A plain regular
 * file is mapped in windows instead of read (no copy); a scan that uses the
 * reader must arm the reader's guard (reader_guard) so a file truncated
 * under the mapping becomes an error. A line whose
 * content is longer than max_line_len is split into pieces of exactly
 * max_line_len bytes, each handed out as a one-line region of its own (a
 * copy with '\n' appended), as DTail does; a final line without '\n' is
 * handed out with one appended. The buffer never grows past
 * READER_BLOCK + max_line_len, whatever the input. */
#ifndef DTAIL_EXEC_READER_H
#define DTAIL_EXEC_READER_H

#include <stddef.h>

#include "base/err.h"
#include "exec/scan/input.h"
#include "exec/scan/mapguard.h"

#define READER_BLOCK (256 * 1024)   /* bytes asked of each read */
#define READER_SLACK 64             /* vector loads may run past the data */

typedef struct region {
    const char *p;      /* first byte of the first line */
    size_t len;         /* bytes, the last one is '\n' */
    long long off;      /* input offset of p (decoded bytes) */
    int synthetic;      /* a split piece or final line: '\n' was added */
    int cont;           /* starts inside a line that was split */
} region_t;

typedef struct reader {
    input_t *in;          /* borrowed */
    size_t max_line_len;  /* longest line content kept whole */
    char *buf;            /* current data: own_buf or a window of the mapping */
    char *own_buf;        /* cap + READER_SLACK bytes for read() */
    int fd;               /* mapped file, -1 when reading */
    long long file_size;  /* mapped file's size at open */
    char *map;            /* current window, NULL if none */
    size_t map_len;       /* its length */
    size_t window;        /* window size for mapping */
    map_guard_t guard;    /* covers the current window */
    size_t cap;           /* READER_BLOCK + max_line_len + 1 */
    size_t block;         /* bytes asked of each read (READER_BLOCK) */
    size_t len;           /* valid bytes in buf */
    size_t pos;           /* first byte not yet handed out */
    int eof;              /* input returned 0 */
    char *piece;          /* max_line_len + 1 + READER_SLACK bytes for split pieces */
    long long buf_off;    /* input offset of buf[0] */
    int in_split;         /* the next byte continues a split line */
    unsigned long long n_split;   /* lines that were split */
    unsigned long long bytes_read;/* input bytes handed out in regions (decoded;
                                     a '\n' the reader added is not one) */
    unsigned long long n_cut;     /* unfinished lines dropped (INPUT_CUT) */
} reader_t;

/* start_off is the input offset of the first byte the input will return. */
int reader_init(reader_t *r, input_t *in, size_t max_line_len, long long start_off, err_t *e);
/* Points an initialised reader at another input, keeping its buffers. */
void reader_reset(reader_t *r, input_t *in, long long start_off);
void reader_free(reader_t *r);
/* Reads at most block bytes at a time (a followed file: small reads keep
 * the memory of many idle followers small). */
void reader_set_block(reader_t *r, size_t block);
/* 1: *out holds a region; 0: end of input; -1: read error (e set); 2: the
 * input has nothing now (INPUT_AGAIN): call again later, an unfinished
 * line is kept. */
int reader_next(reader_t *r, region_t *out, err_t *e);
/* The guard to arm (sigsetjmp + map_guard_set) around scans of regions. */
static inline map_guard_t *reader_guard(reader_t *r) { return &r->guard; }

#endif
