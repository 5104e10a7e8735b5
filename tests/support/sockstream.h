/* sockstream.h: a stream_t over one end of a socketpair, for tests of the
 * wire protocol and sessions without SSH. Header-only. */
#ifndef DTAIL_TESTS_SOCKSTREAM_H
#define DTAIL_TESTS_SOCKSTREAM_H

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "wire/stream.h"

static inline ssize_t sp_read(void *ctx, void *buf, size_t n, err_t *e)
{
    ssize_t r = read(*(int *)ctx, buf, n);
    if (r < 0)
        err_set(e, ERR_IO, "read: %s", strerror(errno));
    return r;
}

static inline int sp_write(void *ctx, const void *buf, size_t n, err_t *e)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(*(int *)ctx, p, n);
        if (w < 0)
            return err_set(e, ERR_IO, "write: %s", strerror(errno));
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* A stream over *fd (the descriptor stays the caller's). */
static inline stream_t sock_stream(int *fd)
{
    return (stream_t){.ctx = fd, .read = sp_read, .write = sp_write};
}

#endif
