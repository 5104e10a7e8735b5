/* stream.h: a byte stream between a client and a server, whatever carries
 * it: an SSH channel in production, a socketpair in unit tests. The wire
 * protocol (wire/) and the session code on both sides speak only to this,
 * so the same request handling runs over SSH and in tests.
 *
 * Contract:
 *  - read blocks until at least one byte is available; returns the count,
 *    0 at end of stream, or -1 on an error (message in e).
 *  - write blocks until all n bytes are accepted (this is the backpressure:
 *    a slow peer slows the writer); returns 0, or -1 on an error.
 *  - close ends the stream in both directions and frees ctx; safe once. */
#ifndef DTAIL_WIRE_STREAM_H
#define DTAIL_WIRE_STREAM_H

#include <stddef.h>
#include <sys/types.h>

#include "base/err.h"

typedef struct stream {
    void *ctx;
    ssize_t (*read)(void *ctx, void *buf, size_t n, err_t *e);
    int (*write)(void *ctx, const void *buf, size_t n, err_t *e);
    void (*close)(void *ctx);
} stream_t;

static inline ssize_t stream_read(stream_t *s, void *buf, size_t n, err_t *e)
{
    return s->read(s->ctx, buf, n, e);
}
static inline int stream_write(stream_t *s, const void *buf, size_t n, err_t *e)
{
    return s->write(s->ctx, buf, n, e);
}
static inline void stream_close(stream_t *s)
{
    if (s->close) {
        s->close(s->ctx);
        s->close = NULL;
    }
}

#endif
