/* reader.h: turns an input stream into regions of whole lines.
 *
 * Reads in large blocks into one buffer and hands out regions: runs of
 * complete lines, each ending in '\n', pointing into the buffer (valid until
 * the next call). No syscall and no allocation per line. A line whose
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

#define READER_BLOCK (256 * 1024)   /* bytes asked of each read */
#define READER_SLACK 64             /* vector loads may run past the data */

typedef struct region {
    const char *p;      /* first byte of the first line */
    size_t len;         /* bytes, the last one is '\n' */
    int synthetic;      /* a split piece or final line: '\n' was added */
} region_t;

typedef struct reader {
    input_t *in;          /* borrowed */
    size_t max_line_len;  /* longest line content kept whole */
    char *buf;            /* cap + READER_SLACK bytes */
    size_t cap;           /* READER_BLOCK + max_line_len + 1 */
    size_t len;           /* valid bytes in buf */
    size_t pos;           /* first byte not yet handed out */
    int eof;              /* input returned 0 */
    char *piece;          /* max_line_len + 1 + READER_SLACK bytes for split pieces */
    unsigned long long n_split;   /* lines that were split */
    unsigned long long bytes_read;/* bytes read from the input (decoded) */
} reader_t;

int reader_init(reader_t *r, input_t *in, size_t max_line_len, err_t *e);
void reader_free(reader_t *r);
/* 1: *out holds a region; 0: end of input; -1: read error (e set). */
int reader_next(reader_t *r, region_t *out, err_t *e);

#endif
