/* outbuf.c: block writer with EINTR and short-write handling. */
#include "base/outbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/fdio.h"
#include "base/grow.h"
#include "base/term.h"

int outbuf_init(outbuf_t *ob, int fd, size_t cap, err_t *e)
{
    ob->fd = fd;
    ob->len = 0;
    ob->cap = cap;
    ob->failed = 0;
    ob->write_errno = 0;
    ob->sink = NULL;
    ob->sink_ctx = NULL;
    ob->escape_data = term_escapes(fd);
    ob->data = malloc(cap);
    if (!ob->data)
        return err_set(e, ERR_NOMEM, "out of memory allocating %zu byte output buffer", cap);
    return 0;
}

int outbuf_init_mem(outbuf_t *ob, size_t cap, err_t *e)
{
    return outbuf_init(ob, -1, cap, e);
}

int outbuf_init_sink(outbuf_t *ob, size_t cap,
                     int (*sink)(void *ctx, const char *p, size_t n, int *err), void *ctx,
                     err_t *e)
{
    if (outbuf_init(ob, -1, cap, e) < 0)
        return -1;
    ob->sink = sink;
    ob->sink_ctx = ctx;
    return 0;
}

/* In memory: neither a descriptor nor a sink takes the bytes. */
static int in_memory(const outbuf_t *ob)
{
    return ob->fd < 0 && !ob->sink;
}

void outbuf_free(outbuf_t *ob)
{
    free(ob->data);
    ob->data = NULL;
}

static int write_all(outbuf_t *ob, const char *p, size_t n)
{
    if (ob->failed || in_memory(ob))
        return -1;
    if (ob->sink) {
        int err = 0;
        if (n && ob->sink(ob->sink_ctx, p, n, &err) < 0) {
            ob->failed = 1;
            ob->write_errno = err;
            return -1;
        }
        return 0;
    }
    if (fdio_write_all(ob->fd, p, n) < 0) {
        ob->failed = 1;
        ob->write_errno = errno;
        return -1;
    }
    return 0;
}

int outbuf_flush(outbuf_t *ob)
{
    if (in_memory(ob))
        return 0;   /* in memory: the owner takes the bytes */
    int rc = write_all(ob, ob->data, ob->len);
    ob->len = 0;
    return rc;
}

int outbuf_write_direct(outbuf_t *ob, const char *p, size_t n)
{
    if (in_memory(ob)) {
        outbuf_append(ob, p, n);
        return ob->failed ? -1 : 0;
    }
    if (ob->len && outbuf_flush(ob) < 0)
        return -1;
    return write_all(ob, p, n);
}

/* Makes room for n more bytes in an in-memory block; 0 or -1 (failed). */
static int mem_reserve(outbuf_t *ob, size_t n)
{
    if (GROW_ARRAY(ob->data, ob->cap, ob->len + n, 1) < 0) {
        ob->failed = 1;
        ob->write_errno = ENOMEM;
        return -1;
    }
    return 0;
}

void outbuf_append_slow(outbuf_t *ob, const char *p, size_t n)
{
    if (in_memory(ob)) {
        if (mem_reserve(ob, n) < 0)
            return;
        memcpy(ob->data + ob->len, p, n);
        ob->len += n;
        return;
    }
    outbuf_flush(ob);
    if (n >= ob->cap) {
        write_all(ob, p, n);
        return;
    }
    memcpy(ob->data, p, n);
    ob->len = n;
}

void outbuf_append_escaped(outbuf_t *ob, const char *p, size_t n, unsigned flags)
{
    if (in_memory(ob)) {
        if (mem_reserve(ob, n * TERM_ESCAPE_MAX) == 0)
            ob->len += term_escape(ob->data + ob->len, p, n, flags);
        return;
    }
    /* Escaped straight into the block, a block's worth at a time, cut
     * where the pieces escape as the whole would. */
    while (n && !ob->failed) {
        size_t k = (ob->cap - ob->len) / TERM_ESCAPE_MAX;
        if (k < 64 && ob->len) {
            outbuf_flush(ob);
            continue;
        }
        if (k < 64) {   /* a block too small to hold a piece: through the stack */
            char tmp[64 * TERM_ESCAPE_MAX];
            size_t c = term_cut(p, n, 64);
            outbuf_append_slow(ob, tmp, term_escape(tmp, p, c, c == n ? flags : 0));
            p += c;
            n -= c;
            continue;
        }
        size_t c = term_cut(p, n, k);
        ob->len += term_escape(ob->data + ob->len, p, c, c == n ? flags : 0);
        p += c;
        n -= c;
    }
}

void outbuf_put_u64(outbuf_t *ob, unsigned long long v)
{
    char tmp[24];
    int i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    outbuf_append(ob, tmp + i, sizeof tmp - (size_t)i);
}
