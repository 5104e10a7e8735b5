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
 *  - close ends the stream in both directions and frees ctx; safe once.
 *
 * Two optional hooks between a server's session and its transport:
 *  - busy (set by the transport): the session tells whether a request is
 *    in flight, so that an idle connection can be told from a busy one;
 *  - on_stall (set by the session, with owner): the transport tells when a
 *    write has waited on the peer for a while (stalled 1) and when it went
 *    through again (stalled 0), so that the session can give up, and later
 *    take back, what a blocked writer should not hold (a read slot). */
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
    void (*busy)(void *ctx, int busy);         /* optional, NULL */
    void (*on_stall)(void *owner, int stalled); /* optional, NULL */
    void *owner;                               /* on_stall's argument */
} stream_t;

static inline ssize_t stream_read(stream_t *s, void *buf, size_t n, err_t *e)
{
    return s->read(s->ctx, buf, n, e);
}
static inline int stream_write(stream_t *s, const void *buf, size_t n, err_t *e)
{
    return s->write(s->ctx, buf, n, e);
}
static inline void stream_busy(stream_t *s, int busy)
{
    if (s->busy)
        s->busy(s->ctx, busy);
}
static inline void stream_close(stream_t *s)
{
    if (s->close) {
        s->close(s->ctx);
        s->close = NULL;
    }
}

#endif
