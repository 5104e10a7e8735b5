/* ssh_stream.c: see ssh_stream.h. */
#include "transport/ssh_stream.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"

#define SSH_STREAM_WRITE_PIECE (64 * 1024)   /* libssh's per-write cost is fixed: write big */
#define SSH_STREAM_POLL_MS 100               /* an idle reader looks again this often */
#define SSH_STREAM_SLOW_MS 900               /* a piece slower than this waited on the peer */

int ssh_stream_init(ssh_stream_t *st, err_t *e)
{
    st->off = st->len = 0;
    st->buf = NULL;
    if (st->read_max && !(st->buf = malloc(st->read_max)))
        return err_set(e, ERR_NOMEM, "out of memory for the SSH read buffer");
    return 0;
}

void ssh_stream_free(ssh_stream_t *st)
{
    free(st->buf);
    st->buf = NULL;
}

/* One read from libssh without waiting: bytes, 0 when none are there yet,
 * SSH_EOF at the end, SSH_ERROR. */
static int read_once(ssh_stream_t *st, void *dst, uint32_t want)
{
    pthread_mutex_lock(st->mu);
    int r = st->api->channel_read_timeout(st->ch, dst, want, 0, 0);
    int eof = st->api->channel_is_eof(st->ch) || st->api->channel_is_closed(st->ch);
    pthread_mutex_unlock(st->mu);
    return r == 0 && eof ? SSH_EOF : r;
}

ssize_t ssh_stream_read(ssh_stream_t *st, void *buf, size_t n, err_t *e)
{
    if (st->len == 0) {
        int direct = !st->read_max || n >= st->read_max;
        size_t cap = direct ? n : st->read_max;
        uint32_t want = cap > (1u << 30) ? (1u << 30) : (uint32_t)cap;
        int r;
        while ((r = read_once(st, direct ? buf : st->buf, want)) == 0) {
            if (st->read_ends && st->read_ends(st->read_ends_ctx))
                return 0;
            struct pollfd p = {.fd = st->api->get_fd(st->sess), .events = POLLIN};
            if (poll(&p, 1, SSH_STREAM_POLL_MS) < 0 && errno != EINTR)
                return err_set(e, ERR_IO, "poll on the SSH socket: %s", strerror(errno));
        }
        if (r == SSH_ERROR)
            return err_set(e, ERR_IO, "reading from %s: %s", st->who, st->api->get_error(st->sess));
        if (r < 0)
            return 0;   /* end of stream */
        if (direct)
            return r;
        st->off = 0;
        st->len = (size_t)r;
    }
    size_t k = n < st->len ? n : st->len;
    memcpy(buf, st->buf + st->off, k);
    st->off += k;
    st->len -= k;
    return (ssize_t)k;
}

/* The stall policy is told without the lock: it may wait for a slot. */
static void tell_stall(ssh_stream_t *st, int stalled)
{
    if (st->stall->tell) {
        pthread_mutex_unlock(st->mu);
        st->stall->tell(st->stall->ctx, stalled);
        pthread_mutex_lock(st->mu);
    }
}

/* A piece came back short or late: flush what libssh holds before adding
 * more (a stalled peer then costs no memory), up to the policy's timeout.
 * 0 to go on, or -1 with e. */
static int wait_on_peer(ssh_stream_t *st, int wrote, long long t0, long long *stalled,
                        long long *progress, err_t *e)
{
    const ssh_stream_stall_t *sp = st->stall;
    if (*sp->stopping)
        return err_set(e, ERR_IO, "%s stopped reading while the server stops", sp->peer_name);
    if (!*stalled) {
        *stalled = *progress = t0;
        tell_stall(st, 1);
    }
    int fr;
    while ((fr = st->api->blocking_flush(st->sess, 1000)) == SSH_AGAIN) {
        if (*sp->stopping || clock_now_ms() - *progress >= sp->timeout_ms)
            break;
    }
    if (fr == SSH_ERROR)
        return err_set(e, ERR_IO, "writing to %s: %s", st->who, st->api->get_error(st->sess));
    long long now = clock_now_ms();
    if (fr == SSH_OK && wrote > 0)
        *progress = now;
    if (now - *progress >= sp->timeout_ms)
        return err_set(e, ERR_IO, "%s stopped reading for %lld s (WriteTimeoutSeconds)",
                       sp->peer_name, sp->timeout_ms / 1000);
    return 0;
}

int ssh_stream_write(ssh_stream_t *st, const void *buf, size_t n, err_t *e)
{
    const char *p = buf;
    long long stalled = 0, progress = 0;   /* since when; 0: not stalled */
    int rc = 0;
    pthread_mutex_lock(st->mu);
    while (n > 0) {
        uint32_t piece = n > SSH_STREAM_WRITE_PIECE ? SSH_STREAM_WRITE_PIECE : (uint32_t)n;
        long long t0 = st->stall ? clock_now_ms() : 0;
        int w = st->api->channel_write(st->ch, p, piece);
        if (w == SSH_ERROR || ((w <= 0 || st->stall) && st->api->channel_is_closed(st->ch))) {
            rc = err_set(e, ERR_IO, "writing to %s: %s", st->who,
                         w == SSH_ERROR ? st->api->get_error(st->sess) : "channel closed");
            break;
        }
        if (w < 0)
            w = 0;   /* SSH_AGAIN: nothing went */
        p += w;
        n -= (size_t)w;
        if (!st->stall)
            continue;
        if (w == (int)piece && clock_now_ms() - t0 < SSH_STREAM_SLOW_MS) {
            if (stalled) {
                stalled = 0;
                tell_stall(st, 0);
            }
            continue;
        }
        if ((rc = wait_on_peer(st, w, t0, &stalled, &progress, e)) < 0)
            break;
    }
    if (stalled)
        tell_stall(st, 0);
    pthread_mutex_unlock(st->mu);
    return rc;
}
