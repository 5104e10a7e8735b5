/* outbuf.h: large-block buffered output to a file descriptor.
 *
 * Every tool writes its payload through one outbuf: appends are memcpy into a
 * 1 MiB block, flushed when full and at the end, never per line (lesson 4).
 * Large spans can bypass the copy with outbuf_write_direct. */
#ifndef DTAIL_BASE_OUTBUF_H
#define DTAIL_BASE_OUTBUF_H

#include <stddef.h>
#include <string.h>

#include "base/err.h"

typedef struct outbuf {
    int fd;          /* destination */
    char *data;      /* block of cap bytes */
    size_t len;      /* bytes pending */
    size_t cap;      /* block size */
    int failed;      /* a write failed (EPIPE etc.); further output is dropped */
    int write_errno; /* errno of the failed write */
    /* Instead of fd: each flushed block goes to sink (dserver frames it
     * for the wire); it returns 0, or -1 with an errno value in *err. */
    int (*sink)(void *ctx, const char *p, size_t n, int *err);
    void *sink_ctx;  /* passed to sink */
    int escape_data; /* the bytes end on a terminal: outbuf_append_data
                        escapes them (base/term.h). Set by outbuf_init for
                        stdout and stderr, by the owner for the others. */
} outbuf_t;

int outbuf_init(outbuf_t *ob, int fd, size_t cap, err_t *e);
/* An in-memory outbuf (fd -1): appends grow the block instead of writing;
 * outbuf_reset empties it. Used to stage output of work done out of order. */
int outbuf_init_mem(outbuf_t *ob, size_t cap, err_t *e);
static inline void outbuf_reset(outbuf_t *ob) { ob->len = 0; }
/* An outbuf whose flushes call sink(ctx, block, len, &errno) instead of
 * writing to a descriptor: same appends, same block size, no per-line cost. */
int outbuf_init_sink(outbuf_t *ob, size_t cap,
                     int (*sink)(void *ctx, const char *p, size_t n, int *err), void *ctx,
                     err_t *e);
void outbuf_free(outbuf_t *ob);
/* Writes everything pending; returns 0 or -1 (ob->failed set). */
int outbuf_flush(outbuf_t *ob);
/* Flushes pending bytes, then writes [p, p+n) without copying. */
int outbuf_write_direct(outbuf_t *ob, const char *p, size_t n);
/* Slow path of outbuf_append for spans that do not fit. */
void outbuf_append_slow(outbuf_t *ob, const char *p, size_t n);

static inline void outbuf_append(outbuf_t *ob, const char *p, size_t n)
{
    if (ob->len + n <= ob->cap) {
        memcpy(ob->data + ob->len, p, n);
        ob->len += n;
    } else {
        outbuf_append_slow(ob, p, n);
    }
}

static inline void outbuf_putc(outbuf_t *ob, char c)
{
    if (ob->len == ob->cap)
        outbuf_append_slow(ob, &c, 1);
    else
        ob->data[ob->len++] = c;
}

/* Appends [p, p+n) escaped for a terminal (base/term.h term_escape, with
 * flags), in blocks of the buffer's size. */
void outbuf_append_escaped(outbuf_t *ob, const char *p, size_t n, unsigned flags);

/* Appends data (log bytes, file and host names) as outbuf_append does, or
 * escaped when the block ends on a terminal; one test per call, none per
 * byte, when it does not. flags: term_escape's. */
static inline void outbuf_append_data(outbuf_t *ob, const char *p, size_t n, unsigned flags)
{
    if (ob->escape_data)
        outbuf_append_escaped(ob, p, n, flags);
    else
        outbuf_append(ob, p, n);
}

/* Appends the decimal form of v. */
void outbuf_put_u64(outbuf_t *ob, unsigned long long v);

#endif
